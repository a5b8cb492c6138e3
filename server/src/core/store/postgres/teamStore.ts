/**
 * The team store: the store interface (runStore.ts) on PostgreSQL, with the schema of schema.ts.
 * This file holds its runs: a run's events are rows numbered from 0 (a position is that number),
 * its name and pin a row of `runs`, its withheld originals and audit records rows of their own.
 * Its values are teamValues.ts, its inspector indexes teamIndexes.ts. Each write, once
 * committed, is announced on CHANGES_CHANNEL, so every machine watching sees the run change while
 * it runs.
 *
 * Every id reaches SQL as a parameter; every row read back is checked before it is used.
 */
import { readFile, stat } from 'node:fs/promises';
import { type Client, type ClientBase, Pool, type PoolClient } from 'pg';
import type { TranscriptEvent } from '../../../../../shared/events';
import { isSanitizedId } from '../../../../../shared/ids';
import { InvalidInput } from '../../../../../shared/invalidInput';
import type { ReadResult, RunSummary } from '../../../../../shared/protocol';
import { indexBuffer, type LineIndex } from '../lineIndex';
import type { OpenValue } from '../lineReader';
import { checkedId } from '../naming';
import { StoreRefused, shownUrl } from '../open';
import type { AuditEntry, RunMeta, RunStore, StoreUse, TailRead } from '../runStore';
import { parseEvent } from '../storedEvent';
import { ClosingClient, connectionConfig, connectionWords, roleOf, storeError } from './connect';
import { schemaVersion } from './migrate';
import { CHANGES_CHANNEL, SCHEMA_VERSION } from './schema';
import { TeamIndexes } from './teamIndexes';
import { TeamValues } from './teamValues';
import { appendEvents, eventsJson, inTransaction } from './transfer';

/** Connections one process holds at most. */
const POOL_MAX = 4;
/** The most bytes of one withheld original a team store keeps (one row). */
const WITHHELD_MAX_BYTES = 256 << 20;
/** The most distinct runs notices are gathered for between two passes; past it, every run is looked at once. */
const NOTICES_HELD = 1000;
/** Notices are passed on at most this often. */
const NOTICE_EVERY_MS = 250;
/** A watcher that lost its connection tries again after this long. */
const RELISTEN_MS = 2000;

export class TeamStore implements RunStore {
  readonly where: string;
  readonly values: TeamValues;
  readonly indexes: TeamIndexes;
  readonly shared = true;
  readonly auditAt: string;
  readonly pool: Pool;
  private readonly user: string;
  /** Runs changed and committed, not yet announced; `announcing` is the pass that will. */
  private readonly unannounced = new Set<string>();
  private announcing: Promise<void> | undefined;

  constructor(private readonly url: string) {
    this.where = shownUrl(url);
    this.auditAt = `the audit table of ${this.where}`;
    this.user = roleOf(url);
    this.pool = new Pool({
      ...connectionConfig(url),
      Client: ClosingClient,
      max: POOL_MAX,
      // A command line ends when its work does: idle connections do not hold it.
      allowExitOnIdle: true,
    });
    // A connection dropped, idle or in use, is the error of the query using it, never an uncaught one.
    this.pool.on('error', () => undefined);
    this.pool.on('connect', (client) => client.on('error', () => undefined));
    this.values = new TeamValues(this);
    this.indexes = new TeamIndexes(this);
  }

  /** A query, with a database error said as a user reads it (a permission names the role). */
  async query(sql: string, params: unknown[] = [], client?: ClientBase): Promise<Record<string, unknown>[]> {
    try {
      return (await (client ?? this.pool).query(sql, params)).rows;
    } catch (err) {
      throw this.error(err);
    }
  }

  error(err: unknown): Error {
    const words = connectionWords(this.where, this.user, err);
    return words ? new StoreRefused(words) : storeError(err, this.user);
  }

  /** One client for a transaction, released however it ends. */
  async transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect().catch((err) => {
      throw this.error(err);
    });
    try {
      return await inTransaction(client, () => work(client));
    } catch (err) {
      throw err instanceof InvalidInput ? err : this.error(err);
    } finally {
      client.release();
    }
  }

  /** Checks that the schema is there and one this build reads. */
  async init(): Promise<void> {
    const client = await this.pool.connect().catch((err) => {
      throw this.error(err);
    });
    try {
      const version = await schemaVersion(client);
      if (version === 0)
        throw new InvalidInput(`${this.where} has no retained schema: run \`retained migrate --store <url>\` first`);
      if (version > SCHEMA_VERSION)
        throw new InvalidInput(
          `${this.where} is at schema version ${version}, newer than this retained (${SCHEMA_VERSION}): update retained`,
        );
      if (version < SCHEMA_VERSION)
        throw new InvalidInput(
          `${this.where} is at schema version ${version}: run \`retained migrate\` to bring it up`,
        );
    } catch (err) {
      throw err instanceof InvalidInput ? err : this.error(err);
    } finally {
      client.release();
    }
  }

  async close(): Promise<void> {
    this.values.closeScratch();
    await this.announcing;
    await this.pool.end().catch(() => undefined);
  }

  async listRunIds(): Promise<string[]> {
    const rows = await this.query(
      `SELECT r.run_id FROM runs r
       ORDER BY coalesce((SELECT max(at) FROM events e WHERE e.run_id = r.run_id), r.created_at) DESC, r.run_id`,
    );
    return rows.map((r) => r.run_id as string).filter(isSanitizedId);
  }

  async runExists(runId: string): Promise<boolean> {
    if (!isSanitizedId(runId)) return false;
    return (await this.query('SELECT 1 FROM runs WHERE run_id = $1', [runId])).length > 0;
  }

  async summarizeRun(runId: string): Promise<RunSummary> {
    const [row] = await this.query(
      `SELECT r.name, r.pinned, coalesce(r.started_at, r.created_at) AS started,
              e.updated, coalesce(e.bytes, 0)::bigint AS transcript_bytes,
              coalesce(v.n, 0)::bigint AS value_count, coalesce(v.bytes, 0)::bigint AS value_bytes,
              coalesce(v.kept_out, 0)::bigint AS kept_out
       FROM runs r
       LEFT JOIN LATERAL (SELECT max(at) AS updated, sum(octet_length(event::text) + 1) AS bytes
                          FROM events WHERE run_id = r.run_id) e ON true
       LEFT JOIN LATERAL (SELECT count(*) AS n, sum((meta->>'bytes')::bigint) AS bytes,
                                 sum(greatest(0, (meta->>'bytes')::bigint - octet_length(meta->>'stub'))) AS kept_out
                          FROM run_values WHERE run_id = r.run_id) v ON true
       WHERE r.run_id = $1`,
      [checkedId(runId, 'run')],
    );
    if (!row) throw new InvalidInput(`no run ${runId} in ${this.where}`);
    const started = row.started as Date;
    return {
      runId,
      name: typeof row.name === 'string' ? row.name : runId,
      startedAt: started.toISOString(),
      updatedAt: ((row.updated as Date | null) ?? started).toISOString(),
      transcriptBytes: Number(row.transcript_bytes),
      valueCount: Number(row.value_count),
      valueBytes: Number(row.value_bytes),
      keptOutBytes: Number(row.kept_out),
      pinned: row.pinned === true,
    };
  }

  async readRunMeta(runId: string): Promise<RunMeta | undefined> {
    const [row] = await this.query('SELECT name, created_at, started_at FROM runs WHERE run_id = $1', [runId]);
    if (!row || typeof row.name !== 'string') return undefined;
    return {
      name: row.name,
      createdAt: (row.created_at as Date).toISOString(),
      ...(row.started_at ? { startedAt: (row.started_at as Date).toISOString() } : {}),
    };
  }

  async ensureRunMeta(runId: string, name: string, startedAt?: string): Promise<void> {
    await this.query('INSERT INTO runs (run_id, name, started_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [
      checkedId(runId, 'run'),
      name,
      startedAt ?? null,
    ]);
  }

  async runsWithValue(valueId: string): Promise<string[]> {
    if (!isSanitizedId(valueId)) return [];
    const rows = await this.query(
      `SELECT v.run_id FROM run_values v JOIN blobs b USING (sha256) JOIN runs r USING (run_id)
       WHERE v.value_id = $1 AND b.complete ORDER BY r.created_at DESC, v.run_id`,
      [valueId],
    );
    return rows.map((r) => r.run_id as string);
  }

  /**
   * Announces that a run changed, after its change is committed: on a statement of its own, the
   * runs of one turn of the event loop together. Never inside the change's transaction: a
   * transaction that notifies takes one lock all such transactions share until its commit is on
   * disk, so a team's writers would commit one at a time.
   */
  changed(runId: string): void {
    this.unannounced.add(runId);
    this.announcing ??= new Promise<void>((next) => setImmediate(next)).then(async () => {
      const runs = [...this.unannounced];
      this.unannounced.clear();
      this.announcing = undefined;
      // A notice lost (the connection dropped) is found again: a watcher that listens again looks at every run.
      await this.pool
        .query('SELECT pg_notify($1, run) FROM unnest($2::text[]) AS run', [CHANGES_CHANNEL, runs])
        .catch(() => undefined);
    });
  }

  /**
   * Appends events after the run's last, making the run if it is new: one statement that holds
   * the run's lock only to its commit (the caller's transaction's, with `client`).
   */
  async append(runId: string, events: readonly TranscriptEvent[], client?: ClientBase): Promise<void> {
    await this.query('SELECT retained_append($1, $2::json)', [runId, eventsJson(events)], client);
  }

  async appendEvent(runId: string, event: TranscriptEvent): Promise<void> {
    await this.append(checkedId(runId, 'run'), [event]);
    this.changed(runId);
  }

  async writeTranscript(runId: string, events: readonly TranscriptEvent[], replace = false): Promise<void> {
    checkedId(runId, 'run');
    if (replace) return this.replaceTranscript(runId);
    await this.transaction((client) =>
      appendEvents(client, runId, events, 0, () => new InvalidInput(`run ${runId} has a transcript already`)),
    );
    this.changed(runId);
  }

  /** An advisory lock on the run held by a client of its own while `work` runs. */
  async locked<T>(runId: string, work: () => Promise<T>): Promise<T> {
    const client = await this.pool.connect().catch((err) => {
      throw this.error(err);
    });
    try {
      await this.query('SELECT pg_advisory_lock(hashtextextended($1, 1))', [checkedId(runId, 'run')], client);
      try {
        return await work();
      } finally {
        await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 1))', [runId]).catch(() => undefined);
      }
    } finally {
      client.release();
    }
  }

  /** A team store's transcripts are only appended to: its writers delete nothing. */
  async replaceTranscript(runId: string): Promise<void> {
    throw new InvalidInput(
      `run ${runId} in ${this.where} is only ever appended to: import the session under a new run id (--run)`,
    );
  }

  async readEvents(runId: string, from = 0, limit = Infinity): Promise<ReadResult> {
    const read = await this.readEventsFrom(runId, 0, 0, { from, limit });
    return { events: read.events, skipped: read.skipped };
  }

  async readFirstEvent(runId: string): Promise<TranscriptEvent | undefined> {
    return (await this.readEventsFrom(runId, 0, 0, { from: 0, limit: 1 })).events[0];
  }

  /** Events from sequence number `start` on; a position is an event's number, a "line" one event. */
  async readEventsFrom(
    runId: string,
    start = 0,
    lineBase = 0,
    page: { from: number; limit: number } = { from: 0, limit: Infinity },
  ): Promise<TailRead> {
    const result: TailRead = { events: [], skipped: [], offsets: [], end: start, lines: 0 };
    const first = start + page.from;
    const rows = await this.query(
      `SELECT seq, event::text AS text FROM events WHERE run_id = $1 AND seq >= $2 ${
        Number.isFinite(page.limit) ? 'AND seq < $3' : ''
      } ORDER BY seq`,
      Number.isFinite(page.limit) ? [runId, first, first + page.limit] : [runId, first],
    );
    for (const row of rows) {
      const seq = Number(row.seq);
      const parsed = parseEvent(row.text as string);
      if (typeof parsed === 'string') result.skipped.push({ line: lineBase + seq - start + 1, reason: parsed });
      else {
        result.events.push(parsed);
        result.offsets.push(seq);
      }
      result.end = seq + 1;
    }
    result.lines = result.end - start;
    return result;
  }

  async readEventsAt(runId: string, positions: readonly number[]): Promise<TranscriptEvent[] | undefined> {
    if (positions.length === 0) return [];
    const rows = await this.query(
      'SELECT seq, event::text AS text FROM events WHERE run_id = $1 AND seq = ANY($2::bigint[]) ORDER BY seq',
      [runId, positions],
    );
    if (rows.length !== positions.length) return undefined;
    const events: TranscriptEvent[] = [];
    for (const row of rows) {
      const parsed = parseEvent(row.text as string);
      if (typeof parsed === 'string') return undefined;
      events.push(parsed);
    }
    return events;
  }

  /** A run's transcript is never replaced here: its identity is when it was made, its size its events. */
  async transcriptStamp(runId: string): Promise<{ identity: number; size: number } | undefined> {
    const [row] = await this.query(
      `SELECT r.created_at, (SELECT coalesce(max(seq) + 1, 0) FROM events WHERE run_id = r.run_id)::bigint AS n
       FROM runs r WHERE r.run_id = $1`,
      [runId],
    );
    if (!row || Number(row.n) === 0) return undefined;
    return { identity: (row.created_at as Date).getTime(), size: Number(row.n) };
  }

  async audit(record: AuditEntry): Promise<void> {
    await this.query('INSERT INTO audit (entry) VALUES ($1::jsonb)', [
      JSON.stringify({ ts: new Date().toISOString(), ...record }),
    ]);
  }

  /**
   * LISTEN on its own connection; a lost one is listened on again, and the runs it missed are said
   * changed. Any login may NOTIFY (PostgreSQL asks no privilege), so notices are untrusted: they
   * are gathered (at most NOTICES_HELD distinct runs, past that one pass over every run instead),
   * passed on at most once per NOTICE_EVERY_MS, and only for runs the store holds.
   */
  watch(
    changed: (runId: string) => void,
    reached: (problem: string | undefined) => void = () => undefined,
  ): { start(): void; dispose(): void } {
    let client: Client | undefined;
    // Said only when it changes: a database down for an hour is one notice, not one per retry.
    let said: string | undefined | null = null;
    const say = (problem: string | undefined) => {
      if (disposed || problem === said) return;
      said = problem;
      reached(problem);
    };
    let disposed = false;
    let timer: NodeJS.Timeout | undefined;
    let flushing: NodeJS.Timeout | undefined;
    let pending = new Set<string>();
    let overflow = false;
    const flush = async () => {
      flushing = undefined;
      const ids = [...pending];
      const all = overflow;
      pending = new Set();
      overflow = false;
      if (disposed) return;
      if (all) return everyRun();
      const known = await this.query('SELECT run_id FROM runs WHERE run_id = ANY($1::text[])', [ids]).catch(() => []);
      for (const row of known) changed(String(row.run_id));
    };
    const notice = (runId: string) => {
      if (overflow) return;
      if (pending.size >= NOTICES_HELD) {
        overflow = true;
        pending.clear();
      } else pending.add(runId);
      flushing ??= setTimeout(() => void flush(), NOTICE_EVERY_MS);
    };
    const listen = async () => {
      if (disposed || client) return;
      const next = new ClosingClient({ ...connectionConfig(this.url), application_name: 'retained watch' });
      client = next;
      const again = (err?: unknown) => {
        if (client !== next) return;
        say(this.error(err ?? new Error('Connection ended unexpectedly')).message);
        client = undefined;
        void next.end().catch(() => undefined);
        if (!disposed) timer = setTimeout(() => void listen().then(everyRun), RELISTEN_MS);
      };
      next.on('error', again);
      next.on('end', () => again());
      next.on('notification', (message) => {
        if (message.channel === CHANGES_CHANNEL && message.payload && isSanitizedId(message.payload))
          notice(message.payload);
      });
      try {
        await next.connect();
        await next.query(`LISTEN ${CHANGES_CHANNEL}`);
        say(undefined);
      } catch (err) {
        again(err);
      }
    };
    const everyRun = async () => {
      for (const runId of await this.listRunIds().catch(() => [])) changed(runId);
    };
    return {
      start: () => void listen(),
      dispose: () => {
        disposed = true;
        clearTimeout(timer);
        clearTimeout(flushing);
        const last = client;
        client = undefined;
        void last?.end().catch(() => undefined);
      },
    };
  }

  async fingerprint(runId: string): Promise<string> {
    const [row] = await this.query(
      `SELECT (SELECT coalesce(max(seq) + 1, 0) FROM events WHERE run_id = $1)::bigint AS events,
              (SELECT count(*) FROM run_values WHERE run_id = $1)::bigint AS values,
              (SELECT pinned FROM runs WHERE run_id = $1) AS pinned`,
      [runId],
    );
    return `${row?.events}:${row?.values}:${row?.pinned}`;
  }

  /** A withheld original as a row, whole or not at all; a name is never taken twice. */
  async keepWithheld(name: string, runId: string, original: { text: string } | { file: string }): Promise<void> {
    let data: Buffer;
    if ('text' in original) data = Buffer.from(original.text, 'utf8');
    else {
      const { size } = await stat(original.file);
      if (size > WITHHELD_MAX_BYTES)
        throw new Error(`an original of ${size} bytes is over the ${WITHHELD_MAX_BYTES} a team store keeps in one row`);
      data = await readFile(original.file);
    }
    await this.query('INSERT INTO withheld (name, run_id, data) VALUES ($1, $2, $3)', [
      checkedId(name, 'value'),
      runId,
      data,
    ]);
  }

  /** Only a role granted SELECT on `withheld` reads one (neither readers nor writers are). */
  async openWithheld(name: string): Promise<{ open: OpenValue; index: LineIndex; bytes: number }> {
    const missing = new InvalidInput(`no withheld original ${JSON.stringify(name)} in ${this.where}`);
    if (!isSanitizedId(name)) throw missing;
    const [row] = await this.query('SELECT data FROM withheld WHERE name = $1', [name]);
    if (!row) throw missing;
    const data = row.data as Buffer;
    const open: OpenValue = async () => ({
      read: async (buffer, offset, length, position) => ({
        bytesRead: data.copy(buffer, offset, position, Math.min(data.length, position + length)),
      }),
      close: async () => undefined,
    });
    return { open, index: indexBuffer(data), bytes: data.length };
  }

  /**
   * Each run's transcript and the blobs its values name (a blob shared by several values counts
   * once, freed with the last of them), from two queries; the withheld originals a role may count.
   */
  async measure(): Promise<StoreUse> {
    const runs = await this.query(
      `SELECT r.run_id, r.pinned, extract(epoch FROM coalesce(e.last, r.created_at)) * 1000 AS last_ms,
              coalesce(e.bytes, 0)::bigint AS bytes
       FROM runs r LEFT JOIN LATERAL (SELECT max(at) AS last, sum(octet_length(event::text) + 1) AS bytes
                                      FROM events WHERE run_id = r.run_id) e ON true`,
    );
    const values = await this.query('SELECT v.run_id, v.sha256, b.bytes FROM run_values v JOIN blobs b USING (sha256)');
    const links = new Map<string, number>();
    for (const v of values) links.set(v.sha256 as string, (links.get(v.sha256 as string) ?? 0) + 1);
    const use: StoreUse = { bytes: 0, runs: new Map(), withheld: 0 };
    for (const r of runs) {
      const runId = r.run_id as string;
      const bytes = Number(r.bytes);
      use.bytes += bytes;
      use.runs.set(runId, {
        runId,
        lastWriteMs: Number(r.last_ms),
        pinned: r.pinned === true,
        files: [{ inode: `events:${runId}`, size: bytes, links: 1 }],
      });
    }
    const counted = new Set<string>();
    for (const v of values) {
      const sha = v.sha256 as string;
      const size = Number(v.bytes);
      if (!counted.has(sha)) use.bytes += size;
      counted.add(sha);
      use.runs.get(v.run_id as string)?.files.push({ inode: sha, size, links: links.get(sha)! });
    }
    // Counted only by a role that may read them (a query naming the table is refused as a whole).
    const [may] = await this.query(`SELECT has_table_privilege('withheld', 'SELECT') AS may`);
    if (may?.may === true) use.withheld = Number((await this.query('SELECT count(*) AS n FROM withheld'))[0]?.n ?? 0);
    return use;
  }

  async runNow(runId: string): Promise<{ lastWriteMs: number; pinned: boolean }> {
    const [row] = await this.query(
      `SELECT r.pinned, extract(epoch FROM coalesce((SELECT max(at) FROM events WHERE run_id = r.run_id), r.created_at)) * 1000 AS last_ms
       FROM runs r WHERE r.run_id = $1`,
      [runId],
    );
    return { lastWriteMs: Number(row?.last_ms ?? 0), pinned: row?.pinned === true };
  }

  /** A writer deletes nothing: removing runs is a role granted DELETE on them (an administrator's). */
  async whyNoRemoval(): Promise<string | undefined> {
    const [row] = await this.query(
      `SELECT has_table_privilege('runs', 'DELETE') AND has_table_privilege('blobs', 'DELETE') AS may`,
    );
    if (row?.may === true) return undefined;
    return `the role ${this.user} may not remove runs from ${this.where}: a clean-up of a team store is an administrator's (a role granted DELETE on its tables); writers and readers delete nothing`;
  }

  /**
   * Blobs no value names, once no writer can still be about to name them: a blob uploaded in the
   * last hour stays (its value's row may be on its way; the row's foreign key fails if it went).
   */
  async collectGarbage(): Promise<void> {
    await this.query(
      `DELETE FROM blobs b WHERE b.created_at < now() - interval '1 hour'
       AND NOT EXISTS (SELECT 1 FROM run_values v WHERE v.sha256 = b.sha256)`,
    );
  }

  async isPinned(runId: string): Promise<boolean> {
    const [row] = await this.query('SELECT pinned FROM runs WHERE run_id = $1', [runId]);
    return row?.pinned === true;
  }

  async setPinned(runId: string, pinned: boolean): Promise<void> {
    await this.query('UPDATE runs SET pinned = $2 WHERE run_id = $1', [runId, pinned]);
    this.changed(runId);
  }

  /** Only a role granted DELETE (an administrator's) removes runs: a writer's attempt names what it lacks. */
  async deleteRun(runId: string): Promise<void> {
    await this.query('DELETE FROM runs WHERE run_id = $1', [runId]);
    this.changed(runId);
  }

  async deleteRunIf(runId: string, still: () => Promise<boolean>): Promise<boolean> {
    return this.locked(runId, async () => {
      if (!(await still())) return false;
      await this.deleteRun(runId);
      return true;
    });
  }
}
