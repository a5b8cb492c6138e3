/**
 * How each agent that rewrites commands (through `retained run`) runs the model's command: its
 * shell and flags, and what it wraps around the command line, as read from each binary (see
 * docs/agents.md). The transparency suite runs every command plain and rewritten inside each.
 */
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { geminiRewrite } from '../../server/src/cli/geminiHook';
import { setupChanges } from '../../server/src/cli/setup';
import type { Launcher } from '../../shared/launcher';
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
  /** What the agent puts in the command's environment (both ways). */
  env?: Record<string, string>;
}

const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * Claude Code's Bash tool script around a command: its snapshot of the user's shell sourced (none
 * here: the file is not there, as for a user without one), the command, then the folder it ends in.
 */
const claudeScript = (command: string) =>
  `source /nonexistent/shell-snapshots/snapshot-bash-0.sh 2>/dev/null || true && eval ${quote(command)} && pwd -P >| /dev/null`;

/**
 * The shell prefix `retained setup claude-code` writes, for a store, made once: Claude Code starts
 * it in place of its shell with the script as its one argument (here: the shell execs it so).
 */
function claudePrefix(launcher: Launcher, store: string): string {
  const project = dirname(store);
  const [, , prefix] = setupChanges('claude-code', { project }, launcher, () => undefined, {
    sha256: (t: string) => t,
  });
  if (!existsSync(prefix!.path)) {
    mkdirSync(dirname(prefix!.path), { recursive: true });
    writeFileSync(prefix!.path, prefix!.after!);
    chmodSync(prefix!.path, 0o755);
  }
  return prefix!.path;
}

export const SHELLS: readonly AgentShell[] = [
  // Claude Code 2.1.332: its shell (SHELL) -c on its script; with a shell prefix, the prefix on the script instead.
  {
    agents: 'Claude Code, through its shell prefix',
    file: '/bin/bash',
    args: ['-c'],
    wrap: claudeScript,
    rewrite: (launcher, options, command) =>
      `exec ${quote(claudePrefix(launcher, options.store))} ${quote(claudeScript(command))}`,
    env: { SHELL: '/bin/bash', CLAUDE_CODE_SESSION_ID: 'transparency' },
  },
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
