/**
 * `retained setup <agent> [--remove]`: writes an agent's own configuration for Retained Outputs
 * (shared/agentSetup.ts says what), after showing exactly what changes. On a terminal it asks
 * first; from a script it writes only with `--yes`; `--dry-run` only shows. Each file is written
 * whole or not at all (a temp file renamed into place). The configuration names this command
 * line where it is now: run it from a path that outlives an upgrade (VS Code's Set Up uses the
 * stable copy in the extension's storage; an npm install is stable too).
 */
import {
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import {
  defaultPlaces,
  type FileChange,
  SETUP_AGENTS,
  type SetupAgent,
  setupChanges,
} from '../../../shared/agentSetup';
import { sha256Hex as sha256 } from '../core/text/bytes';
import { selfLauncher } from './commandHooks';

export interface SetupOptions {
  remove?: boolean | undefined;
  dryRun?: boolean | undefined;
  yes?: boolean | undefined;
  project?: string | undefined;
  codexHome?: string | undefined;
  geminiHome?: string | undefined;
  opencodeConfig?: string | undefined;
  qwenHome?: string | undefined;
  copilotHome?: string | undefined;
  clineHome?: string | undefined;
}

/** This command line, as a hook or an MCP server entry starts it. */

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
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

/** Writes a file whole (a temp file renamed into place), through a link to where it points, keeping its mode. */
function write(change: FileChange): void {
  const target = existsSync(change.path) ? realpathSync(change.path) : change.path;
  if (change.after === undefined) return void rmSync(change.path, { force: true });
  mkdirSync(dirname(target), { recursive: true });
  const mode = existsSync(target) ? statSync(target).mode & 0o7777 : 0o644;
  const tmp = `${target}.retained-${process.pid}`;
  writeFileSync(tmp, change.after, { mode });
  renameSync(tmp, target);
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
  const defaults = defaultPlaces(homedir(), process.env);
  const places = {
    project: resolve(options.project ?? process.cwd()),
    codexHome: resolve(options.codexHome ?? defaults.codexHome!),
    geminiHome: resolve(options.geminiHome ?? defaults.geminiHome!),
    opencodeConfig: resolve(options.opencodeConfig ?? defaults.opencodeConfig!),
    qwenHome: resolve(options.qwenHome ?? defaults.qwenHome!),
    copilotHome: resolve(options.copilotHome ?? defaults.copilotHome!),
    clineHome: resolve(options.clineHome ?? defaults.clineHome!),
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
  for (const change of changes) write(change);
  say(
    options.remove
      ? `${agent}: Retained Outputs removed.`
      : `${agent}: set up. Start a new session for it to take effect.`,
  );
  return 0;
}
