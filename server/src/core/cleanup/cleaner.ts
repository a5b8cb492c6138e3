/**
 * The store over months: its size against the quota, pins, and the clean-up that removes whole
 * runs (see plan.ts for which), each removal recorded in the audit log.
 */
import { check } from '../../../../shared/check';
import { InvalidInput } from '../../../../shared/invalidInput';
import { CleanupParams, type CleanupResult, PinParams } from '../../../../shared/protocol';
import type { Context } from '../context';
import type { StoreUse } from '../store/runStore';
import { planCleanup } from './plan';

/** How long a measure of the store answers `retained/status` before the store is walked again. */
const USE_TTL_MS = 2000;

export class Cleaner {
  private cached: { at: number; use: Promise<StoreUse> } | undefined;

  constructor(private readonly ctx: Context) {}

  /** The store's use, walked at most every 2 s (the status bar asks after every change). */
  use(fresh = false): Promise<StoreUse> {
    if (fresh || !this.cached || Date.now() - this.cached.at > USE_TTL_MS) {
      this.cached = { at: Date.now(), use: this.ctx.store.measure() };
      this.cached.use.catch(() => {
        this.cached = undefined;
      });
    }
    return this.cached.use;
  }

  async pin(input: PinParams): Promise<void> {
    const { runId: given, pinned } = check(PinParams, input);
    const runId = await this.ctx.runs.existing(given);
    await this.ctx.writing(runId, () => this.ctx.store.setPinned(runId, pinned));
  }

  async cleanup(input: CleanupParams = {}, now = Date.now()): Promise<CleanupResult> {
    const { dryRun = false } = check(CleanupParams, input);
    const { store } = this.ctx;
    const refused = dryRun ? undefined : await store.whyNoRemoval();
    if (refused) throw new InvalidInput(refused);
    const policy = this.ctx.settings().cleanup;
    const before = await this.use(true);
    const plan = planCleanup(before, policy, now);
    const names = new Map(
      await Promise.all(
        plan.removals.map(
          async (r) => [r.runId, (await this.ctx.store.readRunMeta(r.runId))?.name ?? r.runId] as const,
        ),
      ),
    );
    let removed = plan.removals.map((r) => ({
      runId: r.runId,
      name: names.get(r.runId) ?? r.runId,
      reason: r.reason,
      lastWrite: new Date(r.lastWriteMs).toISOString(),
      bytes: r.bytes,
    }));
    const spared = { ...plan.spared };
    if (!dryRun) {
      const gone = new Set<string>();
      for (const [i, run] of removed.entries()) {
        const planned = plan.removals[i]!;
        // Compare and remove, under the run's lock: a run written to or pinned since the plan stays.
        const went = await this.ctx.writing(run.runId, () =>
          this.ctx.runs.deleteIf(run.runId, async () => {
            const now = await store.runNow(run.runId);
            if (now.pinned) spared.pinned++;
            else if (now.lastWriteMs > planned.lastWriteMs) spared.recent++;
            else {
              // The audit line first: a removal is never unaccounted for, even if the process dies in it.
              await this.ctx.store.audit({ event: 'removed', runId: run.runId, why: run.reason, bytes: run.bytes });
              return true;
            }
            return false;
          }),
        );
        if (went) gone.add(run.runId);
      }
      removed = removed.filter((r) => gone.has(r.runId));
      await store.collectGarbage();
    }
    const after = dryRun ? undefined : await this.use(true);
    return {
      dryRun,
      removed,
      // What the runs held; the store after also holds the audit lines that record them.
      freedBytes: dryRun ? plan.freedBytes : removed.reduce((n, r) => n + r.bytes, 0),
      storeBytesBefore: before.bytes,
      storeBytesAfter: after ? after.bytes : before.bytes - plan.freedBytes,
      quotaBytes: policy.quotaBytes,
      maxAgeDays: policy.maxAgeDays,
      spared,
    };
  }
}
