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
   * it), else `folder` in the user's home.
   */
  home: { variable: string; folder: string; inside?: string };
  /** Where setup writes: the project (its settings are a project's), or its home. */
  setupIn: 'project' | 'home';
  /** The files setup writes, there. */
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
    setupIn: 'project',
    config: ['.mcp.json', '.claude/settings.json', '.claude/retained-outputs-prefix.sh'],
    hook: 'a PostToolUse hook, and a shell prefix its Bash tool runs commands through',
    failing: "the stub, after Claude Code's own `Exit code N` line",
    formats: ['claude-code'],
    peekTool: `mcp__${MCP_SERVER}__${PEEK_TOOL}`,
  },
  codex: {
    name: 'Codex',
    home: { variable: 'CODEX_HOME', folder: '.codex' },
    setupIn: 'home',
    config: ['config.toml'],
    hook: 'a PreToolUse hook that runs shell commands through `retained run`',
    failing: 'the stub, with its exit status',
    formats: ['codex'],
    peekTool: PEEK_TOOL,
  },
  gemini: {
    name: 'Gemini CLI',
    home: { variable: 'GEMINI_CLI_HOME', inside: '.gemini', folder: '.gemini' },
    setupIn: 'home',
    config: ['settings.json'],
    hook: 'BeforeTool and AfterTool hooks: shell commands run through `retained run` where no rule could decide on them, else a big output replaced after',
    failing: 'the stub, with its exit status',
    formats: ['gemini-cli'],
    peekTool: `mcp_${MCP_SERVER}_${PEEK_TOOL}`,
  },
  qwen: {
    name: 'Qwen Code',
    home: { variable: 'QWEN_HOME', folder: '.qwen' },
    setupIn: 'home',
    config: ['settings.json'],
    hook: 'PostToolUse and PostToolUseFailure hooks',
    failing: 'the stub, with its exit status',
    formats: ['qwen-code'],
    peekTool: `mcp__${MCP_SERVER}__${PEEK_TOOL}`,
  },
  opencode: {
    name: 'OpenCode',
    home: { variable: 'XDG_CONFIG_HOME', inside: 'opencode', folder: '.config/opencode' },
    setupIn: 'home',
    config: ['opencode.json', 'plugins/retained-outputs.js'],
    hook: 'a plugin that keeps a big bash output after it ran (from the file OpenCode saved it to)',
    failing: 'the stub, with the exit status OpenCode itself never shows the model',
    formats: [],
    peekTool: `${MCP_SERVER}_${PEEK_TOOL}`,
  },
  'copilot-cli': {
    name: 'GitHub Copilot CLI',
    home: { variable: 'COPILOT_HOME', folder: '.copilot' },
    setupIn: 'home',
    config: ['mcp-config.json', 'hooks/retained-outputs.json'],
    hook: 'a postToolUse hook',
    failing: 'the stub, after its exit status line',
    formats: ['copilot-cli'],
    peekTool: `${MCP_SERVER}-${PEEK_TOOL}`,
  },
  cline: {
    name: 'Cline',
    home: { variable: 'CLINE_DIR', folder: '.cline' },
    setupIn: 'home',
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
  const { name, home, setupIn, config, hook } = AGENTS[agent];
  const where = setupIn === 'project' ? 'this project' : `~/${home.folder} ($${home.variable})`;
  return { name, adds: `The MCP server and ${hook}: ${config.join(', ')} in ${where}` };
}

/** A session format: the agent people read as having written it, and what its files do not record. */
export interface FormatRow {
  agent: string;
  /**
   * What "as the agent sent it" cannot cover: the parts of a request its session files do not
   * record. A rebuilt request holds everything else, exactly; the inspector, docs/protocol.md and
   * the tests that compare rebuilt requests with the bodies the real agents sent all read this.
   */
  notRecorded: readonly string[];
}

/** The session formats, a row each (VS Code's Copilot Chat replays have no agent row of their own). */
export const FORMATS: Readonly<Record<ImportFormat, FormatRow>> = {
  'claude-code': {
    agent: AGENTS['claude-code'].name,
    notRecorded: [
      'the first system block, `x-anthropic-billing-header: cc_version=…`, a value Claude Code makes for each request',
      '`metadata.user_id`: it holds the device id (the session id in it is known)',
      '`stream` (Claude Code streams every model call)',
      '`safeguards`: the context of its permission checks, sent in a permission mode or with a permission prompt tool (plan mode)',
      'HTTP headers other than `anthropic-beta` (its betas are recorded)',
      'whether a message of one text block went as a string or as a list (the same to the API)',
      "requests the file keeps no record of: a compaction's own summary request, titles and other side calls",
    ],
  },
  codex: {
    agent: AGENTS.codex.name,
    notRecorded: [
      "the first input item, Codex's base instructions: the rollout keeps them as written, before Codex takes out its planning passages",
      'the tool definitions (`tools`): a rollout records only those loaded through tool_search',
      '`reasoning`, `text`, `include`, `store`, `stream`, `tool_choice`, `parallel_tool_calls` (from the model catalog and constants, not the rollout)',
      '`client_metadata` beyond the turn ids',
    ],
  },
  'copilot-chat': {
    agent: 'Copilot Chat',
    notRecorded: ['the tool definitions and request options (a chat replay logs messages only)'],
  },
  'copilot-cli': {
    agent: AGENTS['copilot-cli'].name,
    notRecorded: [
      'the system message (its `system.message` event keeps it, but not per request) and the tool definitions',
      'the request options (`temperature`, `top_p`, penalties, `max_tokens`)',
    ],
  },
  cline: {
    agent: AGENTS.cline.name,
    notRecorded: [
      'the system prompt as sent, the tool definitions and the request options',
      "each result's text as sent: Cline cuts it to about 8,000 characters on the way (its head, a note, its tail)",
    ],
  },
  'gemini-cli': {
    agent: AGENTS.gemini.name,
    notRecorded: [
      '`systemInstruction`, the tool definitions and `generationConfig`: a chat records messages only',
      "the thoughts' signatures (`thoughtSignature`), which Gemini CLI sends back in place of the thoughts",
      'how the parts were grouped into contents (Gemini CLI sends its session context and the first prompt as one)',
      "the call ids as sent (the chat's carry the tool's name before them)",
    ],
  },
  'qwen-code': {
    agent: AGENTS.qwen.name,
    notRecorded: [
      'the system message, the tool definitions and the request options: a chat records messages only',
      'the reminders Qwen Code adds to user messages (`<system-reminder>`: skills, the date)',
      'how a result was cut to fit, beyond the text the model got',
    ],
  },
};

/** The name of the agent that wrote a session of this format. */
export function agentName(format: ImportFormat): string {
  return FORMATS[format].agent;
}
