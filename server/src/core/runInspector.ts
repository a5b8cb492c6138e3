/**
 * Serves the inspector: pages of rows (an event beside what the model got for it) and search,
 * from one parsed copy of a run's transcript. The copy is kept for the two runs inspected last;
 * when the run changes, only the lines appended since are read, so paging a 10,000-event run
 * parses it once, and following a live one reads just what the agent adds.
 */
import { promises as fs } from 'node:fs';
import type { ArchiveNeed } from './historyPolicy';
import type { HistoryPolicy } from '../../../shared/settings';
import { buildOutline, CELL_MAX_BYTES, fullCell, firstRequests, modelView, type InspectRow, type ModelView, type Outline } from './inspection';
import { readLines } from './lineReader';
import { SEARCH_BUDGET_MS } from './peek';
import { InvalidInput } from '../../../shared/check';
import { searchRun, type RunSearchOptions, type RunSearchResult } from './runSearch';
import { lineMatch, searchLines } from './search';
import type { Store } from './store';
import { isImported, VIEWS, type View } from './replay';
import { readEventsFrom, type TranscriptEvent } from './transcript';

export interface InspectParams {
  runId: string;
  /** Which request's view of the history (1-based); default and past the end: the next request. */
  request?: number;
  /** Apply the configured history policy to the model's view. */
  policy?: boolean;
  /** For an imported run: `sent` (as the agent sent it, the default) or `retained` (with Retained Outputs). */
  view?: View;
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

interface Entry {
  events: TranscriptEvent[];
  skipped: number;
  existingValues: Set<string>;
  /** Where the next read of the transcript starts, its line number, and the file read. */
  end: number;
  lines: number;
  inode: number;
  firstRequests: number[];
  outlines: Map<string, Outline>;
  views: Map<string, ModelView>;
}

function whole(value: unknown, field: string, min: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) throw new InvalidInput(`${field} must be a whole number of at least ${min}`);
  return value;
}

export class RunInspector {
  private readonly entries = new Map<string, Promise<Entry>>();
  /** Runs changed since their copy was read: caught up on their next use. */
  private readonly stale = new Set<string>();

  constructor(
    private readonly store: Store,
    /** Writes values a policy view refers to, before the view is shown. */
    private readonly archive: (runId: string, needs: ArchiveNeed[]) => Promise<void>,
    private readonly policy: () => HistoryPolicy,
  ) {}

  private async valueIds(runId: string): Promise<Set<string>> {
    return new Set((await this.store.listValueFiles(runId)).map((v) => v.valueId));
  }

  /** Notes that a run changed: its copy catches up before it is used again. */
  invalidate(runId: string): void {
    if (this.entries.has(runId)) this.stale.add(runId);
  }

  private entry(runId: string): Promise<Entry> {
    let entry = this.entries.get(runId);
    if (entry && this.stale.delete(runId)) entry = entry.then((e) => this.catchUp(runId, e));
    else if (!entry) entry = this.catchUp(runId);
    entry.catch(() => this.entries.get(runId) === entry && this.entries.delete(runId));
    // Most recently used last; keep two runs: big transcripts are big in memory too.
    this.entries.delete(runId);
    this.entries.set(runId, entry);
    while (this.entries.size > 2) this.entries.delete(this.entries.keys().next().value!);
    return entry;
  }

  /** Reads what was appended since `entry` (or the whole run), and drops what depended on the old events. */
  private async catchUp(runId: string, entry?: Entry): Promise<Entry> {
    const path = this.store.transcriptPath(runId);
    const stat = await fs.stat(path).catch(() => undefined);
    // A transcript that shrank or was replaced (a deleted and recreated run) is read from the start.
    const fresh = !entry || !stat || stat.ino !== entry.inode || stat.size < entry.end;
    const base: Entry = fresh
      ? { events: [], skipped: 0, existingValues: new Set(), end: 0, lines: 0, inode: stat?.ino ?? 0, firstRequests: [], outlines: new Map(), views: new Map() }
      : entry!;
    const read = await readEventsFrom(this.store.root, path, base.end, base.lines);
    const events = read.events.length > 0 ? [...base.events, ...read.events] : base.events;
    return {
      events,
      skipped: base.skipped + read.skipped.length,
      existingValues: await this.valueIds(runId),
      end: read.end,
      lines: base.lines + read.lines,
      inode: base.inode,
      firstRequests: events === base.events ? base.firstRequests : firstRequests(events),
      outlines: new Map(),
      views: new Map(),
    };
  }

  async inspect(runId: string, params: Omit<InspectParams, 'runId'>): Promise<InspectResult> {
    const asked = whole(params.request, 'request', 1);
    const from = whole(params.from, 'from', 0) ?? 0;
    const limit = whole(params.limit, 'limit', 0) ?? 0;
    if (limit > INSPECT_PAGE_MAX) throw new InvalidInput(`limit must be at most ${INSPECT_PAGE_MAX}`);
    if (params.policy !== undefined && typeof params.policy !== 'boolean') throw new InvalidInput('policy must be a boolean');
    if (params.view !== undefined && !VIEWS.includes(params.view)) throw new InvalidInput(`view must be one of ${VIEWS.join(', ')}`);
    const view = params.view ?? 'sent';
    let policy = params.policy ? this.policy() : undefined;

    const entry = await this.entry(runId);
    const { events, existingValues, skipped } = entry;
    // The history policy is Retained Outputs' own: an imported run's agent never applied it.
    if (policy && view === 'sent' && isImported(events)) policy = undefined;
    const policyKey = `${view}:${policy ? JSON.stringify(policy) : 'none'}`;
    let outline = entry.outlines.get(policyKey);
    if (!outline) {
      outline = buildOutline(events, existingValues, { view, policy });
      entry.outlines.set(policyKey, outline);
    }
    const request = Math.min(asked ?? outline.requests.length, outline.requests.length);
    const rows: InspectRow[] = [];
    if (limit > 0 && from < events.length) {
      const viewKey = `${policyKey}@${request}`;
      let cells = entry.views.get(viewKey);
      if (!cells) {
        cells = modelView(events, existingValues, request, { view, policy });
        if (cells.archive.length > 0) {
          await this.archive(runId, cells.archive);
          for (const need of cells.archive) existingValues.add(need.valueId);
        }
        entry.views.set(viewKey, cells);
        while (entry.views.size > 4) entry.views.delete(entry.views.keys().next().value!);
      }
      for (let index = from; index < Math.min(events.length, from + limit); index++) {
        const event = events[index]!;
        // A result kept in its value is shown from the value's first bytes.
        const head = event.type === 'tool_call_finished' && event.result === undefined && event.valueId && existingValues.has(event.valueId) ? await this.store.readHead(runId, event.valueId, CELL_MAX_BYTES).catch(() => undefined) : undefined;
        rows.push({ index, firstRequest: entry.firstRequests[index]!, full: fullCell(event, existingValues, head), model: cells.cells[index]! });
      }
    }
    return { outline, request, rows, skipped };
  }

  async search(runId: string, query: unknown, options: RunSearchOptions): Promise<RunSearchResult> {
    if (typeof query !== 'string') throw new InvalidInput('query must be a string');
    const { events } = await this.entry(runId);
    const match = lineMatch({ query, ...options });
    const deadline = Date.now() + SEARCH_BUDGET_MS;
    return searchRun(events, query, options, async (valueId, keep) => {
      const path = this.store.valuePath(runId, valueId);
      const index = await this.store.lineIndex(runId, valueId);
      const found = await searchLines(path, index, match, 1, index.lines, keep, deadline);
      const lines: { line: number; text: string }[] = [];
      for (const line of found.lines) {
        await readLines(path, index, line, 240, (read) => (lines.push({ line: read.number, text: read.text }), false));
      }
      return { lines, total: found.total };
    });
  }
}
