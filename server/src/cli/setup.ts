/**
 * `retained setup <agent> [--remove]`: writes an agent's own configuration for Retained Outputs
 * (shared/agentSetup.ts says what), after showing exactly what changes. On a terminal it asks
 * first; from a script it writes only with `--yes`; `--dry-run` only shows. Each file is written
 * whole or not at all (a temp file renamed into place). The configuration names this command
 * line where it is now: run it from a path that outlives an upgrade (VS Code's Set Up uses the
 * stable copy in the extension's storage; an npm install is stable too).
 */
import {
  chmodSync,
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { type FileChange, SETUP_AGENTS, type SetupAgent, setupChanges } from '../../../shared/agentSetup';
import { agentHome } from '../../../shared/agents';
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

/** The largest configuration file setup edits: agents' settings are a few KiB. */
const FILE_MAX_BYTES = 4 << 20;

function read(path: string): string | undefined {
  let size: number;
  try {
    size = statSync(path).size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  if (size > FILE_MAX_BYTES)
    throw new Error(`${path} is ${size} bytes: setup edits files of at most ${FILE_MAX_BYTES} bytes; edit it by hand`);
  return readFileSync(path, 'utf8');
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

/** Where a write of `path` goes: through a link (even one whose target is not there yet) to where it points. */
function targetOf(path: string): string {
  let target = path;
  for (let hops = 0; hops < 40; hops++) {
    const stat = lstatSync(target, { throwIfNoEntry: false });
    if (!stat?.isSymbolicLink()) return target;
    target = resolve(dirname(target), readlinkSync(target));
  }
  throw new Error(`${path}: too many links`);
}

/** Writes a file whole (a temp file renamed into place), through a link to where it points, keeping its mode. */
function write(change: FileChange, keep: readonly string[]): void {
  const target = targetOf(change.path);
  if (change.after === undefined) {
    rmSync(change.path, { force: true });
    // The folder setup made for its own file (plugins/, hooks/, .claude/) goes with it when left
    // empty; the agent's home and the project stay.
    const folder = dirname(change.path);
    if (!keep.includes(folder))
      try {
        rmdirSync(folder);
      } catch {
        // not empty
      }
    return;
  }
  mkdirSync(dirname(target), { recursive: true });
  const mode = change.executable ? 0o755 : existsSync(target) ? statSync(target).mode & 0o7777 : 0o644;
  const tmp = `${target}.retained-${process.pid}`;
  try {
    writeFileSync(tmp, change.after, { mode });
    if (change.executable) chmodSync(tmp, mode); // whatever the umask
    renameSync(tmp, target);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/** How long setup waits for another setup writing the same files. */
const LOCK_WAIT_MS = 10_000;

/**
 * Runs `work` holding the folder's setup lock (made with O_EXCL; one older than the wait is a
 * dead setup's), so two setups at once never both read the old text and lose one write.
 */
function locked<T>(folder: string, work: () => T): T {
  const lock = join(folder, '.retained-setup.lock');
  mkdirSync(folder, { recursive: true });
  const until = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      closeSync(openSync(lock, 'wx'));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > LOCK_WAIT_MS) rmSync(lock, { force: true });
      else if (Date.now() > until) throw new Error(`${folder} is being set up by another setup (${lock})`);
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
    }
  }
  try {
    return work();
  } finally {
    rmSync(lock, { force: true });
  }
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
    const moved = locked(agent === 'claude-code' ? places.project : places.home, () => {
      const now = setupChanges(agent as SetupAgent, places, selfLauncher(), read, { remove: options.remove, sha256 });
      const same = JSON.stringify(now) === JSON.stringify(changes);
      if (!same && !options.yes) return true;
      if (!same) say(`They changed meanwhile; written instead:\n${now.map(describe).join('\n\n')}`);
      for (const change of now) write(change, [places.home, places.project]);
      return false;
    });
    if (moved) {
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
