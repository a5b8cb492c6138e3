/**
 * Moving a run between a folder store and a team store: `push` uploads a run (its events, and
 * its values by their SHA-256: bytes the team store holds already are not sent again), `pull`
 * brings one down. A value's bytes go in chunks of at most 1 MiB cut after a newline where there
 * is one, each with the line it starts at, in one transaction with the blob marked complete at
 * its end: a push killed halfway leaves no value a stub can name. The run's own rows go in one
 * transaction after its values, so a run is seen with all its values or not at all. Every id
 * reaches SQL as a parameter, never in its text.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { ClientBase } from 'pg';
import type { TranscriptEvent } from '../../../../../shared/events';
import { InvalidInput } from '../../../../../shared/invalidInput';
import type { ValueMeta } from '../../../../../shared/protocol';
import type { FolderStore } from '../folderStore';
import { openFile, READ } from '../safeFs';
import { eventLine } from '../transcript';
import { CHUNK_MAX_BYTES } from './schema';

/** Chunks written per statement, and read per query. */
const CHUNKS_PER_BATCH = 8;
/** Events written per statement. */
const EVENTS_PER_BATCH = 500;

export interface PushResult {
  runId: string;
  events: number;
  valuesSent: number;
  valuesThere: number;
  bytesSent: number;
}

/** A value file's chunks: at most CHUNK_MAX_BYTES each, cut after the last newline in it where there is one. */
async function* chunksOf(root: string, path: string): AsyncGenerator<{ data: Buffer; firstLine: number }> {
  // Only a regular file of the store, never through a link.
  const handle = await openFile(root, path, READ);
  try {
    let line = 1;
    let carry = Buffer.alloc(0);
    for (;;) {
      const room = Buffer.allocUnsafe(CHUNK_MAX_BYTES - carry.length);
      const { bytesRead } = await handle.read(room, 0, room.length, null);
      const piece = Buffer.concat([carry, room.subarray(0, bytesRead)]);
      if (piece.length === 0) return;
      const end = bytesRead === 0 ? piece.length : piece.lastIndexOf(0x0a) + 1 || piece.length;
      const data = piece.subarray(0, end);
      carry = Buffer.from(piece.subarray(end));
      yield { data, firstLine: line };
      for (let at = data.indexOf(0x0a); at !== -1; at = data.indexOf(0x0a, at + 1)) line++;
      if (bytesRead === 0 && carry.length === 0) return;
    }
  } finally {
    await handle.close();
  }
}

export async function inTransaction<T>(client: ClientBase, work: () => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    const result = await work();
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/** What a blob is uploaded as: its hash, size and lines (the team store counts its lines and index itself). */
export interface BlobOf {
  sha256: string;
  bytes: number;
  lines: number;
  /** The value's id, for messages. */
  valueId: string;
}

/**
 * Uploads one value file's bytes as a complete blob, unless the team store has them; the bytes
 * sent. The chunks go to `blob_uploads` under an upload id of this call's, and
 * `retained_finish_blob` makes them the blob only if they are what they say (schema.ts): all in
 * one transaction, so a killed upload leaves nothing.
 */
export async function pushBlob(client: ClientBase, root: string, path: string, value: BlobOf): Promise<number> {
  return inTransaction(client, () => uploadBlob(client, root, path, value));
}

/**
 * `pushBlob` inside the caller's transaction (a retain names its value and appends its event in
 * the same one). All but the last batch of chunks go to `blob_uploads`; the last goes with the
 * call that finishes the blob, so a value of a few chunks is written once.
 */
export async function uploadBlob(client: ClientBase, root: string, path: string, value: BlobOf): Promise<number> {
  const there = await client.query('SELECT complete FROM blobs WHERE sha256 = $1', [value.sha256]);
  if (there.rows[0]?.complete === true) return 0;
  const upload = randomUUID();
  let n = 0;
  let sent = 0;
  let batch: { data: Buffer; firstLine: number }[] = [];
  const hash = createHash('sha256');
  for await (const chunk of chunksOf(root, path)) {
    // A full batch is uploaded only once another chunk follows it: the last is the finish's.
    if (batch.length === CHUNKS_PER_BATCH) {
      const rows = batch.map((_, i) => `($1, $${i * 3 + 2}, $${i * 3 + 3}, $${i * 3 + 4})`);
      const params = batch.flatMap((c) => [n++, c.firstLine, c.data]);
      await client.query(`INSERT INTO blob_uploads (upload, n, first_line, data) VALUES ${rows.join(', ')}`, [
        upload,
        ...params,
      ]);
      batch = [];
    }
    hash.update(chunk.data);
    batch.push(chunk);
    sent += chunk.data.length;
  }
  // A file that is not the value its name says (changed since, or damaged) never becomes that value.
  if (hash.digest('hex') !== value.sha256)
    throw new Error(`value ${value.valueId}: its file does not hash to ${value.sha256}; nothing of it was kept`);
  // The last chunks as one binary parameter, with their sizes: no text encoding of the bytes.
  const { rows } = await client.query('SELECT retained_finish_blob($1, $2, $3, $4, $5, $6) AS made', [
    upload,
    value.sha256,
    value.bytes,
    Buffer.concat(batch.map((c) => c.data)),
    batch.map((c) => c.data.length),
    batch.map((c) => c.firstLine),
  ]);
  return rows[0]?.made === true ? sent : 0;
}

/** Uploads a run of `store`: its values first, then its name, events and value rows at once. */
export async function pushRun(client: ClientBase, store: FolderStore, runId: string): Promise<PushResult> {
  if (!(await store.runExists(runId))) throw new InvalidInput(`no run ${runId} in ${store.root}`);
  const meta = await store.readRunMeta(runId);
  const { events } = await store.readEvents(runId);
  const values = await store.values.list(runId);
  let valuesSent = 0;
  let bytesSent = 0;
  for (const value of values) {
    const sent = await pushBlob(client, store.root, store.values.path(runId, value.valueId), value);
    if (sent > 0 || value.bytes === 0) valuesSent++;
    bytesSent += sent;
  }
  const added = await inTransaction(client, async () => {
    await client.query(
      'INSERT INTO runs (run_id, name, started_at) VALUES ($1, $2, $3) ON CONFLICT (run_id) DO NOTHING',
      [runId, meta?.name ?? runId, meta?.startedAt ?? null],
    );
    const { rows } = await client.query('SELECT count(*)::bigint AS n FROM events WHERE run_id = $1', [runId]);
    const have = Number(rows[0]?.n ?? 0);
    if (have > events.length)
      throw new InvalidInput(`the team store holds more of run ${runId} than ${store.root} does: pull it instead`);
    // The events it has must be this run's, as they are here: another run under the same id (two
    // machines' \`cli\` runs), or a transcript rewritten since (an import), is never appended to.
    if (have > 0) {
      const { rows: ends } = await client.query(
        'SELECT seq, event::text AS text FROM events WHERE run_id = $1 AND seq IN (0, $2) ORDER BY seq',
        [runId, have - 1],
      );
      const differs = ends.find((row) => !sameEvent(row.text as string, events[Number(row.seq)]));
      if (differs || ends.length !== (have > 1 ? 2 : 1))
        throw new InvalidInput(
          `run ${runId} in the team store is not this run as it is here (event ${Number(differs?.seq ?? 0) + 1} differs): push it under another id (retained import … --run, or retained run --run)`,
        );
    }
    await appendEvents(
      client,
      runId,
      events.slice(have),
      have,
      () => new InvalidInput(`run ${runId} was appended to in the team store while it was pushed: push it again`),
    );
    for (const value of values)
      await client.query(
        'INSERT INTO run_values (run_id, value_id, sha256, meta) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
        [runId, value.valueId, value.sha256, JSON.stringify(value)],
      );
    return events.length - have;
  });
  return { runId, events: added, valuesSent, valuesThere: values.length - valuesSent, bytesSent };
}

/** An event as a team store keeps it: the line a folder store would write (stamped, within the same limit), without its newline. */
function eventText(event: TranscriptEvent): string {
  const line = Buffer.concat(eventLine(event));
  return line.subarray(0, line.length - 1).toString('utf8');
}

/** Events as the JSON array `retained_append` takes: each element the text kept. */
export function eventsJson(events: readonly TranscriptEvent[]): string {
  return `[${events.map(eventText).join(',')}]`;
}

/**
 * Appends a run's events in the caller's transaction, a batch per `retained_append` (the one way
 * events enter a team store: it makes the run when new, and holds its lock to the commit). The
 * first must be number `from` (the events the caller found there), else `refusal` is thrown
 * before more is sent, and the transaction keeps nothing.
 */
export async function appendEvents(
  client: ClientBase,
  runId: string,
  events: readonly TranscriptEvent[],
  from: number,
  refusal: (first: number) => Error,
): Promise<void> {
  for (let at = 0; at === 0 || at < events.length; at += EVENTS_PER_BATCH) {
    const { rows } = await client.query('SELECT retained_append($1, $2::json) AS first', [
      runId,
      eventsJson(events.slice(at, at + EVENTS_PER_BATCH)),
    ]);
    const first = Number(rows[0]?.first);
    if (at === 0 && first !== from) throw refusal(first);
  }
}

/** A complete blob's bytes, a few chunks per query, in order. */
async function* blobChunks(client: ClientBase, sha256: string): AsyncGenerator<Buffer> {
  for (let n = 0; ; n += CHUNKS_PER_BATCH) {
    const { rows } = await client.query(
      'SELECT data FROM blob_chunks WHERE sha256 = $1 AND n >= $2 AND n < $3 ORDER BY n',
      [sha256, n, n + CHUNKS_PER_BATCH],
    );
    for (const row of rows) yield row.data as Buffer;
    if (rows.length < CHUNKS_PER_BATCH) return;
  }
}

/** The same event, however its keys are ordered. */
function sameEvent(text: string, event: TranscriptEvent | undefined): boolean {
  return event !== undefined && canonicalJson(JSON.parse(text)) === canonicalJson(event);
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

/** Brings a run of the team store down into `store`, which must not have it. */
export async function pullRun(
  client: ClientBase,
  store: FolderStore,
  runId: string,
): Promise<{ runId: string; events: number; values: number }> {
  if (await store.runExists(runId)) {
    // A pull killed halfway leaves values and no transcript (that is written last): taken back, tried again.
    const { events } = await store.readEvents(runId);
    if (events.length > 0 || (await store.readRunMeta(runId)))
      throw new InvalidInput(`run ${runId} is in ${store.root} already`);
    await store.deleteRun(runId);
  }
  const run = await client.query('SELECT name, started_at FROM runs WHERE run_id = $1', [runId]);
  if (run.rows.length === 0) throw new InvalidInput(`no run ${runId} in the team store`);
  const { rows: eventRows } = await client.query('SELECT event FROM events WHERE run_id = $1 ORDER BY seq', [runId]);
  const events = eventRows.map((r) => r.event as TranscriptEvent);
  const { rows: valueRows } = await client.query(
    `SELECT v.value_id, v.sha256, v.meta FROM run_values v JOIN blobs b USING (sha256)
     WHERE v.run_id = $1 AND b.complete ORDER BY v.value_id`,
    [runId],
  );
  const startedAt = run.rows[0].started_at as Date | null;
  try {
    await pullInto(client, store, runId, valueRows);
    await store.writeTranscript(runId, events);
    await store.ensureRunMeta(runId, run.rows[0].name as string, startedAt ? startedAt.toISOString() : undefined);
  } catch (err) {
    // Nothing half-pulled stays behind: a pull that failed can be tried again.
    await store.deleteRun(runId).catch(() => undefined);
    throw err;
  }
  return { runId, events: events.length, values: valueRows.length };
}

async function pullInto(
  client: ClientBase,
  store: FolderStore,
  runId: string,
  valueRows: Record<string, unknown>[],
): Promise<void> {
  for (const row of valueRows) {
    const meta = row.meta as ValueMeta;
    const staged = await store.values.stage(runId, blobChunks(client, row.sha256 as string));
    if (staged.sha256 !== row.sha256) {
      await store.values.discardStaged(staged);
      throw new Error(`value ${row.value_id}: the team store's bytes do not hash to ${row.sha256}`);
    }
    await store.values.place(
      staged,
      {
        runId,
        callId: meta.callId,
        tool: meta.tool,
        isError: meta.isError,
        ...(meta.subject ? { subject: meta.subject } : {}),
        stubFor: () => meta.stub,
      },
      row.value_id as string,
    );
  }
}
