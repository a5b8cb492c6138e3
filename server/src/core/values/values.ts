/**
 * Values and peek: finding a retained value by the id a stub shows, reading it back in bounded
 * answers, listing and deleting values.
 */
import { pathToFileURL } from 'node:url';
import { check } from '../../../../shared/check';
import { valueIdCandidates } from '../../../../shared/ids';
import { InvalidInput } from '../../../../shared/invalidInput';
import {
  PeekParams,
  type PeekResult,
  VALUES_PAGE_MAX,
  ValueBytesParams,
  type ValueMeta,
  ValueParams,
  type ValueSummary,
  ValuesParams,
} from '../../../../shared/protocol';
import type { IndexedValue } from '../../../../shared/stubText';
import type { Context } from '../context';
import { WITHHELD_DIR } from '../store/layout';
import { WITHHELD_NAME } from '../withhold/withholder';
import { peekValue } from './peek';

export interface ValueRef {
  runId: string;
  valueId: string;
}

export class Values {
  constructor(private readonly ctx: Context) {}

  /** Finds the run holding a value; several candidates without a runId is an error listing them. */
  async resolve(given: string, runIdGiven?: string): Promise<ValueRef> {
    const { store, runs } = this.ctx;
    const candidates = valueIdCandidates(given);
    if (runIdGiven !== undefined) {
      const runId = await runs.key(runIdGiven);
      for (const valueId of candidates) if (await store.values.exists(runId, valueId)) return { runId, valueId };
      const known = (await store.values.listFiles(runId)).map((v) => v.valueId);
      throw new InvalidInput(`no value ${JSON.stringify(given)} in run ${runId}; ${describeKnown(known)}`);
    }
    const found: ValueRef[] = [];
    for (const valueId of candidates)
      for (const runId of await store.runsWithValue(valueId)) found.push({ runId, valueId });
    if (found.length === 1) return found[0]!;
    if (found.length > 1)
      throw new InvalidInput(
        `value ${JSON.stringify(given)} is in several runs (${found.map((f) => f.runId).join(', ')}): pass runId to choose one`,
      );
    const known: string[] = [];
    for (const runId of (await store.listRunIds()).slice(0, 5))
      known.push(...(await store.values.listFiles(runId)).map((v) => v.valueId));
    throw new InvalidInput(`no retained value ${JSON.stringify(given)}; ${describeKnown(known)}`);
  }

  /** The value a stub in a document names, in the newest run that has it; undefined when none does. */
  async locate(valueId: string): Promise<ValueRef | undefined> {
    const [runId] = await this.ctx.store.runsWithValue(valueId);
    return runId ? { runId, valueId } : undefined;
  }

  async peek(input: PeekParams): Promise<PeekResult> {
    const { valueId: given, runId: runGiven, store: _store, ...request } = check(PeekParams, input);
    if (WITHHELD_NAME.test(given)) return this.peekWithheld(given, request);
    const { runId, valueId } = await this.resolve(given, runGiven);
    const { store } = this.ctx;
    const index = await store.values.lineIndex(runId, valueId);
    const answer = await peekValue(store.values.open(runId, valueId), index, valueId, request, this.ctx.settings());
    return { runId, valueId, ...answer };
  }

  /** A withheld original, by the name its notice gives: only when the user lets peek_value read them. */
  private async peekWithheld(name: string, request: Omit<PeekParams, 'valueId' | 'runId'>): Promise<PeekResult> {
    if (!this.ctx.settings().guard.peekOriginals)
      throw new InvalidInput(
        `${name} is a result a guard withheld from the model; reading it through peek_value is off (retained.guard.peekOriginals)`,
      );
    const { open, index } = await this.ctx.store.openWithheld(name);
    const answer = await peekValue(open, index, name, request, this.ctx.settings());
    return { runId: WITHHELD_DIR, valueId: name, ...answer };
  }

  /** The file a value's document reads: a run's value, or a withheld original by its name. */
  async file({ valueId, runId }: { valueId: string; runId?: string | undefined }): Promise<{
    uri: string;
    bytes: number;
    valueId: string;
  }> {
    const { store } = this.ctx;
    if (WITHHELD_NAME.test(valueId)) {
      const path = store.withheldPath?.(valueId);
      if (!path) throw new InvalidInput(`a team store's withheld original opens only through peek_value: ${valueId}`);
      const { bytes: size } = await store.openWithheld(valueId);
      return { uri: pathToFileURL(path).href, bytes: size, valueId };
    }
    const ref = await this.resolve(valueId, runId);
    const { bytes } = await store.values.readMeta(ref.runId, ref.valueId);
    return { uri: this.uri(ref), bytes, valueId: ref.valueId };
  }

  /** A stretch of a value's bytes, for a client that cannot read its file (a team store's value has none). */
  async bytes(input: ValueBytesParams): Promise<{ base64: string; bytes: number }> {
    const { valueId, runId, offset, length } = check(ValueBytesParams, input);
    const ref = await this.resolve(valueId, runId);
    const { bytes } = await this.ctx.store.values.readMeta(ref.runId, ref.valueId);
    const buffer = Buffer.alloc(Math.max(0, Math.min(length, bytes - offset)));
    const reader = await this.ctx.store.values.open(ref.runId, ref.valueId)();
    try {
      let read = 0;
      while (read < buffer.length) {
        const { bytesRead } = await reader.read(buffer, read, buffer.length - read, offset + read);
        if (bytesRead === 0) break;
        read += bytesRead;
      }
      return { base64: buffer.subarray(0, read).toString('base64'), bytes };
    } finally {
      await reader.close();
    }
  }

  uri({ runId, valueId }: ValueRef): string {
    return this.ctx.store.values.uri(runId, valueId);
  }

  /** One value's metadata with the stub the model got. */
  async meta(input: { valueId: string; runId?: string }): Promise<ValueMeta & { uri: string }> {
    const params = check(ValueParams, input);
    const ref = await this.resolve(params.valueId, params.runId);
    return { ...(await this.ctx.store.values.readMeta(ref.runId, ref.valueId)), uri: this.uri(ref) };
  }

  /** A page of a run's values, oldest first, without their stubs; and how many there are. */
  async list(input: ValuesParams): Promise<{ values: ValueSummary[]; total: number }> {
    const { runId: given, from = 0, limit = VALUES_PAGE_MAX } = check(ValuesParams, input);
    const runId = await this.ctx.runs.key(given);
    const files = await this.ctx.store.values.listFiles(runId);
    const page = await this.ctx.store.values.readMetas(runId, files.slice(from, from + limit));
    return { values: page.map(({ stub: _stub, ...v }) => ({ ...v, uri: this.uri(v) })), total: files.length };
  }

  /**
   * A run's retained values as the model is handed them after a compaction (stubText.ts), or
   * listed by `list_retained`: newest first, those of `tool` or mentioning `text` only.
   */
  async indexed(given: string, { tool, text }: { tool?: string; text?: string } = {}): Promise<IndexedValue[]> {
    const runId = await this.ctx.runs.key(given);
    const files = await this.ctx.store.values.listFiles(runId);
    const metas = await this.ctx.store.values.readMetas(runId, files.slice(-VALUES_PAGE_MAX));
    const needle = text?.toLowerCase();
    return metas
      .filter((v) => !tool || v.tool.toLowerCase() === tool.toLowerCase())
      .filter((v) => !needle || `${v.valueId} ${v.tool} ${v.subject?.text ?? ''}`.toLowerCase().includes(needle))
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.valueId.localeCompare(b.valueId));
  }

  async delete(runId: string, given: string): Promise<void> {
    const ref = await this.resolve(given, runId);
    await this.ctx.writing(ref.runId, () => this.ctx.store.values.delete(ref.runId, ref.valueId));
  }
}

function describeKnown(ids: string[]): string {
  if (ids.length === 0) return 'no values are retained yet';
  const shown = ids.slice(0, 20).join(', ');
  return `known ids: ${shown}${ids.length > 20 ? `, … (${ids.length - 20} more)` : ''}`;
}
