/**
 * Writing what setup computes (setup.ts), for `retained setup` and VS Code's Set Up and
 * Remove alike: each file read with a size cap, written whole (a temp file renamed into place,
 * through a link to where it points, keeping its mode), under a lock in the folder, and only when
 * the files are still as they were shown.
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
import { dirname, join, resolve } from 'node:path';
import { CONFIG_MAX_BYTES, type FileChange } from '../../../shared/setupAnswer';

/** A configuration file's text, or undefined when it is not there. */
export function readConfig(path: string): string | undefined {
  let size: number;
  try {
    size = statSync(path).size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  if (size > CONFIG_MAX_BYTES)
    throw new Error(
      `${path} is ${size} bytes: setup edits files of at most ${CONFIG_MAX_BYTES} bytes; edit it by hand`,
    );
  return readFileSync(path, 'utf8');
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

/** Writes one change; `keep` names the folders never removed (the agent's home, the project). */
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

/**
 * Writes the changes `shown`, under the lock of `folder`, after computing them again from the
 * files as they are now: when they differ (another setup, an edit meanwhile), nothing is written
 * and the new changes are returned; with `anyway`, the new ones are written and returned.
 */
export function applyChanges(
  folder: string,
  keep: readonly string[],
  shown: readonly FileChange[],
  now: () => FileChange[],
  anyway: boolean | undefined = false,
): { written: boolean; changes: FileChange[] } {
  return locked(folder, () => {
    const changes = now();
    if (JSON.stringify(changes) !== JSON.stringify(shown) && !anyway) return { written: false, changes };
    for (const change of changes) write(change, keep);
    return { written: true, changes };
  });
}
