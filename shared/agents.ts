/**
 * The agents Retained Outputs knows, named once: their import formats and the names people
 * read. The core, the extension's views and the inspector all say an agent's name from here.
 */
import { PEEK_TOOL } from './history';

/** The name our MCP server goes by in every agent's configuration. */
export const MCP_SERVER = 'retained';

/** Gemini CLI's shell tool, as its hooks name it. */
export const GEMINI_SHELL_TOOL = 'run_shell_command';

/**
 * The one agent table: a row per agent Retained Outputs sets up, naming everything the rest
 * reads of it (setup, the hooks, the command line's flags, imports, the Agent Sessions view).
 * A new agent is a row here, its adapter's row (server/src/cli/agentAdapters.ts: its setup, its hook) and its converter's (core/import/importer.ts).
 */
export const AGENT_IDS = ['claude-code', 'codex', 'gemini', 'qwen', 'opencode', 'copilot-cli', 'cline'] as const;
export type AgentId = (typeof AGENT_IDS)[number];

/** The session formats an import reads (and a run it made names as its source): the rows' `formats`, and VS Code's Copilot Chat replays. */
export const IMPORT_FORMATS = [
  'claude-code',
  'codex',
  'copilot-chat',
  'copilot-cli',
  'cline',
  'gemini-cli',
  'qwen-code',
] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/**
 * Names an agent went by before, still taken on the command line: the hook files setup wrote
 * then run `retained hook copilot`, and people type what they learned.
 */
export const FORMER_AGENT_IDS: Readonly<Record<string, AgentId>> = { copilot: 'copilot-cli' };

/** The agent a name on the command line means (its id, or a name it went by before); the name itself when it is neither. */
export function agentIdOf(name: string): string {
  return Object.hasOwn(FORMER_AGENT_IDS, name) ? FORMER_AGENT_IDS[name]! : name;
}

export interface AgentRow {
  name: string;
  /**
   * Its home folder: `variable` when set (the folder itself; with `inside`, the folder that holds
   * it), else `folder` in the user's home. Claude Code's setup writes the project instead.
   */
  home: { variable: string; folder: string; inside?: string };
  /** The files setup writes, in its home (Claude Code: in the project). */
  config: readonly string[];
  /** How Retained Outputs reaches its tool results. */
  hook: string;
  /** What a failing command gives the model. */
  failing: string;
  /** The session formats its files import as. */
  formats: readonly ImportFormat[];
  /** peek_value as its model knows it (an MCP tool's name). */
  peekTool: string;
}

export const AGENTS: Readonly<Record<AgentId, AgentRow>> = {
  'claude-code': {
    name: 'Claude Code',
    home: { variable: 'CLAUDE_CONFIG_DIR', folder: '.claude' },
    config: ['.mcp.json', '.claude/settings.json', '.claude/retained-outputs-prefix.sh'],
    hook: 'a PostToolUse hook, and a shell prefix its Bash tool runs commands through',
    failing: "the stub, after Claude Code's own `Exit code N` line",
    formats: ['claude-code'],
    peekTool: `mcp__${MCP_SERVER}__${PEEK_TOOL}`,
  },
  codex: {
    name: 'Codex',
    home: { variable: 'CODEX_HOME', folder: '.codex' },
    config: ['config.toml'],
    hook: 'a PreToolUse hook that runs shell commands through `retained run`',
    failing: 'the stub, with its exit status',
    formats: ['codex'],
    peekTool: PEEK_TOOL,
  },
  gemini: {
    name: 'Gemini CLI',
    home: { variable: 'GEMINI_CLI_HOME', inside: '.gemini', folder: '.gemini' },
    config: ['settings.json'],
    hook: 'BeforeTool and AfterTool hooks: shell commands run through `retained run` where no rule could decide on them, else a big output replaced after',
    failing: 'the stub, with its exit status',
    formats: ['gemini-cli'],
    peekTool: `mcp_${MCP_SERVER}_${PEEK_TOOL}`,
  },
  qwen: {
    name: 'Qwen Code',
    home: { variable: 'QWEN_HOME', folder: '.qwen' },
    config: ['settings.json'],
    hook: 'PostToolUse and PostToolUseFailure hooks',
    failing: 'the stub, with its exit status',
    formats: ['qwen-code'],
    peekTool: `mcp__${MCP_SERVER}__${PEEK_TOOL}`,
  },
  opencode: {
    name: 'OpenCode',
    home: { variable: 'XDG_CONFIG_HOME', inside: 'opencode', folder: '.config/opencode' },
    config: ['opencode.json', 'plugins/retained-outputs.js'],
    hook: 'a plugin that keeps a big bash output after it ran (from the file OpenCode saved it to)',
    failing: 'the stub, with the exit status OpenCode itself never shows the model',
    formats: [],
    peekTool: `${MCP_SERVER}_${PEEK_TOOL}`,
  },
  'copilot-cli': {
    name: 'GitHub Copilot CLI',
    home: { variable: 'COPILOT_HOME', folder: '.copilot' },
    config: ['mcp-config.json', 'hooks/retained-outputs.json'],
    hook: 'a postToolUse hook',
    failing: 'the stub, after its exit status line',
    formats: ['copilot-cli'],
    peekTool: `${MCP_SERVER}-${PEEK_TOOL}`,
  },
  cline: {
    name: 'Cline',
    home: { variable: 'CLINE_DIR', folder: '.cline' },
    config: ['data/settings/cline_mcp_settings.json', 'plugins/retained-outputs.js'],
    hook: 'a plugin that runs each command of run_commands through `retained run`',
    failing: 'the stub, with its exit status',
    formats: ['cline'],
    peekTool: `${MCP_SERVER}__${PEEK_TOOL}`,
  },
};

/** The agent's home folder, as the agent itself works it out from the environment. */
export function agentHome(agent: AgentId, userHome: string, env: Record<string, string | undefined>): string {
  const { variable, inside, folder } = AGENTS[agent].home;
  const set = env[variable];
  return set ? (inside ? `${set}/${inside}` : set) : `${userHome}/${folder}`;
}

/** What setting an agent up adds, for a picker: its name, and the files, where. */
export function setupSummary(agent: AgentId): { name: string; adds: string } {
  const { name, home, config, hook } = AGENTS[agent];
  const where = agent === 'claude-code' ? 'this project' : `~/${home.folder} ($${home.variable})`;
  return { name, adds: `The MCP server and ${hook}: ${config.join(', ')} in ${where}` };
}

/** The names people read, by import format (VS Code's Copilot Chat replays have no row of their own). */
export const AGENT_NAMES: Record<ImportFormat, string> = {
  'claude-code': AGENTS['claude-code'].name,
  codex: AGENTS.codex.name,
  'copilot-chat': 'Copilot Chat',
  'copilot-cli': AGENTS['copilot-cli'].name,
  cline: AGENTS.cline.name,
  'gemini-cli': AGENTS.gemini.name,
  'qwen-code': AGENTS.qwen.name,
};

/** The name of the agent that wrote a session of this format. */
export function agentName(format: ImportFormat): string {
  return AGENT_NAMES[format];
}
