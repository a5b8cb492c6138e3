/**
 * The agents Retained Outputs knows, named once: their import formats and the names people
 * read. The core, the extension's views and the inspector all say an agent's name from here.
 */
import { PEEK_TOOL } from './history';
import type { ImportFormat } from './protocol';

/** The name our MCP server goes by in every agent's configuration. */
export const MCP_SERVER = 'retained';
/** peek_value as Claude Code's model knows it: an MCP tool is `mcp__<server>__<tool>`. */
export const CLAUDE_CODE_PEEK_TOOL = `mcp__${MCP_SERVER}__${PEEK_TOOL}`;
/** peek_value as GitHub Copilot CLI's model knows it: `<server>-<tool>`. */
export const COPILOT_CLI_PEEK_TOOL = `${MCP_SERVER}-${PEEK_TOOL}`;

export const AGENT_NAMES: Record<ImportFormat, string> = {
  'claude-code': 'Claude Code',
  codex: 'Codex',
  copilot: 'Copilot',
  'copilot-cli': 'GitHub Copilot CLI',
  cline: 'Cline',
  'gemini-cli': 'Gemini CLI',
  'qwen-code': 'Qwen Code',
};

/** The name of the agent that wrote a session of this format. */
export function agentName(format: ImportFormat): string {
  return AGENT_NAMES[format];
}

/** A shell as an agent starts it for the model's command: the file, and the flags before the command line. */
export interface AgentShell {
  file: string;
  args: readonly string[];
  /** The agents that start it so. */
  agents: readonly string[];
}

/** Each shell the rewriting agents start, once. */
export const SHELLS: readonly AgentShell[] = [
  { file: '/bin/bash', args: ['-c'], agents: ['Codex'] },
  { file: '/bin/bash', args: ['-lc'], agents: ['Codex (before its shell snapshot)'] },
];
