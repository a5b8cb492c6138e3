/**
 * Which runs a clean-up removes, decided from the store's use alone (a pure function, so what a
 * dry run shows is what a real one does). Whole runs only: a value is never removed under a
 * transcript that still points at it, or replay would put the full text back into the model's
 * context. Oldest first: every run not written for `maxAgeDays`, then more while the store is
 * over `quotaBytes`. Never a pinned run, never one written in the last hour.
 */
import type { CleanupPolicy } from '../../../../shared/settings';
import type { RunUse, StoreUse } from '../store/runStore';

const RECENT_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface PlannedRemoval {
  runId: string;
  reason: 'age' | 'quota';
  lastWriteMs: number;
  bytes: number;
}

export interface CleanupPlan {
  removals: PlannedRemoval[];
  freedBytes: number;
  spared: { pinned: number; recent: number };
}

export function planCleanup(
  use: StoreUse,
  policy: Pick<CleanupPolicy, 'quotaBytes' | 'maxAgeDays'>,
  now: number,
): CleanupPlan {
  const runs = [...use.runs.values()];
  const spared = { pinned: 0, recent: 0 };
  const candidates: RunUse[] = [];
  for (const run of runs) {
    if (run.pinned) spared.pinned++;
    else if (now - run.lastWriteMs < RECENT_MS) spared.recent++;
    else candidates.push(run);
  }
  candidates.sort((a, b) => a.lastWriteMs - b.lastWriteMs || a.runId.localeCompare(b.runId));

  // Links left to each inode as runs go; its bytes are freed with the last one.
  const links = new Map<string, number>();
  for (const run of runs) for (const file of run.files) links.set(file.inode, file.links);
  const freedBy = (run: RunUse): number => {
    let bytes = 0;
    for (const file of run.files) {
      const left = (links.get(file.inode) ?? 1) - 1;
      links.set(file.inode, left);
      if (left === 0) bytes += file.size;
    }
    return bytes;
  };

  const removals: PlannedRemoval[] = [];
  let size = use.bytes;
  const remove = (run: RunUse, reason: PlannedRemoval['reason']) => {
    const bytes = freedBy(run);
    size -= bytes;
    removals.push({ runId: run.runId, reason, lastWriteMs: run.lastWriteMs, bytes });
  };
  const old = policy.maxAgeDays > 0 ? now - policy.maxAgeDays * DAY_MS : -Infinity;
  let next = 0;
  while (next < candidates.length && candidates[next]!.lastWriteMs < old) remove(candidates[next++]!, 'age');
  while (policy.quotaBytes > 0 && size > policy.quotaBytes && next < candidates.length)
    remove(candidates[next++]!, 'quota');
  return { removals, freedBytes: use.bytes - size, spared };
}
