/**
 * Runs: their identity (an id as given names the run it sanitizes to, once, where it enters),
 * their names, summaries and deletion. Summaries are cached per run until it changes.
 */

import { isSanitizedId, sanitizeId } from '../../../shared/ids';
import { InvalidInput } from '../../../shared/invalidInput';
import { offersPeek } from '../../../shared/peekTool';
import type { RunSummary } from '../../../shared/protocol';
import type { RunStore } from './store/runStore';

export class Runs {
  /** Whether each run offers peek_value, read once from its first event. */
  private readonly offersPeekCache = new Map<string, boolean>();
  private readonly summaries = new Map<string, Promise<RunSummary>>();
  /** Runs whose meta (their name) this process has made sure of. */
  private readonly named = new Set<string>();

  constructor(private readonly store: RunStore) {}

  /**
   * The run an id names: an id as `retained/runs` lists it names that run; any other id
   * (`feature/x`) names the run it sanitizes to.
   */
  async key(given: string): Promise<string> {
    if (isSanitizedId(given) && (await this.store.runExists(given))) return given;
    return sanitizeId(given);
  }

  /** The run an id names, for a write: the first write records the id as given, its display name. */
  async writable(given: string, startedAt?: string): Promise<string> {
    const runId = await this.key(given);
    if (!this.named.has(runId)) {
      // The name is a nicety: a store that cannot take it now (no descriptor, no room) is tried again later.
      const named = await this.store.ensureRunMeta(runId, given, startedAt).then(
        () => true,
        () => false,
      );
      if (named) this.named.add(runId);
    }
    return runId;
  }

  /** The run exists, or an InvalidInput naming it. */
  async existing(given: string): Promise<string> {
    const runId = await this.key(given);
    if (!(await this.store.runExists(runId)))
      throw new InvalidInput(`no run ${JSON.stringify(given)} in the store: it was deleted, or never recorded`);
    return runId;
  }

  /** Whether the run's agent has peek_value (a run without run_started is taken to). */
  async offersPeek(runId: string): Promise<boolean> {
    const cached = this.offersPeekCache.get(runId);
    if (cached !== undefined) return cached;
    const first = await this.store.readFirstEvent(runId);
    const offers = offersPeek(first ? [first] : []);
    // A run that has begun is settled: run_started, when there is one, comes first.
    if (first) this.offersPeekCache.set(runId, offers);
    return offers;
  }

  /** The summary with the run's title, where its first event gives one (an imported session's first prompt). */
  private async titled(runId: string, summary: Promise<RunSummary>): Promise<RunSummary> {
    const [run, first] = await Promise.all([summary, this.store.readFirstEvent(runId).catch(() => undefined)]);
    const title = first?.type === 'run_started' ? first.source?.title : undefined;
    return title ? { ...run, title } : run;
  }

  /** Summaries of every run (or of `only`), newest first. */
  async list(only?: readonly string[]): Promise<RunSummary[]> {
    const all = await this.store.listRunIds();
    const wanted = only ? new Set(await Promise.all(only.map((id) => this.key(id)))) : undefined;
    const ids = wanted ? all.filter((id) => wanted.has(id)) : all;
    return Promise.all(
      ids.map((id) => {
        let summary = this.summaries.get(id);
        if (!summary) {
          summary = this.titled(id, this.store.summarizeRun(id));
          this.summaries.set(id, summary);
          summary.catch(() => this.summaries.delete(id));
        }
        return summary;
      }),
    );
  }

  /** Drops what is cached about a run: it changed. `rewritten`: its transcript was replaced or begun anew. */
  forget(runId: string, rewritten = false): void {
    this.summaries.delete(runId);
    if (rewritten) {
      this.offersPeekCache.delete(runId);
      this.named.delete(runId);
    }
  }

  /** Deletes a whole run: transcript, values and name. */
  async delete(runId: string): Promise<void> {
    await this.store.deleteRun(runId);
    this.forget(runId, true);
  }

  /** Deletes a whole run if `still` says so under its lock (see Store.deleteRunIf); whether it went. */
  async deleteIf(runId: string, still: () => Promise<boolean>): Promise<boolean> {
    const went = await this.store.deleteRunIf(runId, still);
    if (went) this.forget(runId, true);
    return went;
  }
}
