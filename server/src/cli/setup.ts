/**
 * `retained setup <agent> [--remove]`: writes an agent's own configuration for Retained Outputs
 * (shared/agentSetup.ts says what), after showing exactly what changes. On a terminal it asks
 * first; from a script it writes only with `--yes`; `--dry-run` only shows. Each file is written
 * whole or not at all (a temp file renamed into place). The configuration names this command
 * line where it is now: run it from a path that outlives an upgrade (VS Code's Set Up uses the
 * stable copy in the extension's storage; an npm install is stable too).
 */
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { type FileChange, SETUP_AGENTS, type SetupAgent, setupChanges } from '../../../shared/agentSetup';
import { agentHome } from '../../../shared/agents';
import { applyChanges, readConfig as read } from '../../../shared/node/setupFiles';
import { sha256Hex as sha256 } from '../core/text/bytes';
import { selfLauncher } from './commandHooks';

export interface SetupOptions {
  remove?: boolean | undefined;
  dryRun?: boolean | undefined;
  yes?: boolean | undefined;
  project?: string | undefined;
  /** The agent's home folder, where the agent would not find it from the environment. */
  home?: string | undefined;
}

/** The lines that differ, between the lines both texts start and end with: `-` before, `+` after. */
export function lineDiff(before: string, after: string): string {
  const a = before.split('\n');
  const b = after.split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const context = (lines: string[]) => lines.map((l) => `  ${l}`);
  return [
    ...context(a.slice(Math.max(0, head - 2), head)),
    ...a.slice(head, a.length - tail).map((l) => `- ${l}`),
    ...b.slice(head, b.length - tail).map((l) => `+ ${l}`),
    ...context(a.slice(a.length - tail, Math.min(a.length, a.length - tail + 2))),
  ].join('\n');
}

function describe(change: FileChange): string {
  if (change.after === undefined) return `${change.path}: removed (it held only what setup wrote)`;
  if (change.before === undefined) return `${change.path}: a new file\n${lineDiff('', change.after)}`;
  return `${change.path}: changed\n${lineDiff(change.before, change.after)}`;
}

async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

/** Returns the exit code; `say` prints to stdout, `warn` to stderr. */
export async function setup(
  agent: string | undefined,
  options: SetupOptions,
  say: (text: string) => void,
  warn: (text: string) => void,
): Promise<number> {
  if (!agent || !SETUP_AGENTS.includes(agent as SetupAgent)) {
    warn(
      `retained: setup takes the agent: ${SETUP_AGENTS.join(' or ')}${agent ? ` (got ${JSON.stringify(agent)})` : ''}`,
    );
    return 2;
  }
  const places = {
    project: resolve(options.project ?? process.cwd()),
    home: resolve(options.home ?? agentHome(agent as SetupAgent, homedir(), process.env)),
  };
  let changes: FileChange[];
  try {
    changes = setupChanges(agent as SetupAgent, places, selfLauncher(), read, { remove: options.remove, sha256 });
  } catch (err) {
    warn(`retained: ${(err as Error).message}`);
    return 1;
  }
  if (changes.length === 0) {
    say(options.remove ? `${agent}: nothing of Retained Outputs to remove.` : `${agent}: set up already.`);
    return 0;
  }
  say(changes.map(describe).join('\n\n'));
  if (options.dryRun) return 0;
  if (!options.yes) {
    if (!process.stdin.isTTY) {
      warn('retained: pass --yes to write this (or --dry-run to only show it).');
      return 2;
    }
    if (!(await confirm(`Write ${changes.length === 1 ? 'this change' : `these ${changes.length} changes`}? [y/N] `)))
      return 1;
  }
  try {
    // Under the lock the files are read again. Asked first, what is written is what was shown, or
    // nothing; with --yes, what another writer changed meanwhile is kept, and the change shown again.
    const now = () =>
      setupChanges(agent as SetupAgent, places, selfLauncher(), read, { remove: options.remove, sha256 });
    const folder = agent === 'claude-code' ? places.project : places.home;
    const done = applyChanges(folder, [places.home, places.project], changes, now, options.yes);
    if (done.written && JSON.stringify(done.changes) !== JSON.stringify(changes))
      say(`They changed meanwhile; written instead:\n${done.changes.map(describe).join('\n\n')}`);
    if (!done.written) {
      warn(
        'retained: the files changed since they were shown (another setup, or an edit): nothing written; run it again.',
      );
      return 1;
    }
  } catch (err) {
    warn(`retained: could not write the set-up: ${(err as Error).message}`);
    return 1;
  }
  say(
    options.remove
      ? `${agent}: Retained Outputs removed.`
      : `${agent}: set up. Start a new session for it to take effect.`,
  );
  return 0;
}
