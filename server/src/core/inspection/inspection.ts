/**
 * Inspection: pages of rows (an event beside what the model got for it) and search,
 * from one parsed copy of a run's transcript. The copy is kept for the two runs inspected last;
 * when the run changes, only the lines appended since are read, so paging a 10,000-event run
 * parses it once, and following a live one reads just what the agent adds.
 */
import { createHash } from 'node:crypto';
import type * as z from 'zod';
import { check } from '../../../../shared/check';
import type { TranscriptEvent } from '../../../../shared/events';
import { INSPECT_PAGE_ROWS, INSPECT_VIEW, type View } from '../../../../shared/history';
import { InvalidInput } from '../../../../shared/invalidInput';
import { PRICES } from '../../../../shared/pricing';
import {
  type Compare,
  ExportParams,
  type FiguredInspectResult,
  InspectParams,
  type InspectResult,
  type InspectRow,
  type ModelCell,
  type Outline,
  type RunCounts,
  RunSearchParams,
  type RunSearchResult,
  UsageParams,
} from '../../../../shared/protocol';
import { resolveHistoryPolicy } from '../../../../shared/settings';
import type { RunUsage } from '../../../../shared/usage';
import type { Context } from '../context';
import { isImported } from '../history/replay';
import { countValueTokens } from '../history/valueTokens';
import { readLines } from '../store/lineReader';
import { lineMatch, searchLines } from '../values/lineSearch';
import { SEARCH_BUDGET_MS } from '../values/peek';
import { report } from './report';
import { buildOutline, CELL_MAX_BYTES, firstModelCalls, fullCell, type ModelSide, modelSide, runCounts } from './rows';
import { type RunIndex, RunIndexes, type Stamp, sameStamp, transcriptStamp, viewKey } from './runIndex';
import { searchRun } from './runSearch';
import { countUsage, type UsageCounts, type UsageOptions, usageKey, usageOf } from './usage';

/** An inspect request as checked: its defaults (the view) filled in. */
type Asked = z.output<typeof InspectParams>;

/** The most hits one run search answers. */
const SEARCH_HITS_MAX = 1000;
/** Usage counts kept per run, the most recently used: a request may name any policy, and each is a key. */
const USAGE_KEYS_KEPT = 4;
/** Subagents of one session summed into its figures, at most. */
const SUBAGENTS_MAX = 200;

interface Entry {
  events: TranscriptEvent[];
  /** The byte offset of each event's line. */
  offsets: number[];
  skipped: number;
  existingValues: Set<string>;
  /** The values folder as it was when the copy was read (the run index's stamp: see stampOf). */
  valuesStamp: string;
  /** Where the next read of the transcript starts, its line number, and the file read. */
  end: number;
  lines: number;
  inode: number;
  firstModelCalls: number[];
  outlines: Map<string, Outline>;
  views: Map<string, ModelSide>;
  /** What usage counted, by usage key. */
  usage: Map<string, UsageCounts>;
  /** What usage answered, by answer key (see answerKey). */
  answers: Map<string, RunUsage>;
}

export class Inspection {
  private readonly entries = new Map<string, Promise<Entry>>();
  /** Copies read and current (a run not here may be answered from its index while its copy is read). */
  private readonly settled = new Map<string, Entry>();
  /** Runs changed since their copy was read: caught up on their next use. */
  private readonly stale = new Set<string>();
  readonly indexes: RunIndexes;

  constructor(private readonly ctx: Context) {
    this.indexes = new RunIndexes(ctx.store);
  }

  private get store() {
    return this.ctx.store;
  }

  private async valueIds(runId: string): Promise<Set<string>> {
    return new Set((await this.store.values.listFiles(runId)).map((v) => v.valueId));
  }

  /** Notes that a run changed: its copy catches up before it is used again. */
  invalidate(runId: string): void {
    this.settled.delete(runId);
    if (this.entries.has(runId)) this.stale.add(runId);
  }

  private entry(runId: string): Promise<Entry> {
    let entry = this.entries.get(runId);
    if (entry && this.stale.delete(runId)) entry = entry.then((e) => this.catchUp(runId, e));
    else if (!entry) entry = this.catchUp(runId);
    const read = entry;
    read.then(
      (e) => this.entries.get(runId) === read && !this.stale.has(runId) && this.settled.set(runId, e),
      () => this.entries.get(runId) === read && this.entries.delete(runId),
    );
    // Most recently used last; keep two runs: big transcripts are big in memory too.
    this.entries.delete(runId);
    this.entries.set(runId, entry);
    while (this.entries.size > 2) {
      const oldest = this.entries.keys().next().value!;
      this.entries.delete(oldest);
      this.settled.delete(oldest);
    }
    return entry;
  }

  /** Reads what was appended since `entry` (or the whole run), and drops what depended on the old events. */
  private async catchUp(runId: string, entry?: Entry): Promise<Entry> {
    // Taken before the values are listed: a value deleted after makes the index stale, not wrong.
    const valuesStamp = await this.indexes.valuesStamp(runId);
    const stamp = await this.store.transcriptStamp(runId);
    // A transcript that shrank or was replaced (a deleted and recreated run) is read from the start.
    const fresh = !entry || !stamp || stamp.identity !== entry.inode || stamp.size < entry.end;
    const base: Entry = fresh
      ? {
          events: [],
          offsets: [],
          skipped: 0,
          valuesStamp,
          existingValues: new Set(),
          end: 0,
          lines: 0,
          inode: stamp?.identity ?? 0,
          firstModelCalls: [],
          outlines: new Map(),
          views: new Map(),
          usage: new Map(),
          answers: new Map(),
        }
      : entry!;
    const read = await this.store.readEventsFrom(runId, base.end, base.lines);
    const events = read.events.length > 0 ? [...base.events, ...read.events] : base.events;
    return {
      events,
      offsets: read.events.length > 0 ? [...base.offsets, ...read.offsets] : base.offsets,
      skipped: base.skipped + read.skipped.length,
      valuesStamp,
      existingValues: await this.valueIds(runId),
      end: read.end,
      lines: base.lines + read.lines,
      inode: base.inode,
      firstModelCalls: events === base.events ? base.firstModelCalls : firstModelCalls(events),
      outlines: new Map(),
      views: new Map(),
      usage: new Map(),
      answers: new Map(),
    };
  }

  /**
   * The outline of a run and a page of its rows: each event beside what the model got. With
   * `figures: false`, the rows as soon as they are read, before a token is counted.
   */
  async inspect(input: InspectParams & { figures?: true }): Promise<FiguredInspectResult>;
  async inspect(input: InspectParams): Promise<InspectResult>;
  async inspect(input: InspectParams): Promise<InspectResult> {
    const params = check(InspectParams, input);
    const runId = await this.ctx.runs.existing(params.runId);
    // A run not in memory is answered from its index when that holds the view; the copy is read meanwhile.
    if (!this.settled.has(runId)) {
      const index = await this.indexes.read(runId).catch(() => undefined);
      const answer = index && (await this.fromIndex(runId, index, params).catch(() => undefined));
      if (answer) {
        // The copy for the pages that follow: it starts with the index's outlines when read from the same bytes.
        this.entry(runId)
          .then((entry) => {
            const stamp = stampOf(entry);
            if (!stamp || !sameStamp(stamp, index.stamp)) return;
            for (const [key, outline] of Object.entries(index.outlines))
              if (!entry.outlines.has(key)) entry.outlines.set(key, outline);
            for (const [key, counts] of Object.entries(index.usage))
              if (!entry.usage.has(key)) keepCounts(entry, key, counts);
            for (const [key, answer] of Object.entries(index.answers))
              if (!entry.answers.has(key)) keepAnswer(entry, key, answer);
          })
          .catch(() => undefined);
        return answer;
      }
    }
    const { from = 0, limit = 0 } = params;
    const entry = await this.entry(runId);
    const { outline, modelCall, model, computed, compare } = await this.compute(runId, entry, params);
    if (computed) this.remember(runId);
    const rows: InspectRow[] = [];
    if (model && from < entry.events.length) {
      const page = entry.events.slice(from, Math.min(entry.events.length, from + limit));
      const cells = model.cells(from, from + page.length);
      rows.push(...(await this.rows(runId, page, from, entry.existingValues, entry.firstModelCalls, cells)));
    }
    return {
      outline,
      modelCall,
      rows,
      skipped: entry.skipped,
      unwritten: model?.archive.length ?? 0,
      ...(compare ? { compare } : {}),
    };
  }

  /**
   * The outline a request asks for and, when it asks for rows, the model's side of every event
   * at its model call: from the copy's caches, or computed into them (`computed`).
   */
  private async compute(
    runId: string,
    entry: Entry,
    params: Asked,
  ): Promise<{
    outline: Outline | RunCounts;
    modelCall: number;
    model: ModelSide | undefined;
    computed: boolean;
    compare?: Compare;
  }> {
    const { events, existingValues } = entry;
    const { view } = params;
    const imported = isImported(events);
    const policy = this.policyOf(params, imported);
    const other = otherView(view);
    const otherPolicy = this.policyOf({ ...params, view: other }, imported);
    // Rows first, when asked: the figures only when known, else the counts, no token counted.
    const known =
      entry.outlines.has(viewKey(view, policy)) && (!imported || entry.outlines.has(viewKey(other, otherPolicy)));
    const waits = params.figures !== false || known;
    // Figures need every result's tokens: counted once per content, then only looked at.
    if (waits) await countValueTokens(this.store, runId, events);
    let computed = false;
    const outlineOf = async (v: View, p: typeof policy) => {
      const key = viewKey(v, p);
      let found = entry.outlines.get(key);
      if (!found) {
        found = await buildOutline(events, existingValues, { view: v, policy: p });
        entry.outlines.set(key, found);
        computed = true;
      }
      return found;
    };
    const outline = waits ? await outlineOf(view, policy) : runCounts(events, existingValues, view);
    // An imported run's two views, side by side: as its agent sent it, and with Retained Outputs.
    const compare = imported && waits ? compareOf(await outlineOf(other, otherPolicy)) : undefined;
    const key = viewKey(view, policy);
    const modelCall = Math.min(params.modelCall ?? outline.modelCalls.length, outline.modelCalls.length);
    if (!params.limit) return { outline, modelCall, model: undefined, computed, ...(compare ? { compare } : {}) };
    const pageKey = `${key}@${modelCall}`;
    let model = entry.views.get(pageKey);
    if (!model) {
      // Inspecting writes nothing: the values its references name are written when a replay is sent.
      model = modelSide(events, existingValues, modelCall, { view, policy });
      entry.views.set(pageKey, model);
      while (entry.views.size > 4) entry.views.delete(entry.views.keys().next().value!);
      computed = true;
    }
    return { outline, modelCall, model, computed, ...(compare ? { compare } : {}) };
  }

  /**
   * Computes what opening the run shows first and writes its index now, unless its index holds
   * it already: after an import, when a run written to has been quiet a while, and for the
   * newest runs after a server starts. A run not in memory is read for this alone,
   * not kept (the runs being inspected keep their places).
   */
  async prepare(runId: string): Promise<void> {
    const first = { runId, from: 0, limit: INSPECT_PAGE_ROWS, view: INSPECT_VIEW };
    // An index that already holds it (one written after an import, then the run's quiet time) stands.
    const current = await this.indexes.read(runId).catch(() => undefined);
    const key = viewKey(INSPECT_VIEW, undefined);
    const outline = current?.outlines[key];
    if (outline && current.pages[`${key}@${outline.modelCalls.length}`]) return;
    const entry = this.settled.get(runId) ?? (await this.catchUp(runId));
    await this.compute(runId, entry, first);
    const index = indexOf(entry);
    if (index) await this.indexes.put(runId, index);
  }

  /**
   * The history policy a view applies: the one in force; for an imported run only in the view
   * with Retained Outputs (its agent never applied it, so what it sent stays as it was).
   */
  private policyOf(params: Pick<Asked, 'policy' | 'view'>, imported: boolean) {
    if (!params.policy || (imported && params.view === 'sent')) return undefined;
    return this.ctx.settings().history;
  }

  /** Rows of the events `page` (from position `from`): each beside its model cell (`cells`, the page's); a result kept in a value from its first bytes. */
  private async rows(
    runId: string,
    page: readonly TranscriptEvent[],
    from: number,
    existingValues: ReadonlySet<string> | undefined,
    firstModelCalls: readonly number[],
    cells: readonly ModelCell[],
  ): Promise<InspectRow[]> {
    const rows: InspectRow[] = [];
    for (const [i, event] of page.entries()) {
      const index = from + i;
      const kept = event.type === 'tool_call_finished' && event.result === undefined ? event.valueId : undefined;
      const head =
        kept && (existingValues?.has(kept) ?? true)
          ? await this.store.values.readHead(runId, kept, CELL_MAX_BYTES).catch(() => undefined)
          : undefined;
      // Without the list of values (an answer from the index), a value is there when its head reads.
      const existing = existingValues ?? new Set(head !== undefined && kept ? [kept] : []);
      rows.push({
        index,
        firstModelCall: firstModelCalls[index]!,
        full: fullCell(event, existing, head),
        model: cells[i]!,
      });
    }
    return rows;
  }

  /** The answer from the run's index, when it is current and holds the view and page asked for. */
  private async fromIndex(runId: string, index: RunIndex, params: Asked): Promise<InspectResult | undefined> {
    const { view } = params;
    const key = viewKey(view, this.policyOf(params, index.imported));
    const outline = index.outlines[key];
    if (!outline) return undefined;
    const otherKey = viewKey(otherView(view), this.policyOf({ ...params, view: otherView(view) }, index.imported));
    const other = index.imported ? index.outlines[otherKey] : undefined;
    if (index.imported && !other) return undefined;
    const { from = 0, limit = 0 } = params;
    const modelCall = Math.min(params.modelCall ?? outline.modelCalls.length, outline.modelCalls.length);
    const result = {
      outline,
      modelCall,
      rows: [] as InspectRow[],
      skipped: index.skipped,
      unwritten: 0,
      ...(other ? { compare: compareOf(other) } : {}),
    };
    const events = index.offsets.length;
    if (limit === 0 || from >= events) return result;
    const page = index.pages[`${key}@${modelCall}`];
    const to = Math.min(events, from + limit);
    if (!page || to > page.cells.length) return undefined;
    const read = await this.store.readEventsAt(runId, index.offsets.slice(from, to));
    if (!read) return undefined;
    const rows = await this.rows(runId, read, from, undefined, index.firstModelCalls, page.cells.slice(from, to));
    return { ...result, rows, unwritten: page.unwritten };
  }

  /** Keeps what the run's copy knows now in its index (a little later: see RunIndexes.save). */
  private remember(runId: string): void {
    this.indexes.save(runId, () => {
      const entry = this.settled.get(runId);
      return entry ? indexOf(entry) : undefined;
    });
  }

  /**
   * `retained/usage`: each model call's tokens by part, its cache reads and writes, its cost. A
   * policy applies to the view with Retained Outputs, as in `inspect` (an imported agent's own
   * requests stay as it sent them).
   */
  async usage(input: UsageParams): Promise<RunUsage> {
    const params = check(UsageParams, input);
    if (params.baseline && (params.view !== undefined || params.policy !== undefined || params.full !== undefined))
      throw new InvalidInput('params.baseline names its own view: give it without view, policy or full');
    const runId = await this.ctx.runs.existing(params.runId);
    // A run not in memory is answered from its index when that holds the answer: nothing read but it.
    const index = this.settled.has(runId) ? undefined : await this.indexes.read(runId).catch(() => undefined);
    const imported = index ? index.imported : isImported((await this.entry(runId)).events);
    const view = params.baseline ? 'sent' : (params.view ?? INSPECT_VIEW);
    const policy =
      !params.policy || (imported && view === 'sent')
        ? undefined
        : resolveHistoryPolicy(params.policy, this.ctx.settings().history, 'params.policy');
    // The run without Retained Outputs: what an imported agent sent; here, every result in full.
    const full = params.baseline ? !imported : params.full === true;
    const options = { view, policy, full } as const;
    const usage = await this.usageOfRun(runId, options, index);
    return params.subagents === false ? usage : this.withSubagents(runId, usage, options);
  }

  /**
   * A run's usage: the answer its copy or its index (read while the run is as it was then) keeps
   * for these options and prices, else computed from its events and kept in both.
   */
  private async usageOfRun(
    runId: string,
    options: Pick<UsageOptions, 'view' | 'policy' | 'full'>,
    index?: RunIndex,
  ): Promise<RunUsage> {
    const prices = { ...PRICES, ...this.ctx.settings().pricing };
    const key = answerKey(usageKey(options.view, options.policy, options.full === true), prices);
    const settled = this.settled.get(runId);
    const known = settled?.answers.get(key);
    if (known) return known;
    const indexed = settled
      ? undefined
      : (index ?? (await this.indexes.read(runId).catch(() => undefined)))?.answers[key];
    if (indexed) return indexed;
    const entry = await this.entry(runId);
    const usage = await usageOf(
      entry.events,
      entry.existingValues,
      { ...options, prices },
      await this.usageCounts(runId, entry, options),
      undefined,
      await this.asSentCounts(runId, entry, options),
    );
    keepAnswer(entry, key, usage);
    this.remember(runId);
    return usage;
  }

  /**
   * A session's subagents (runs imported beside it as `<run>-agent-…`): each a row of its own,
   * and the session's figures with theirs summed in, since the provider billed them all.
   */
  private async withSubagents(
    runId: string,
    usage: RunUsage,
    options: Pick<UsageOptions, 'view' | 'policy' | 'full'>,
  ): Promise<RunUsage> {
    const prefix = `${runId}-agent-`;
    const ids = (await this.store.listRunIds()).filter((id) => id.startsWith(prefix)).sort();
    if (ids.length === 0) return usage;
    const subagents: NonNullable<RunUsage['subagents']> = [];
    for (const id of ids.slice(0, SUBAGENTS_MAX)) {
      const theirs = await this.usageOfRun(id, { ...options, policy: undefined });
      subagents.push({
        runId: id,
        modelCalls: theirs.modelCalls.length - 1,
        total: theirs.totals.total,
        output: theirs.totals.output,
        counted: theirs.totals.counted,
        ...(theirs.totals.usd !== undefined ? { usd: theirs.totals.usd } : {}),
      });
    }
    const priced = usage.totals.usd !== undefined && subagents.every((a) => a.usd !== undefined);
    return {
      ...usage,
      subagents,
      session: {
        modelCalls: usage.modelCalls.length - 1 + subagents.reduce((n, a) => n + a.modelCalls, 0),
        total: usage.totals.total + subagents.reduce((n, a) => n + a.total, 0),
        output: usage.totals.output + subagents.reduce((n, a) => n + a.output, 0),
        counted: usage.totals.counted + subagents.reduce((n, a) => n + a.counted, 0),
        ...(priced ? { usd: usage.totals.usd! + subagents.reduce((n, a) => n + a.usd!, 0) } : {}),
      },
    };
  }

  /** The counts of the run as sent, when another form is asked for and the provider counted it (usageOf sets that form on the provider's basis). */
  private async asSentCounts(
    runId: string,
    entry: Entry,
    options: Pick<UsageOptions, 'view' | 'policy' | 'full'>,
  ): Promise<UsageCounts | undefined> {
    const asSent = options.view === 'sent' && !options.full && !options.policy;
    if (asSent || !entry.events.some((e) => e.type === 'assistant' && e.usage)) return undefined;
    return this.usageCounts(runId, entry, { view: 'sent' });
  }

  /**
   * What usage counts for a view of the run: from the copy, else from the run's index when that
   * was made from the same bytes (a cold request: no tokenizer, no counting), else counted now
   * and kept in the index.
   */
  private async usageCounts(
    runId: string,
    entry: Entry,
    options: Pick<UsageOptions, 'view' | 'policy' | 'full'>,
  ): Promise<UsageCounts> {
    const key = usageKey(options.view, options.policy, options.full === true);
    const known = entry.usage.get(key);
    if (known) return keepCounts(entry, key, known);
    const stamp = stampOf(entry);
    const index = stamp ? await this.indexes.read(runId).catch(() => undefined) : undefined;
    const indexed = index && stamp && sameStamp(stamp, index.stamp) ? index.usage[key] : undefined;
    if (indexed) return keepCounts(entry, key, indexed);
    await countValueTokens(this.store, runId, entry.events);
    const counts = keepCounts(entry, key, await countUsage(entry.events, entry.existingValues, options));
    this.remember(runId);
    return counts;
  }

  /** `retained/export`: the run, or what one model call was sent, as JSON, Markdown or HTML (report.ts). */
  async export(input: ExportParams): Promise<{ text: string }> {
    const { runId: given, format, modelCall, view } = check(ExportParams, input);
    const runId = await this.ctx.runs.existing(given);
    const entry = await this.entry(runId);
    const { events, existingValues } = entry;
    await countValueTokens(this.store, runId, events);
    const [run] = await this.ctx.runs.list([runId]);
    const outline = await buildOutline(events, existingValues, { view });
    const usage = await usageOf(
      events,
      existingValues,
      { view, prices: { ...PRICES, ...this.ctx.settings().pricing } },
      await this.usageCounts(runId, entry, { view }),
      undefined,
      await this.asSentCounts(runId, entry, { view }),
    );
    if (modelCall !== undefined && modelCall > usage.modelCalls.length)
      throw new InvalidInput(`model call ${modelCall} is past the run's ${usage.modelCalls.length}`);
    return { text: report({ run: run!, outline, usage, events, ...(modelCall ? { modelCall } : {}) }, format) };
  }

  /** Finds text anywhere in a run: messages, call arguments and full results. */
  async search(input: RunSearchParams): Promise<RunSearchResult> {
    const { runId: given, query, ...options } = check(RunSearchParams, input);
    const runId = await this.ctx.runs.existing(given);
    const { events } = await this.entry(runId);
    const match = lineMatch({ query, ...options });
    const deadline = Date.now() + SEARCH_BUDGET_MS;
    return searchRun(events, query, { ...options, limit: SEARCH_HITS_MAX }, async (valueId, keep) => {
      const open = this.store.values.open(runId, valueId);
      const index = await this.store.values.lineIndex(runId, valueId);
      const found = await searchLines(open, index, match, 1, index.lines, keep, deadline);
      const lines: { line: number; text: string }[] = [];
      for (const line of found.lines) {
        await readLines(open, index, line, 240, (read) => {
          lines.push({ line: read.number, text: read.text });
          return false;
        });
      }
      return { lines, total: found.total };
    });
  }
}

const otherView = (view: View): View => (view === 'sent' ? 'retained' : 'sent');

/** The other view's figures of an imported run, for the two to be read side by side. */
function compareOf(outline: Outline): Compare {
  return {
    view: outline.view,
    totals: outline.totals,
    modelCalls: outline.modelCalls.map(({ tokensSent, bytesSent }) => ({ tokensSent, bytesSent })),
  };
}

/** Keeps a view's usage counts in the run's copy (and so its index) as the most recently used, and at most USAGE_KEYS_KEPT. */
function keepCounts(entry: Entry, key: string, counts: UsageCounts): UsageCounts {
  entry.usage.delete(key);
  entry.usage.set(key, counts);
  while (entry.usage.size > USAGE_KEYS_KEPT) entry.usage.delete(entry.usage.keys().next().value!);
  return counts;
}

/** Keeps a usage answer in the run's copy (and so its index) as the most recently used, and at most USAGE_KEYS_KEPT. */
function keepAnswer(entry: Entry, key: string, answer: RunUsage): void {
  entry.answers.delete(key);
  entry.answers.set(key, answer);
  while (entry.answers.size > USAGE_KEYS_KEPT) entry.answers.delete(entry.answers.keys().next().value!);
}

/** The key of a usage answer: what was counted (usageKey) and the prices it was priced at. */
function answerKey(counted: string, prices: unknown): string {
  return `${counted}@${createHash('sha256').update(JSON.stringify(prices)).digest('hex').slice(0, 16)}`;
}

/** What a run's copy was read from; undefined when the run had no transcript. */
function stampOf(entry: Entry): Stamp | undefined {
  return entry.inode ? { transcript: transcriptStamp(entry.inode, entry.end), values: entry.valuesStamp } : undefined;
}

/** What a run's copy knows that a cold open needs: its index. */
function indexOf(entry: Entry): RunIndex | undefined {
  const stamp = stampOf(entry);
  if (!stamp) return undefined;
  const pages: RunIndex['pages'] = {};
  for (const [key, view] of entry.views)
    pages[key] = { cells: view.cells(0, INSPECT_PAGE_ROWS), unwritten: view.archive.length };
  return {
    stamp,
    imported: isImported(entry.events),
    skipped: entry.skipped,
    offsets: entry.offsets,
    firstModelCalls: entry.firstModelCalls,
    outlines: Object.fromEntries(entry.outlines),
    pages,
    usage: Object.fromEntries(entry.usage),
    answers: Object.fromEntries(entry.answers),
  };
}
