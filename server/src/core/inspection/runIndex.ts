/**
 * The run index: kept by the store beside each transcript (a folder store's
 * `runs/<runId>.index.json`, a team store's row: see IndexShelf), what opening the run in the
 * inspector needs, so a cold open (a restarted server, a run not opened since) reads one small
 * file and the rows on screen instead of parsing the whole run and counting its tokens: the byte
 * offset of each event's line, the first model call that sends each event, the outlines computed
 * so far (one per view and policy), the model's side of the first page, the tokens usage
 * counted (per event and part) and what it answered.
 *
 * It is derived data, like a value's line index: written after the answer that computed it,
 * never on the way to one, and used only while it matches what it was made from (the
 * transcript's identity and size, the values' stamp, this format). A stale,
 * torn or altered index is rebuilt, never trusted: its body is hashed, and its shape checked
 * before use.
 */
import { createHash } from 'node:crypto';
import { INSPECT_PAGE_ROWS } from '../../../../shared/history';
import type { ModelCell, Outline } from '../../../../shared/protocol';
import { type RunUsage, USAGE_PARTS } from '../../../../shared/usage';
import { INDEX_MAX_BYTES, type RunStore } from '../store/runStore';
import type { UsageCounts } from './usage';

/** Changes whenever what rows.ts computes does (inspection.test.ts holds it): an index of another format is rebuilt. */
export const FORMAT = 5;
/** Writes of a run's index are held this long, so a live run is not rewritten per event. */
const SAVE_DELAY_MS = 1000;

/** What an index was made from: it is used only while these are unchanged. */
export interface Stamp {
  /** The transcript's identity and how far it was read (see RunStore.transcriptStamp). */
  transcript: string;
  /** The values as they were (see IndexShelf.valuesStamp). */
  values: string;
}

export interface FirstPage {
  cells: ModelCell[];
  unwritten: number;
}

export interface RunIndex {
  stamp: Stamp;
  /** Whether the run was imported (no history policy applies). */
  imported: boolean;
  skipped: number;
  offsets: number[];
  firstModelCalls: number[];
  /** By view key (see `viewKey`). */
  outlines: Record<string, Outline>;
  /** By view key and model call (`key@modelCall`): rows 0 to INSPECT_PAGE_ROWS. */
  pages: Record<string, FirstPage>;
  /** What `retained/usage` counted, by its key (usage.ts `usageKey`): a cold request reads it instead of counting. */
  usage: Record<string, UsageCounts>;
  /** What `retained/usage` answered, by what was counted and the prices: a cold request is answered with it. */
  answers: Record<string, RunUsage>;
}

/** The transcript's part of a stamp: its identity and how far it was read. */
export function transcriptStamp(identity: number, size: number): string {
  return `${identity}:${size}`;
}

export function sameStamp(a: Stamp, b: Stamp): boolean {
  return a.transcript === b.transcript && a.values === b.values;
}

/** The key of a view of a run: which side, under which history policy. */
export function viewKey(view: string, policy: unknown): string {
  return `${view}:${policy ? JSON.stringify(policy) : 'none'}`;
}

export class RunIndexes {
  private readonly pending = new Map<string, { timer: NodeJS.Timeout; build: () => RunIndex | undefined }>();

  constructor(private readonly runStore: RunStore) {}

  /** What the run is now; undefined when it has no transcript. */
  async stamp(runId: string): Promise<Stamp | undefined> {
    const transcript = await this.runStore.transcriptStamp(runId);
    if (!transcript) return undefined;
    return {
      transcript: transcriptStamp(transcript.identity, transcript.size),
      values: await this.valuesStamp(runId),
    };
  }

  valuesStamp(runId: string): Promise<string> {
    return this.runStore.indexes.valuesStamp(runId);
  }

  /** The run's index when it matches the run as it is now. */
  async read(runId: string): Promise<RunIndex | undefined> {
    const now = await this.stamp(runId);
    if (!now) return undefined;
    const text = await this.runStore.indexes.read(runId, INDEX_MAX_BYTES).catch(() => undefined);
    if (text === undefined) return undefined;
    const newline = text.indexOf('\n');
    const body = text.slice(newline + 1);
    if (newline === -1 || text.slice(0, newline) !== digest(body)) return undefined;
    let index: unknown;
    try {
      index = JSON.parse(body);
    } catch {
      return undefined;
    }
    return wellFormed(index) && sameStamp(index.stamp, now) ? index : undefined;
  }

  /**
   * Writes the index a little later (`build` is asked then, for what is known by that time), so a
   * live run is written once a second at most. Failures are ignored: the next open rebuilds.
   */
  save(runId: string, build: () => RunIndex | undefined): void {
    if (this.pending.has(runId)) return;
    const timer = setTimeout(() => void this.flush(runId), SAVE_DELAY_MS);
    timer.unref();
    this.pending.set(runId, { timer, build });
  }

  /** Writes the pending indexes now (all, or the run's). */
  async flush(runId?: string): Promise<void> {
    const writes: Promise<void>[] = [];
    for (const [id, { timer, build }] of this.pending) {
      if (runId !== undefined && id !== runId) continue;
      clearTimeout(timer);
      this.pending.delete(id);
      const index = build();
      if (index) writes.push(this.write(id, index).catch(() => undefined));
    }
    await Promise.all(writes);
  }

  /** Writes the run's index now (pending writes of it are dropped: this one is newer). */
  async put(runId: string, index: RunIndex): Promise<void> {
    const pending = this.pending.get(runId);
    if (pending) clearTimeout(pending.timer);
    this.pending.delete(runId);
    await this.write(runId, index);
  }

  private async write(runId: string, index: RunIndex): Promise<void> {
    const body = JSON.stringify({ format: FORMAT, ...index });
    // Still the run it was made from (not deleted or changed meanwhile): then it goes in place whole.
    await this.runStore.indexes.write(runId, `${digest(body)}\n${body}`, async () => {
      const now = await this.stamp(runId);
      return now !== undefined && sameStamp(now, index.stamp);
    });
  }
}

function digest(body: string): string {
  return createHash('sha256').update(body).digest('hex');
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

/** The shape every use relies on: numbers where numbers go, offsets rising, arrays in step. */
function wellFormed(v: unknown): v is RunIndex {
  if (!isRecord(v) || v.format !== FORMAT || !isRecord(v.stamp)) return false;
  const { offsets, firstModelCalls, outlines, pages } = v;
  if (typeof v.stamp.transcript !== 'string' || typeof v.stamp.values !== 'string') return false;
  if (typeof v.imported !== 'boolean' || !isCount(v.skipped)) return false;
  if (!Array.isArray(offsets) || !Array.isArray(firstModelCalls) || offsets.length !== firstModelCalls.length)
    return false;
  for (let i = 0; i < offsets.length; i++) {
    if (!isCount(offsets[i]) || (i > 0 && offsets[i] <= offsets[i - 1])) return false;
    if (!isCount(firstModelCalls[i])) return false;
  }
  if (!isRecord(outlines) || !isRecord(pages)) return false;
  for (const outline of Object.values(outlines)) {
    if (!isRecord(outline) || outline.events !== offsets.length || !Array.isArray(outline.modelCalls)) return false;
    if (!isRecord(outline.totals)) return false;
  }
  for (const page of Object.values(pages)) {
    if (!isRecord(page) || !Array.isArray(page.cells) || !isCount(page.unwritten)) return false;
    if (page.cells.length !== Math.min(INSPECT_PAGE_ROWS, offsets.length) || !page.cells.every(isRecord)) return false;
  }
  if (!isRecord(v.usage)) return false;
  for (const counts of Object.values(v.usage)) if (!wellCounted(counts, offsets.length)) return false;
  if (!isRecord(v.answers)) return false;
  return Object.values(v.answers).every(wellAnswered);
}

/** A usage answer's shape as its readers rely on it: its calls and compactions listed, its totals numbers. */
function wellAnswered(v: unknown): boolean {
  if (!isRecord(v) || !Array.isArray(v.modelCalls) || !v.modelCalls.every(isRecord)) return false;
  if (!Array.isArray(v.compactions) || !v.compactions.every(isRecord) || typeof v.tokenizer !== 'string') return false;
  const { totals } = v;
  return isRecord(totals) && isCount(totals.total) && isCount(totals.output) && isCount(totals.counted);
}

const isColumn = (v: unknown, length: number): boolean =>
  Array.isArray(v) && v.length === length && v.every((n) => typeof n === 'number' && Number.isFinite(n) && n >= 0);
const isPass = (v: unknown, length: number): boolean =>
  isRecord(v) &&
  Array.isArray(v.parts) &&
  v.parts.length === USAGE_PARTS.length &&
  v.parts.every((column) => isColumn(column, length)) &&
  isColumn(v.bytes, length);

/** Usage counts of a run of `length` events: a column per part, numbers only. */
function wellCounted(v: unknown, length: number): boolean {
  if (!isRecord(v) || !isPass(v.sent, length) || (v.older !== undefined && !isPass(v.older, length))) return false;
  if (!isColumn(v.output, length) || !isRecord(v.shapes)) return false;
  return Object.values(v.shapes).every((s) => isRecord(s) && isCount(s.systemPrompt) && isCount(s.tools));
}
