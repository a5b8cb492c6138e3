/**
 * Inspection: pages of rows (an event beside what the model got for it) and search,
 * from one parsed copy of a run's transcript. The copy is kept for the two runs inspected last;
 * when the run changes, only the lines appended since are read, so paging a 10,000-event run
 * parses it once, and following a live one reads just what the agent adds.
 */
import { promises as fs } from 'node:fs';
import { check } from '../../../../shared/check';
import type { TranscriptEvent } from '../../../../shared/events';
import {
  InspectParams,
  type InspectResult,
  type InspectRow,
  type Outline,
  type RunSearchResult,
  SearchRunParams,
} from '../../../../shared/protocol';
import type { Context } from '../context';
import { isImported } from '../history/replay';
import { readLines } from '../store/lineReader';
import { readEventsFrom } from '../store/transcript';
import { lineMatch, searchLines } from '../values/lineSearch';
import { SEARCH_BUDGET_MS } from '../values/peek';
import { buildOutline, CELL_MAX_BYTES, firstModelCalls, fullCell, type ModelView, modelView } from './rows';
import { searchRun } from './runSearch';

/** The most hits one run search answers. */
const SEARCH_HITS_MAX = 1000;

interface Entry {
  events: TranscriptEvent[];
  skipped: number;
  existingValues: Set<string>;
  /** Where the next read of the transcript starts, its line number, and the file read. */
  end: number;
  lines: number;
  inode: number;
  firstModelCalls: number[];
  outlines: Map<string, Outline>;
  views: Map<string, ModelView>;
}

export class Inspection {
  private readonly entries = new Map<string, Promise<Entry>>();
  /** Runs changed since their copy was read: caught up on their next use. */
  private readonly stale = new Set<string>();

  constructor(private readonly ctx: Context) {}

  private get store() {
    return this.ctx.store;
  }

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
      ? {
          events: [],
          skipped: 0,
          existingValues: new Set(),
          end: 0,
          lines: 0,
          inode: stat?.ino ?? 0,
          firstModelCalls: [],
          outlines: new Map(),
          views: new Map(),
        }
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
      firstModelCalls: events === base.events ? base.firstModelCalls : firstModelCalls(events),
      outlines: new Map(),
      views: new Map(),
    };
  }

  /** The outline of a run and a page of its rows: each event beside what the model got. */
  async inspect(input: InspectParams): Promise<InspectResult> {
    const params = check(InspectParams, input);
    const runId = await this.ctx.runs.existing(params.runId);
    const { modelCall: asked, from = 0, limit = 0 } = params;
    const view = params.view ?? 'sent';
    let policy = params.policy ? this.ctx.settings().history : undefined;

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
    const modelCall = Math.min(asked ?? outline.modelCalls.length, outline.modelCalls.length);
    const rows: InspectRow[] = [];
    let unwritten = 0;
    if (limit > 0 && from < events.length) {
      const viewKey = `${policyKey}@${modelCall}`;
      let cells = entry.views.get(viewKey);
      if (!cells) {
        // A view writes nothing: the values its references name are written when a replay is sent.
        cells = modelView(events, existingValues, modelCall, { view, policy });
        entry.views.set(viewKey, cells);
        while (entry.views.size > 4) entry.views.delete(entry.views.keys().next().value!);
      }
      unwritten = cells.archive.length;
      for (let index = from; index < Math.min(events.length, from + limit); index++) {
        const event = events[index]!;
        // A result kept in its value is shown from the value's first bytes.
        const head =
          event.type === 'tool_call_finished' &&
          event.result === undefined &&
          event.valueId &&
          existingValues.has(event.valueId)
            ? await this.store.readHead(runId, event.valueId, CELL_MAX_BYTES).catch(() => undefined)
            : undefined;
        rows.push({
          index,
          firstModelCall: entry.firstModelCalls[index]!,
          full: fullCell(event, existingValues, head),
          model: cells.cells[index]!,
        });
      }
    }
    return { outline, modelCall, rows, skipped, unwritten };
  }

  /** Finds text anywhere in a run: messages, call arguments and full results. */
  async search(input: SearchRunParams): Promise<RunSearchResult> {
    const { runId: given, query, ...options } = check(SearchRunParams, input);
    const runId = await this.ctx.runs.existing(given);
    const { events } = await this.entry(runId);
    const match = lineMatch({ query, ...options });
    const deadline = Date.now() + SEARCH_BUDGET_MS;
    return searchRun(events, query, { ...options, limit: SEARCH_HITS_MAX }, async (valueId, keep) => {
      const path = this.store.valuePath(runId, valueId);
      const index = await this.store.lineIndex(runId, valueId);
      const found = await searchLines(path, index, match, 1, index.lines, keep, deadline);
      const lines: { line: number; text: string }[] = [];
      for (const line of found.lines) {
        await readLines(path, index, line, 240, (read) => {
          lines.push({ line: read.number, text: read.text });
          return false;
        });
      }
      return { lines, total: found.total };
    });
  }
}
