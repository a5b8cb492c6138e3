/**
 * A team store's values: staged on this machine as they stream (staging.ts), then uploaded whole
 * as a content-addressed blob the database checks (schema.ts, version 3) and named in one
 * transaction with a notice, so a writer that dies halfway leaves nothing a stub names. A value's
 * bytes are read a chunk's part at a time: a peek at the end of a 1 GB value reads only the
 * chunks its lines are in. Every row read back is checked before it is used.
 */
import { rmSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import type { ClientBase } from 'pg';
import type { TranscriptEvent } from '../../../../../shared/events';
import { isSanitizedId } from '../../../../../shared/ids';
import { InvalidInput } from '../../../../../shared/invalidInput';
import type { ValueMeta } from '../../../../../shared/protocol';
import { valueDocumentUri } from '../../../../../shared/valueDocument';
import { type LineIndex, lastAtOrBefore, parseIndex } from '../lineIndex';
import { type OpenValue, readHead, type ValueBytes } from '../lineReader';
import { checkedId, namesTaken, sidecarMeta, valueNames } from '../naming';
import { StoreRefused } from '../open';
import type { NewValue, StagedValue, ValueStore } from '../runStore';
import { privateStaging, type Staging } from '../staging';
import type { TeamStore } from './teamStore';
import { uploadBlob } from './transfer';

/** Blob layouts (chunk starts, line index) kept: a blob never changes, so they never go stale. */
const LAYOUTS_MAX = 256;

/** Where a blob's chunks start, and its line index. */
interface Layout {
  sha256: string;
  starts: number[];
  index: LineIndex;
}

export class TeamValues implements ValueStore {
  /** A private folder on this machine where values are staged while they stream. */
  private scratch: Staging | undefined;
  private readonly layouts = new Map<string, Promise<Layout>>();

  constructor(private readonly team: TeamStore) {}

  private stagingArea(): Staging {
    this.scratch ??= privateStaging();
    return this.scratch;
  }

  closeScratch(): void {
    if (this.scratch) rmSync(this.scratch.root, { recursive: true, force: true });
    this.scratch = undefined;
  }

  stage(
    runId: string,
    parts: Iterable<Buffer> | AsyncIterable<Buffer>,
    onPart?: (part: Buffer) => void | Promise<void>,
  ): Promise<StagedValue> {
    const staging = this.stagingArea();
    return staging.stage(checkedId(runId, 'run'), staging.root, parts, onPart);
  }

  readStaged(staged: StagedValue): Promise<string> {
    return this.stagingArea().read(staged);
  }

  discardStaged(staged: StagedValue): Promise<void> {
    return this.stagingArea().discard(staged);
  }

  /**
   * In one transaction: uploads the staged bytes as a complete blob (unless the team has them),
   * names the value under the first free name, appends its event when given (the run's lock is
   * taken last, so appends wait only for a commit); announced once committed. The staged file
   * goes either way.
   */
  async place(
    staged: StagedValue,
    value: NewValue,
    valueId?: string,
    event?: (meta: ValueMeta) => TranscriptEvent,
  ): Promise<ValueMeta> {
    const { team } = this;
    const runId = checkedId(value.runId, 'run');
    const names = valueNames(value.callId, staged.sha256, valueId);
    try {
      const placed = await team.transaction(async (client) => {
        await uploadBlob(client, this.stagingArea().root, staged.tmp, {
          sha256: staged.sha256,
          bytes: staged.bytes,
          lines: staged.index.lines,
          valueId: names[0]!,
        });
        await team.query('INSERT INTO runs (run_id, name) VALUES ($1, $1) ON CONFLICT DO NOTHING', [runId], client);
        const meta = await this.name(client, runId, names, staged, value);
        if (event) await team.append(runId, [event(meta)], client);
        return meta;
      });
      team.changed(runId);
      return placed;
    } catch (err) {
      // The database did not take it: the whole output stays where the caller asked, to keep elsewhere.
      if (value.keepTo && !(err instanceof InvalidInput && !(err instanceof StoreRefused)))
        await rename(staged.tmp, value.keepTo).catch(() => undefined);
      throw err;
    } finally {
      await this.discardStaged(staged);
    }
  }

  /** The value's row under the first of `names` that is free, or holds these same bytes. */
  private async name(
    client: ClientBase,
    runId: string,
    names: readonly string[],
    staged: StagedValue,
    value: NewValue,
  ): Promise<ValueMeta> {
    const { team } = this;
    for (const name of names) {
      const meta: ValueMeta = {
        runId,
        valueId: name,
        callId: value.callId,
        tool: value.tool,
        bytes: staged.bytes,
        lines: staged.index.lines,
        sha256: staged.sha256,
        isError: value.isError,
        ...(value.subject ? { subject: value.subject } : {}),
        createdAt: new Date().toISOString(),
        stub: value.stubFor(name),
      };
      const added = await team.query(
        `INSERT INTO run_values (run_id, value_id, sha256, meta) VALUES ($1, $2, $3, $4::jsonb)
         ON CONFLICT DO NOTHING RETURNING value_id`,
        [runId, name, staged.sha256, JSON.stringify(meta)],
        client,
      );
      if (added.length > 0) return meta;
      // The same bytes under a taken name are the same value; other bytes, the next name.
      const [there] = await team.query(
        'SELECT sha256, meta::text AS meta FROM run_values WHERE run_id = $1 AND value_id = $2',
        [runId, name],
        client,
      );
      if (there?.sha256 === staged.sha256) {
        const known = sidecarMeta(there.meta as string, runId, name, staged.bytes);
        if (known) return known;
      }
    }
    throw namesTaken(value.callId, names);
  }

  async exists(runId: string, valueId: string): Promise<boolean> {
    if (!isSanitizedId(runId) || !isSanitizedId(valueId)) return false;
    const rows = await this.team.query(
      'SELECT 1 FROM run_values v JOIN blobs b USING (sha256) WHERE v.run_id = $1 AND v.value_id = $2 AND b.complete',
      [runId, valueId],
    );
    return rows.length > 0;
  }

  /** The blob a value names, with where its chunks start and its line index (cached by hash). */
  private async layout(runId: string, valueId: string): Promise<Layout> {
    const [row] = await this.team.query(
      `SELECT b.sha256 FROM run_values v JOIN blobs b USING (sha256)
       WHERE v.run_id = $1 AND v.value_id = $2 AND b.complete`,
      [checkedId(runId, 'run'), checkedId(valueId, 'value')],
    );
    if (!row) throw new Error(`value ${valueId} of run ${runId} is not there`);
    const sha256 = row.sha256 as string;
    let layout = this.layouts.get(sha256);
    if (!layout) {
      layout = this.readLayout(sha256);
      if (this.layouts.size >= LAYOUTS_MAX) this.layouts.delete(this.layouts.keys().next().value!);
      this.layouts.set(sha256, layout);
      layout.catch(() => this.layouts.delete(sha256));
    }
    return layout;
  }

  private async readLayout(sha256: string): Promise<Layout> {
    const [blob] = await this.team.query('SELECT bytes, line_index FROM blobs WHERE sha256 = $1', [sha256]);
    const chunks = await this.team.query(
      'SELECT n, length(data)::bigint AS bytes, first_line FROM blob_chunks WHERE sha256 = $1 ORDER BY n',
      [sha256],
    );
    const bytes = Number(blob?.bytes ?? 0);
    const starts: number[] = [];
    let at = 0;
    for (const [i, chunk] of chunks.entries()) {
      if (Number(chunk.n) !== i) throw new Error(`blob ${sha256} is missing chunk ${i}`);
      starts.push(at);
      at += Number(chunk.bytes);
    }
    if (at !== bytes) throw new Error(`blob ${sha256} holds ${at} bytes of ${bytes}`);
    const stored = blob?.line_index ? parseIndex(blob.line_index as Buffer, bytes) : undefined;
    return { sha256, starts, index: stored ?? (await this.chunkIndex(sha256, chunks, starts, bytes)) };
  }

  /** An index from the chunks alone (a blob without one): a checkpoint where each chunk starts. */
  private async chunkIndex(
    sha256: string,
    chunks: Record<string, unknown>[],
    starts: number[],
    bytes: number,
  ): Promise<LineIndex> {
    let finalNewline = true;
    let newlines = 0;
    if (bytes > 0) {
      const [last] = await this.team.query(
        `SELECT get_byte(data, length(data) - 1) AS byte,
                length(encode(data, 'escape')) - length(replace(encode(data, 'escape'), E'\\n', '')) AS nl
         FROM blob_chunks WHERE sha256 = $1 AND n = $2`,
        [sha256, chunks.length - 1],
      );
      finalNewline = Number(last?.byte) === 0x0a;
      newlines = Number(chunks[chunks.length - 1]!.first_line) - 1 + Number(last?.nl ?? 0);
    }
    const lines = bytes === 0 ? 0 : finalNewline ? newlines : newlines + 1;
    // The first checkpoint is line 1 at byte 0, chunks or none (an empty value).
    const checkpointLines = [1];
    const checkpointOffsets = [0];
    chunks.forEach((chunk, i) => {
      const line = Number(chunk.first_line);
      if (i === 0 || line > lines) return;
      checkpointLines.push(line);
      checkpointOffsets.push(starts[i]!);
    });
    return { bytes, lines, finalNewline, checkpointLines, checkpointOffsets };
  }

  async lineIndex(runId: string, valueId: string): Promise<LineIndex> {
    return (await this.layout(runId, valueId)).index;
  }

  async readMeta(runId: string, valueId: string): Promise<ValueMeta> {
    const [meta] = await this.readMetas(runId, [{ valueId, bytes: -1 }]);
    if (!meta) throw new Error(`value ${valueId} of run ${runId} is not there`);
    return meta;
  }

  readHead(runId: string, valueId: string, maxBytes: number): Promise<string> {
    return readHead(this.open(runId, valueId), maxBytes);
  }

  async listFiles(runId: string): Promise<{ valueId: string; bytes: number; mtimeMs: number }[]> {
    const rows = await this.team.query(
      `SELECT v.value_id, b.bytes, v.meta->>'createdAt' AS created FROM run_values v JOIN blobs b USING (sha256)
       WHERE v.run_id = $1 AND b.complete`,
      [runId],
    );
    return rows
      .filter((r) => isSanitizedId(r.value_id as string))
      .map((r) => ({
        valueId: r.value_id as string,
        bytes: Number(r.bytes),
        mtimeMs: Date.parse(String(r.created)) || 0,
      }))
      .sort((a, b) => a.mtimeMs - b.mtimeMs || (a.valueId < b.valueId ? -1 : a.valueId > b.valueId ? 1 : 0));
  }

  async list(runId: string): Promise<ValueMeta[]> {
    return this.readMetas(runId, await this.listFiles(runId));
  }

  /** Metadata rows, each checked as a folder's sidecar is (a row may come from anyone with write access). */
  async readMetas(runId: string, files: readonly { valueId: string; bytes: number }[]): Promise<ValueMeta[]> {
    if (files.length === 0) return [];
    const rows = await this.team.query(
      `SELECT v.value_id, b.bytes, v.meta::text AS meta FROM run_values v JOIN blobs b USING (sha256)
       WHERE v.run_id = $1 AND v.value_id = ANY($2::text[]) AND b.complete`,
      [runId, files.map((f) => f.valueId)],
    );
    const byId = new Map(rows.map((r) => [r.value_id as string, r]));
    const out: ValueMeta[] = [];
    for (const file of files) {
      const row = byId.get(file.valueId);
      if (!row) continue;
      const meta = sidecarMeta(row.meta as string, runId, file.valueId, Number(row.bytes));
      if (meta) out.push(meta);
      else throw new Error(`value ${file.valueId} of run ${runId}: its row in the team store is not well formed`);
    }
    return out;
  }

  /** Reads a blob by byte position: the part of each chunk a read spans, and only that. */
  open(runId: string, valueId: string): OpenValue {
    return async (): Promise<ValueBytes> => {
      const { sha256, starts, index } = await this.layout(runId, valueId);
      const chunkAt = (position: number) => lastAtOrBefore(starts, position);
      return {
        read: async (buffer, offset, length, position) => {
          let bytesRead = 0;
          while (bytesRead < length && position + bytesRead < index.bytes) {
            const at = position + bytesRead;
            const n = chunkAt(at);
            const chunkEnd = n + 1 < starts.length ? starts[n + 1]! : index.bytes;
            const take = Math.min(length - bytesRead, chunkEnd - at);
            const [row] = await this.team.query(
              'SELECT substring(data FROM $3 FOR $4) AS part FROM blob_chunks WHERE sha256 = $1 AND n = $2',
              [sha256, n, at - starts[n]! + 1, take],
            );
            const part = row?.part as Buffer | undefined;
            if (!part || part.length === 0) break;
            part.copy(buffer, offset + bytesRead);
            bytesRead += part.length;
          }
          return { bytesRead };
        },
        close: async () => undefined,
      };
    };
  }

  /** A team value has no file here: its URI is its read-only document, read through the server (`retained/valueBytes`). */
  uri(runId: string, valueId: string): string {
    return valueDocumentUri({ runId, valueId, store: 'team' });
  }

  async delete(runId: string, valueId: string): Promise<void> {
    await this.team.query('DELETE FROM run_values WHERE run_id = $1 AND value_id = $2', [runId, valueId]);
    this.team.changed(runId);
  }

  dropCachesFor(): void {
    // Cached layouts are by hash: a blob never changes.
  }
}
