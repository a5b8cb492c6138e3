/**
 * Serves the inspector: pages of rows (an event beside what the model got for it) and search,
 * from one parsed copy of a run's transcript. The copy is kept for the two runs inspected last
 * and dropped when the run changes, so paging a 10,000-event run parses it once.
 */
import type { ArchiveNeed, HistoryPolicy } from './historyPolicy';
import { buildOutline, fullCell, firstRequests, modelView, type InspectRow, type ModelView, type Outline } from './inspection';
import { searchRun, type RunSearchOptions, type RunSearchResult } from './runSearch';
import type { TranscriptEvent } from './transcript';

export interface InspectParams {
  runId: string;
  /** Which request's view of the history (1-based); default and past the end: the next request. */
  request?: number;
  /** Apply the configured history policy to the model's view. */
  policy?: boolean;
  /** First row (event index) and how many rows; without limit, only the outline comes back. */
  from?: number;
  limit?: number;
}

export interface InspectResult {
  outline: Outline;
  /** The request the rows show, after clamping. */
  request: number;
  rows: InspectRow[];
  /** Transcript lines that could not be read (a torn last line). */
  skipped: number;
}

export const INSPECT_PAGE_MAX = 500;

export interface LoadedRun {
  events: TranscriptEvent[];
  skipped: number;
  existingValues: Set<string>;
}

interface Entry {
  run: LoadedRun;
  firstRequests: number[];
  outlines: Map<string, Outline>;
  views: Map<string, ModelView>;
}

export class InspectError extends Error {}

function whole(value: unknown, field: string, min: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) throw new InspectError(`${field} must be a whole number of at least ${min}`);
  return value;
}

export class RunInspector {
  private readonly entries = new Map<string, Promise<Entry>>();

  constructor(
    private readonly load: (runId: string) => Promise<LoadedRun>,
    /** Writes values a policy view refers to, before the view is shown. */
    private readonly archive: (runId: string, needs: ArchiveNeed[]) => Promise<void>,
    private readonly policy: () => HistoryPolicy,
  ) {}

  /** Forgets a run's parsed copy: it changed. */
  invalidate(runId: string): void {
    this.entries.delete(runId);
  }

  private entry(runId: string): Promise<Entry> {
    let entry = this.entries.get(runId);
    if (!entry) {
      entry = this.load(runId).then((run) => ({ run, firstRequests: firstRequests(run.events), outlines: new Map(), views: new Map() }));
      entry.catch(() => this.entries.delete(runId));
      this.entries.set(runId, entry);
      // Keep the two most recent runs: big transcripts are big in memory too.
      while (this.entries.size > 2) this.entries.delete(this.entries.keys().next().value!);
    }
    return entry;
  }

  async inspect(runId: string, params: Omit<InspectParams, 'runId'>): Promise<InspectResult> {
    const asked = whole(params.request, 'request', 1);
    const from = whole(params.from, 'from', 0) ?? 0;
    const limit = whole(params.limit, 'limit', 0) ?? 0;
    if (limit > INSPECT_PAGE_MAX) throw new InspectError(`limit must be at most ${INSPECT_PAGE_MAX}`);
    if (params.policy !== undefined && typeof params.policy !== 'boolean') throw new InspectError('policy must be a boolean');
    const policy = params.policy ? this.policy() : undefined;
    const policyKey = policy ? JSON.stringify(policy) : 'none';

    const entry = await this.entry(runId);
    const { events, existingValues, skipped } = entry.run;
    let outline = entry.outlines.get(policyKey);
    if (!outline) {
      outline = buildOutline(events, existingValues, policy);
      entry.outlines.set(policyKey, outline);
    }
    const request = Math.min(asked ?? outline.requests.length, outline.requests.length);
    const rows: InspectRow[] = [];
    if (limit > 0 && from < events.length) {
      const viewKey = `${policyKey}@${request}`;
      let view = entry.views.get(viewKey);
      if (!view) {
        view = modelView(events, existingValues, request, policy);
        if (view.archive.length > 0) {
          await this.archive(runId, view.archive);
          for (const need of view.archive) existingValues.add(need.valueId);
        }
        entry.views.set(viewKey, view);
        while (entry.views.size > 4) entry.views.delete(entry.views.keys().next().value!);
      }
      for (let index = from; index < Math.min(events.length, from + limit); index++) {
        rows.push({ index, firstRequest: entry.firstRequests[index]!, full: fullCell(events[index]!, existingValues), model: view.cells[index]! });
      }
    }
    return { outline, request, rows, skipped };
  }

  async search(runId: string, query: unknown, options: RunSearchOptions): Promise<RunSearchResult> {
    if (typeof query !== 'string') throw new InspectError('query must be a string');
    const { run } = await this.entry(runId);
    return searchRun(run.events, query, options);
  }
}
