/**
 * The on-disk store, laid out as layout.ts says. Nothing is created before the first write. A value is written once: to a temp file in its
 * folder (named after the writing process, so a crash's leftovers are known as such), fsynced,
 * then linked to its final name, which fails if the name is taken: a reader never sees a
 * partial value, and no writer, in this process or another, replaces a value a stub points at.
 * No file is opened through a link (see safeFs.ts).
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { CallSubject } from '../../../../shared/callSubject';
import type { TranscriptEvent } from '../../../../shared/events';
import { isSanitizedId, sanitizeId } from '../../../../shared/ids';
import type { RunSummary, ValueMeta } from '../../../../shared/protocol';
import { utf8Bytes } from '../text/bytes';
import { Blobs, fileSha256 } from './blobs';
import {
  GITIGNORE,
  isTemp,
  isValuesDir,
  RUN_FILE,
  RUNS_DIR,
  runFile,
  tempPath,
  tempWriter,
  VALUE_EXT,
  valueFileName,
} from './layout';
import { indexFile, type LineIndex, LineIndexBuilder, parseIndex, serializeIndex } from './lineIndex';
import { RunLocks } from './runLock';
import {
  CREATE_NEW,
  listDir,
  makeDir,
  openFile,
  READ,
  readFile,
  readFilesIn,
  realDir,
  statFile,
  statFilesIn,
} from './safeFs';
import { appendEvent, writeEvents } from './transcript';

/** What the store keeps about a run beside its transcript. */
export interface RunMeta {
  /** The id as the writer gave it (`feature/x`), before sanitizing; the run's display name. */
  name: string;
  createdAt: string;
  /** When the run itself began, where that is earlier than its first write here (an imported session). */
  startedAt?: string;
}

/** A value's bytes in a temp file, with what placing it needs. */
export interface StagedValue {
  runId: string;
  tmp: string;
  bytes: number;
  sha256: string;
  index: LineIndex;
}

/** What a value is placed as: its run and call, and the stub it stands for once its id is known. */
export interface NewValue {
  runId: string;
  callId: string;
  tool: string;
  isError: boolean;
  subject?: CallSubject;
  stubFor: (valueId: string) => string;
}

/** A temp file of a live process may still be written; past this age it is a leftover anyway. */
const TEMP_MAX_AGE_MS = 24 * 60 * 60 * 1000;
/** Bytes of a staged value gathered into one write. */
const STAGE_BATCH_BYTES = 1 << 20;
/**
 * Bytes of a staged value written between two flushes to disk, each started in the background
 * as the writing goes on: the last sync of a big value then waits for its end only.
 */
const SYNC_EVERY_BYTES = 16 << 20;
/** A value's metadata sidecar holds a stub of a few KB; a bigger one is not ours and is not read. */
const META_MAX_BYTES = 1 << 20;

export class Store {
  readonly runsDir: string;
  private readonly indexCache = new Map<string, LineIndex>();
  readonly blobs: Blobs;
  private readonly locks: RunLocks;

  constructor(readonly root: string) {
    this.runsDir = join(root, RUNS_DIR);
    this.blobs = new Blobs(root);
    this.locks = new RunLocks(root);
  }

  /** Opens an existing store: removes the temp files crashed writers left. Creates nothing. */
  async init(): Promise<void> {
    await this.sweepTempFiles();
  }

  /** Makes the root, its `.gitignore` and `runs/`, on the first write. */
  async ensureWritable(): Promise<void> {
    await fs.mkdir(this.root, { recursive: true });
    await makeDir(this.root, this.runsDir);
    const gitignore = join(this.root, GITIGNORE);
    const handle = await openFile(this.root, gitignore, CREATE_NEW).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
      return undefined;
    });
    if (handle) {
      await handle.writeFile('*\n');
      await handle.close();
    }
  }

  /** Run ids are sanitized once, where they enter; here they must already be. */
  transcriptPath(runId: string): string {
    return runFile(this.runsDir, checkedId(runId, 'run'), 'transcript');
  }

  valuesDir(runId: string): string {
    return runFile(this.runsDir, checkedId(runId, 'run'), 'values');
  }

  private runMetaPath(runId: string): string {
    return runFile(this.runsDir, checkedId(runId, 'run'), 'meta');
  }

  valuePath(runId: string, valueId: string): string {
    return join(this.valuesDir(runId), valueFileName(checkedId(valueId, 'value'), 'text'));
  }

  private sidecar(runId: string, valueId: string, kind: 'index' | 'meta'): string {
    return join(this.valuesDir(runId), valueFileName(checkedId(valueId, 'value'), kind));
  }

  /** The run's meta; a run written before metas existed is named by its id. */
  async readRunMeta(runId: string): Promise<RunMeta | undefined> {
    try {
      const meta = JSON.parse(
        (await readFile(this.root, this.runMetaPath(runId))).toString('utf8'),
      ) as Partial<RunMeta>;
      if (typeof meta.name === 'string' && typeof meta.createdAt === 'string') {
        return {
          name: meta.name,
          createdAt: meta.createdAt,
          ...(typeof meta.startedAt === 'string' ? { startedAt: meta.startedAt } : {}),
        };
      }
    } catch {
      // missing or torn: the id stands in
    }
    return undefined;
  }

  /** Records the run's name once, when it is first written to. */
  async ensureRunMeta(runId: string, name: string, startedAt?: string): Promise<void> {
    await this.ensureWritable();
    const handle = await openFile(this.root, this.runMetaPath(runId), CREATE_NEW).catch(
      (err: NodeJS.ErrnoException) => {
        if (err.code !== 'EEXIST') throw err;
        return undefined;
      },
    );
    if (!handle) return;
    try {
      await handle.writeFile(
        JSON.stringify({
          name,
          createdAt: new Date().toISOString(),
          ...(startedAt ? { startedAt } : {}),
        } satisfies RunMeta),
      );
    } finally {
      await handle.close();
    }
  }

  /** Whether the run has a transcript or values. */
  async runExists(runId: string): Promise<boolean> {
    if (!isSanitizedId(runId)) return false;
    if (!(await realDir(this.runsDir).catch(() => false))) return false;
    if (await statFile(this.root, this.transcriptPath(runId)).catch(() => undefined)) return true;
    return realDir(this.valuesDir(runId)).catch(() => false);
  }

  /**
   * Writes a value's bytes to a temp file in its run's folder, fsynced, with its hash and line
   * index, without placing it: the caller places it (or reads it back, or discards it) once it
   * knows what it is. `onPart` sees every piece, in order (a scan of a streamed result); a piece
   * must not change once given. Throws after removing what it wrote.
   */
  async stageValue(
    runId: string,
    parts: Iterable<Buffer> | AsyncIterable<Buffer>,
    onPart?: (part: Buffer) => void | Promise<void>,
  ): Promise<StagedValue> {
    await this.ensureWritable();
    const dir = this.valuesDir(runId);
    await makeDir(this.root, dir);
    const tmp = tempPath(dir);
    const builder = new LineIndexBuilder();
    const hash = createHash('sha256');
    let bytes = 0;
    const handle = await openFile(this.root, tmp, CREATE_NEW);
    let writing: Promise<void> = Promise.resolve();
    let syncing: Promise<void> = Promise.resolve();
    let unsynced = 0;
    try {
      try {
        // Each piece is hashed, indexed and scanned as it comes (a pipe gives 64 KiB at a time:
        // the command goes on writing meanwhile), and written in batches, one while the next is
        // gathered: the disk and the CPU both busy.
        let batch: Buffer[] = [];
        let batched = 0;
        const flush = async () => {
          if (batched === 0) return;
          const pieces = batch;
          const size = batched;
          batch = [];
          batched = 0;
          await writing;
          writing = writeAll(handle, pieces);
          // Awaited by the next batch or the end; a failure meanwhile is not unhandled.
          writing.catch(() => undefined);
          unsynced += size;
          if (unsynced >= SYNC_EVERY_BYTES) {
            unsynced = 0;
            await syncing;
            syncing = writing.then(() => handle.datasync());
            syncing.catch(() => undefined);
          }
        };
        for await (const part of parts) {
          if (part.length === 0) continue;
          builder.push(part);
          hash.update(part);
          await onPart?.(part);
          bytes += part.length;
          batch.push(part);
          batched += part.length;
          if (batched >= STAGE_BATCH_BYTES) await flush();
        }
        await flush();
        await writing;
        await syncing;
        // A value is never changed, and may share its bytes with others (blobs.ts): read-only.
        await handle.chmod(0o444);
        await handle.sync();
      } finally {
        await writing.catch(() => undefined);
        await syncing.catch(() => undefined);
        await handle.close();
      }
    } catch (err) {
      await fs.rm(tmp, { force: true });
      throw err;
    }
    return { runId, tmp, bytes, sha256: hash.digest('hex'), index: builder.finish() };
  }

  /** A staged value's text (a streamed result that turned out small); the temp file stays until placed or discarded. */
  async readStaged(staged: StagedValue): Promise<string> {
    return (await readFile(this.root, staged.tmp)).toString('utf8');
  }

  async discardStaged(staged: StagedValue): Promise<void> {
    await fs.rm(staged.tmp, { force: true });
  }

  /**
   * Places a staged value once, under the call's id; when that name holds other bytes (a call
   * id used twice, or two writers at once), under a name made of the call id and the hash. The
   * same bytes under a taken name are the same value: it is reused. With `valueId`, only that
   * name. The temp file is gone afterwards, placed or not; throws when no name can be had.
   */
  async placeValue(staged: StagedValue, value: NewValue, valueId?: string): Promise<ValueMeta> {
    const { tmp, sha256, index, bytes } = staged;
    const dir = this.valuesDir(value.runId);
    try {
      const names = valueId ? [valueId] : [sanitizeId(value.callId), sanitizeId(`${value.callId}\u0000${sha256}`)];
      for (const valueId of names) {
        const target = this.valuePath(value.runId, valueId);
        // Bytes the store already holds (a re-read lock file) are linked, not written again.
        const shared = await this.blobs.find(sha256, bytes);
        const placed = await linkValue(shared ?? tmp, tmp, target).then(
          () => true,
          (err: NodeJS.ErrnoException) => {
            if (err.code === 'EEXIST') return false;
            throw err;
          },
        );
        if (!placed && (await fileSha256(this.root, target)) !== sha256) continue; // other bytes: the next name
        if (placed) await syncDir(dir);
        if (placed && !shared) await this.blobs.record(sha256, target);
        const meta: ValueMeta = {
          runId: value.runId,
          valueId,
          callId: value.callId,
          tool: value.tool,
          bytes,
          lines: index.lines,
          sha256,
          isError: value.isError,
          ...(value.subject ? { subject: value.subject } : {}),
          createdAt: new Date().toISOString(),
          stub: value.stubFor(valueId),
        };
        if (placed) {
          // Sidecars are derivable from the value, so they skip the fsyncs.
          await this.writeSidecar(value.runId, this.sidecar(value.runId, valueId, 'index'), serializeIndex(index));
          await this.writeSidecar(
            value.runId,
            this.sidecar(value.runId, valueId, 'meta'),
            Buffer.from(JSON.stringify(meta)),
          );
          this.indexCache.set(target, index);
          return meta;
        }
        return this.readMeta(value.runId, valueId);
      }
      throw new Error(
        `other bytes hold the value name${names.length > 1 ? 's' : ''} of call ${JSON.stringify(value.callId.slice(0, 80))}`,
      );
    } finally {
      await fs.rm(tmp, { force: true });
    }
  }

  /** Temp file → rename: a sidecar is whole or absent (it may be replaced: it is derived). */
  private async writeSidecar(runId: string, target: string, data: Buffer): Promise<void> {
    const tmp = tempPath(this.valuesDir(runId));
    const handle = await openFile(this.root, tmp, CREATE_NEW);
    try {
      try {
        await handle.writeFile(data);
      } finally {
        await handle.close();
      }
      await fs.rename(tmp, target);
    } catch (err) {
      await fs.rm(tmp, { force: true });
      throw err;
    }
  }

  async valueExists(runId: string, valueId: string): Promise<boolean> {
    try {
      return (await statFile(this.root, this.valuePath(runId, valueId)))?.isFile() === true;
    } catch {
      return false;
    }
  }

  /** The value's line index: cached, else read from its sidecar, else rebuilt by streaming. */
  async lineIndex(runId: string, valueId: string): Promise<LineIndex> {
    const path = this.valuePath(runId, valueId);
    const stat = await statFile(this.root, path);
    if (!stat?.isFile()) throw new Error(`value ${valueId} of run ${runId} is not there`);
    const cached = this.indexCache.get(path);
    if (cached && cached.bytes === stat.size) return cached;
    const idxPath = this.sidecar(runId, valueId, 'index');
    let index = await readFile(this.root, idxPath).then(
      (data) => parseIndex(data, stat.size),
      () => undefined,
    );
    if (!index) {
      const handle = await openFile(this.root, path, READ);
      try {
        index = await indexFile(handle);
      } finally {
        await handle.close();
      }
      await this.writeSidecar(runId, idxPath, serializeIndex(index)).catch(() => undefined);
    }
    this.indexCache.set(path, index);
    return index;
  }

  /** Metadata of one value; a value some other tool dropped in gets what the file itself tells. */
  async readMeta(runId: string, valueId: string): Promise<ValueMeta> {
    const path = this.valuePath(runId, valueId);
    const stat = await statFile(this.root, path);
    if (!stat?.isFile()) throw new Error(`value ${valueId} of run ${runId} is not there`);
    try {
      const meta = sidecarMeta(
        (await readFile(this.root, this.sidecar(runId, valueId, 'meta'))).toString('utf8'),
        runId,
        valueId,
        stat.size,
      );
      if (meta) return meta;
    } catch {
      // fall through: describe the file as it is
    }
    const index = await this.lineIndex(runId, valueId);
    return {
      runId,
      valueId,
      callId: valueId,
      tool: 'unknown',
      bytes: stat.size,
      lines: index.lines,
      sha256: '',
      isError: false,
      createdAt: stat.mtime.toISOString(),
      stub: '',
    };
  }

  /** The first bytes and lines of a value, for a view that shows its start. */
  async readHead(runId: string, valueId: string, maxBytes: number): Promise<string> {
    const handle = await openFile(this.root, this.valuePath(runId, valueId), READ);
    try {
      const buffer = Buffer.alloc(maxBytes + 4);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      return buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
  }

  /** Run ids that have a transcript or a values folder, newest first. */
  async listRunIds(): Promise<string[]> {
    if (!(await realDir(this.runsDir).catch(() => false))) return [];
    const names = await listDir(this.root, this.runsDir);
    const ids = new Set<string>();
    for (const name of names) {
      const match = RUN_FILE.exec(name);
      if (match) ids.add(match[1]!);
    }
    const withTimes = await Promise.all([...ids].map(async (id) => ({ id, time: await this.runTime(id) })));
    return withTimes.sort((a, b) => b.time - a.time || a.id.localeCompare(b.id)).map((r) => r.id);
  }

  private async runTime(runId: string): Promise<number> {
    for (const path of [this.transcriptPath(runId), this.valuesDir(runId)]) {
      const stat = await fs.lstat(path).catch(() => undefined);
      if (stat) return stat.birthtimeMs || stat.mtimeMs;
    }
    return 0;
  }

  async summarizeRun(runId: string): Promise<RunSummary> {
    const transcript = await statFile(this.root, this.transcriptPath(runId)).catch(() => undefined);
    const values = await this.listValues(runId);
    const meta = await this.readRunMeta(runId);
    const started = meta
      ? Date.parse(meta.startedAt ?? meta.createdAt)
      : transcript
        ? transcript.birthtimeMs || transcript.mtimeMs
        : await this.runTime(runId);
    return {
      runId,
      name: meta?.name ?? runId,
      startedAt: new Date(started).toISOString(),
      updatedAt: new Date(transcript?.mtimeMs ?? started).toISOString(),
      transcriptBytes: transcript?.size ?? 0,
      valueCount: values.length,
      valueBytes: values.reduce((sum, v) => sum + v.bytes, 0),
      keptOutBytes: values.reduce((sum, v) => sum + Math.max(0, v.bytes - utf8Bytes(v.stub)), 0),
      pinned: await this.isPinned(runId),
    };
  }

  /** Value ids and sizes in a run, from the folder alone (cheap: one readdir and a stat each). */
  async listValueFiles(runId: string): Promise<{ valueId: string; bytes: number; mtimeMs: number }[]> {
    const dir = this.valuesDir(runId);
    if (!(await realDir(this.runsDir).catch(() => false)) || !(await realDir(dir).catch(() => false))) return [];
    const ids: string[] = [];
    for (const name of await listDir(this.root, dir)) {
      if (!name.endsWith(VALUE_EXT) || name.startsWith('.')) continue;
      const valueId = name.slice(0, -VALUE_EXT.length);
      if (isSanitizedId(valueId)) ids.push(valueId);
    }
    const stats = await statFilesIn(
      this.root,
      dir,
      ids.map((valueId) => `${valueId}${VALUE_EXT}`),
    );
    // A value that shares its bytes with another (blobs.ts) shares its inode's times too: its own
    // sidecar, written when it was placed, says when it came.
    const shared: number[] = [];
    stats.forEach((stat, i) => {
      if ((stat?.nlink ?? 1) > 1) shared.push(i);
    });
    const sidecars = await statFilesIn(
      this.root,
      dir,
      shared.map((i) => valueFileName(ids[i]!, 'meta')),
    );
    const times = new Map(shared.map((i, k) => [i, sidecars[k]?.mtimeMs]));
    const out: { valueId: string; bytes: number; mtimeMs: number }[] = [];
    ids.forEach((valueId, i) => {
      const stat = stats[i];
      if (stat) out.push({ valueId, bytes: stat.size, mtimeMs: times.get(i) ?? stat.mtimeMs });
    });
    return out.sort((a, b) => a.mtimeMs - b.mtimeMs || (a.valueId < b.valueId ? -1 : a.valueId > b.valueId ? 1 : 0));
  }

  async listValues(runId: string): Promise<ValueMeta[]> {
    return this.readMetas(runId, await this.listValueFiles(runId));
  }

  /**
   * The metadata of listed values, read together (a page of the tree). A value whose sidecar is
   * missing or does not match its file is described from the file, as readMeta does.
   */
  async readMetas(runId: string, files: readonly { valueId: string; bytes: number }[]): Promise<ValueMeta[]> {
    const sidecars = await readFilesIn(
      this.root,
      this.valuesDir(runId),
      files.map((f) => valueFileName(f.valueId, 'meta')),
      META_MAX_BYTES,
    );
    return Promise.all(
      files.map(async (file, i) => {
        const meta = sidecarMeta(sidecars[i]?.toString('utf8') ?? '', runId, file.valueId, file.bytes);
        return meta ?? this.readMeta(runId, file.valueId);
      }),
    );
  }

  /** Every run holding a value with this id. */
  async runsWithValue(valueId: string): Promise<string[]> {
    const runs = await this.listRunIds();
    const found: string[] = [];
    for (const runId of runs) if (await this.valueExists(runId, valueId)) found.push(runId);
    return found;
  }

  async deleteValue(runId: string, valueId: string): Promise<void> {
    const path = this.valuePath(runId, valueId);
    this.indexCache.delete(path);
    // rm removes a link itself, never what it points at.
    await Promise.all(
      [path, this.sidecar(runId, valueId, 'index'), this.sidecar(runId, valueId, 'meta')].map((p) =>
        fs.rm(p, { force: true }),
      ),
    );
  }

  /** Forgets cached indexes of a run, after another process changed it. */
  dropCachesFor(runId: string): void {
    const prefix = `${this.valuesDir(runId)}/`;
    for (const key of this.indexCache.keys()) if (key.startsWith(prefix)) this.indexCache.delete(key);
  }

  /**
   * Changes a run's files holding its lock: no other process appends to it, replaces its
   * transcript, removes it or pins it meanwhile (see runLock.ts).
   */
  async locked<T>(runId: string, work: () => Promise<T>): Promise<T> {
    await this.ensureWritable();
    return this.locks.with(runFile(this.runsDir, checkedId(runId, 'run'), 'lock'), work);
  }

  /** Appends one event to the run's transcript, under its lock. */
  appendEvent(runId: string, event: TranscriptEvent): Promise<void> {
    return this.locked(runId, () => appendEvent(this.root, this.transcriptPath(runId), event));
  }

  /**
   * Writes a run's whole transcript at once, under its lock: a new run's (failing if it has one),
   * or, with `replace`, in place of the one it has (an import enriching a live run), atomically.
   */
  writeTranscript(runId: string, events: readonly TranscriptEvent[], replace = false): Promise<void> {
    return this.locked(runId, () => writeEvents(this.root, this.transcriptPath(runId), events, replace));
  }

  /** Removes a whole run, under its lock. */
  deleteRun(runId: string): Promise<void> {
    return this.locked(runId, () => this.removeRunFiles(runId));
  }

  /**
   * Removes a whole run if `still` says so once its lock is held (a clean-up's compare and
   * remove: a run written to or pinned since the plan was made stays). Returns whether it went.
   */
  deleteRunIf(runId: string, still: () => Promise<boolean>): Promise<boolean> {
    return this.locked(runId, async () => {
      if (!(await still())) return false;
      await this.removeRunFiles(runId);
      return true;
    });
  }

  private async removeRunFiles(runId: string): Promise<void> {
    this.dropCachesFor(runId);
    // A values folder that is a link is removed as the link; one that is a folder, with its files.
    await fs.rm(this.valuesDir(runId), { recursive: true, force: true });
    await fs.rm(this.transcriptPath(runId), { force: true });
    await fs.rm(this.runMetaPath(runId), { force: true });
    await fs.rm(this.pinPath(runId), { force: true });
    await fs.rm(this.runIndexPath(runId), { force: true });
  }

  /** The run's inspector index (inspection/runIndex.ts): derived, rebuilt when missing. */
  runIndexPath(runId: string): string {
    return runFile(this.runsDir, checkedId(runId, 'run'), 'index');
  }

  pinPath(runId: string): string {
    return runFile(this.runsDir, checkedId(runId, 'run'), 'pin');
  }

  async isPinned(runId: string): Promise<boolean> {
    return (await statFile(this.root, this.pinPath(runId)).catch(() => undefined))?.isFile() === true;
  }

  /** Keeps a run from clean-ups (a marker file), or lets them remove it again; under the run's lock. */
  setPinned(runId: string, pinned: boolean): Promise<void> {
    return this.locked(runId, async () => {
      if (!pinned) return void (await fs.rm(this.pinPath(runId), { force: true }));
      const handle = await openFile(this.root, this.pinPath(runId), CREATE_NEW).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'EEXIST') throw err;
        return undefined;
      });
      await handle?.close();
    });
  }

  /** Temp files of the store, with whether their writer is gone (a crash left them). */
  async tempFiles(): Promise<{ path: string; bytes: number; stale: boolean }[]> {
    if (!(await realDir(this.runsDir).catch(() => false))) return [];
    const out: { path: string; bytes: number; stale: boolean }[] = [];
    const visit = async (dir: string) => {
      for (const name of await listDir(this.root, dir).catch(() => [] as string[])) {
        const path = join(dir, name);
        const stat = await fs.lstat(path).catch(() => undefined);
        if (!stat) continue;
        if (stat.isDirectory() && isValuesDir(name)) await visit(path);
        else if (stat.isFile() && isTemp(name)) {
          out.push({
            path,
            bytes: stat.size,
            stale: !writerAlive(name) || Date.now() - stat.mtimeMs > TEMP_MAX_AGE_MS,
          });
        }
      }
    };
    await visit(this.runsDir);
    return out;
  }

  /** Removes the temp files whose writer is gone; returns how many and their bytes. */
  async sweepTempFiles(): Promise<{ files: number; bytes: number }> {
    let files = 0;
    let bytes = 0;
    for (const temp of await this.tempFiles()) {
      if (!temp.stale) continue;
      await fs.rm(temp.path, { force: true });
      files++;
      bytes += temp.bytes;
    }
    return { files, bytes };
  }
}

/** The pid in a temp file's name (`.tmp-<pid>-…`, `….jsonl.tmp-<pid>-…`) is a live process. */
function writerAlive(name: string): boolean {
  const pid = tempWriter(name);
  if (pid === undefined) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Links a value's name to `source` (a shared blob), or to its own temp file when the blob went meanwhile. */
async function linkValue(source: string, tmp: string, target: string): Promise<void> {
  try {
    await fs.link(source, target);
  } catch (err) {
    if (source === tmp || (err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    await fs.link(tmp, target);
  }
}

async function syncDir(dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r').catch(() => undefined);
  if (!handle) return;
  await handle.sync().catch(() => undefined);
  await handle.close();
}

function checkedId(id: string, what: 'run' | 'value'): string {
  if (!isSanitizedId(id)) throw new Error(`not a valid ${what} id: ${JSON.stringify(id.slice(0, 80))}`);
  return id;
}

/**
 * A value's metadata from its sidecar, when it is well formed and describes a file of `bytes`:
 * a store may come from anywhere, so each field is checked before a view shows it.
 */
function sidecarMeta(json: string, runId: string, valueId: string, bytes: number): ValueMeta | undefined {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (!raw || typeof raw !== 'object' || raw.bytes !== bytes) return undefined;
  const { callId, tool, lines, sha256, isError, createdAt, stub, subject } = raw;
  if (
    typeof callId !== 'string' ||
    typeof tool !== 'string' ||
    typeof lines !== 'number' ||
    typeof sha256 !== 'string' ||
    typeof isError !== 'boolean' ||
    typeof createdAt !== 'string' ||
    typeof stub !== 'string'
  )
    return undefined;
  const s = subject as Partial<CallSubject> | undefined;
  const checked =
    s && typeof s === 'object' && typeof s.text === 'string' && s.text.length <= 200
      ? { subject: { text: s.text, isFile: s.isFile === true } }
      : {};
  return { runId, valueId, callId, tool, bytes, lines, sha256, isError, ...checked, createdAt, stub };
}

/** Writes all of `pieces` at the file's position: a write may take fewer bytes than it is given. */
async function writeAll(handle: FileHandle, pieces: Buffer[]): Promise<void> {
  for (let rest = pieces; rest.length > 0; ) {
    let { bytesWritten } = await handle.writev(rest);
    if (bytesWritten === 0) throw new Error('the file took no bytes');
    while (rest.length > 0 && bytesWritten >= rest[0]!.length) {
      bytesWritten -= rest[0]!.length;
      rest = rest.slice(1);
    }
    if (bytesWritten > 0) rest = [rest[0]!.subarray(bytesWritten), ...rest.slice(1)];
  }
}
