/**
 * What the store holds on disk, walked once: every file and folder counted once per inode (so
 * values that share their bytes, hard links, count once), as `du -sb` counts; and, per run,
 * its files, when it was last written and whether it is kept from clean-ups.
 */
import { lstatSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as yieldNow } from 'node:timers/promises';
import { isPin, RUN_DATA, RUNS_DIR, runFile, WITHHELD_DIR } from './layout';
import type { FileUse, StoreUse } from './runStore';
import { namesIn } from './safeFs';

/** A run's own names under runs/: its transcript, meta, pin marker and values folder. */
/** Entries looked at between turns of the event loop. */
const SLICE = 512;

export async function measureStore(root: string): Promise<StoreUse> {
  const use: StoreUse = { bytes: 0, runs: new Map(), withheld: 0 };
  const counted = new Set<string>();
  let seen = 0;
  const count = async (stat: Stats): Promise<FileUse> => {
    const inode = `${stat.dev}:${stat.ino}`;
    if (!counted.has(inode)) {
      counted.add(inode);
      use.bytes += stat.size;
    }
    if (++seen % SLICE === 0) await yieldNow();
    // A folder goes with its run whatever its link count says (it counts its subfolders).
    return { inode, size: stat.size, links: stat.isDirectory() ? 1 : stat.nlink };
  };
  /** Counts `path` and (for a real folder, never a link) all below it; returns its files. */
  const walk = async (path: string): Promise<{ files: FileUse[]; newest: number }> => {
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (!stat) return { files: [], newest: 0 };
    const self = await count(stat);
    if (!stat.isDirectory()) return { files: [self], newest: stat.mtimeMs };
    const out = { files: [self], newest: stat.mtimeMs };
    for (const name of namesIn(path)) {
      const below = await walk(join(path, name));
      out.files.push(...below.files);
      out.newest = Math.max(out.newest, below.newest);
    }
    return out;
  };

  const rootStat = lstatSync(root, { throwIfNoEntry: false });
  if (!rootStat?.isDirectory()) return use;
  await count(rootStat);
  for (const name of namesIn(root)) {
    const path = join(root, name);
    if (name === RUNS_DIR) continue;
    const { files } = await walk(path);
    if (name === WITHHELD_DIR) use.withheld = files.length - 1;
  }
  const runsDir = join(root, RUNS_DIR);
  const runsStat = lstatSync(runsDir, { throwIfNoEntry: false });
  if (!runsStat?.isDirectory()) return use;
  await count(runsStat);
  for (const name of namesIn(runsDir)) {
    const { files, newest } = await walk(join(runsDir, name));
    const runId = RUN_DATA.exec(name)?.[1];
    if (!runId) continue; // a temp file or something foreign: counted, owned by no run
    const run = use.runs.get(runId) ?? { runId, lastWriteMs: 0, pinned: false, files: [] };
    run.files.push(...files);
    // The pin marker's own time says nothing of the run's writes.
    if (isPin(name)) run.pinned = true;
    else run.lastWriteMs = Math.max(run.lastWriteMs, newest);
    use.runs.set(runId, run);
  }
  return use;
}

/**
 * A run's last write and whether it is pinned, as they are now (read again under its lock by a
 * clean-up, so a run written to or pinned since the plan was made is not removed).
 */
export async function runNow(root: string, runId: string): Promise<{ lastWriteMs: number; pinned: boolean }> {
  const runsDir = join(root, RUNS_DIR);
  let lastWriteMs = 0;
  const newest = async (path: string): Promise<void> => {
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (!stat) return;
    lastWriteMs = Math.max(lastWriteMs, stat.mtimeMs);
    if (!stat.isDirectory()) return;
    let seen = 0;
    for (const name of namesIn(path)) {
      if (++seen % SLICE === 0) await yieldNow();
      await newest(join(path, name));
    }
  };
  for (const kind of ['transcript', 'meta', 'values'] as const) await newest(runFile(runsDir, runId, kind));
  return {
    lastWriteMs,
    pinned: lstatSync(runFile(runsDir, runId, 'pin'), { throwIfNoEntry: false })?.isFile() === true,
  };
}
