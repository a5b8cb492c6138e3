/**
 * How each agent that rewrites commands (through `retained run`) runs the model's command: its
 * shell and flags, and what it wraps around the command line, as read from each binary (see
 * docs/agents.md). The transparency suite runs every command plain and rewritten inside each.
 */

import { geminiRewrite } from '../../server/src/cli/geminiHook';
import type { Launcher } from '../../shared/agentSetup';
import { type RewriteOptions, rewrite } from '../../shared/rewrite';

export interface AgentShell {
  /** The agents that run commands so. */
  agents: string;
  file: string;
  args: readonly string[];
  /** The script the agent hands its shell for a command line. */
  wrap: (command: string) => string;
  /** How the agent's hook rewrites a command. */
  rewrite: (launcher: Launcher, options: RewriteOptions, command: string) => string | undefined;
}

export const SHELLS: readonly AgentShell[] = [
  // Codex 0.171: `exec '/bin/bash' -c '<cmd>'` after its shell snapshot; `/bin/bash -lc '<cmd>'` before it.
  { agents: 'Codex', file: '/bin/bash', args: ['-c'], wrap: (command) => command, rewrite },
  {
    agents: 'Codex, before its shell snapshot',
    file: '/bin/bash',
    args: ['-lc'],
    wrap: (command) => command,
    rewrite,
  },
  // Gemini CLI 0.61: bash (its path) -c, options unset, the command trimmed in a subshell that records its background jobs.
  {
    agents: 'Gemini CLI',
    file: '/usr/bin/bash',
    args: ['-c'],
    wrap: (command) =>
      `shopt -u promptvars nullglob extglob nocaseglob dotglob; _bgpids_file=/dev/null\n(\n  trap 'jobs -p > "$_bgpids_file"' EXIT\n${command.trim()}\n)\n__code=$?\nexit $__code`,
    rewrite: geminiRewrite,
  },
];
