/**
 * The on-disk store, laid out as layout.ts says: a run's files (its transcript, name, pin and
 * lock) here, its values in valueFiles.ts. Nothing is created before the first write; no file
 * is opened through a link (see safeFs.ts); a run's files change only under its lock.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import type { TranscriptEvent } from '../../../../shared/events';
import { isSanitizedId } from '../../../../shared/ids';
import { InvalidInput } from '../../../../shared/invalidInput';
import type { ReadResult, RunSummary } from '../../../../shared/protocol';
import { utf8Bytes } from '../text/bytes';
import { appendAudit, auditPath } from './audit';
import { Blobs } from './blobs';
import { IndexFiles } from './indexFiles';
import {
  GITIGNORE,
  HOOK_LOG,
  isTemp,
  isValuesDir,
  RUN_FILE,
  RUNS_DIR,
  runFile,
  tempWriter,
  VALUE_EXT,
  WITHHELD_DIR,
} from './layout';
import { indexFile, type LineIndex } from './lineIndex';
import { fileBytes, type OpenValue } from './lineReader';
import { checkedId } from './naming';
import { RunLocks } from './runLock';
import type { AuditEntry, RunMeta, RunStore, StoreUse, TailRead, TempFile } from './runStore';
import { APPEND, CREATE_NEW, listDir, makeDir, openFile, READ, readFile, realDir, statFile } from './safeFs';
import { processAlive } from './staging';
import { appendEvent, readEvents, readEventsAt, readEventsFrom, readFirstEvent, writeEvents } from './transcript';
import { measureStore, runNow } from './usage';
import { ValueFiles } from './valueFiles';
import { StoreWatcher } from './watcher';

/** A temp file of a live process may still be written; past this age it is a leftover anyway. */
const TEMP_MAX_AGE_MS = 24 * 60 * 60 * 1000;

export class FolderStore implements RunStore {
  readonly runsDir: string;
  readonly blobs: Blobs;
  /** The run's values: staged, placed once, read, listed, removed (valueFiles.ts). */
  readonly values: ValueFiles;
  readonly indexes: IndexFiles;
  readonly shared = false;
  private readonly locks: RunLocks;
  readonly where: string;

  constructor(readonly root: string) {
    this.where = root;
    this.indexes = new IndexFiles(this);
    this.runsDir = join(root, RUNS_DIR);
    this.blobs = new Blobs(root);
    this.locks = new RunLocks(root);
    this.values = new ValueFiles(this);
  }

  /** Opens an existing store: removes the temp files crashed writers left. Creates nothing. */
  async init(): Promise<void> {
    await this.sweepTempFiles();
  }

  async close(): Promise<void> {}

  audit(record: AuditEntry): Promise<void> {
    return appendAudit(this, record);
  }

  get auditAt(): string {
    return auditPath(this.root);
  }

  /** `withheld/<name>`, read-only: a staged file is linked into place at once, a text written and synced. */
  async keepWithheld(name: string, _runId: string, original: { text: string } | { file: string }): Promise<void> {
    await this.ensureWritable();
    await makeDir(this.root, join(this.root, WITHHELD_DIR));
    const path = this.withheldPath(name);
    if (!('text' in original)) return void (await fs.link(original.file, path));
    const handle = await openFile(this.root, path, CREATE_NEW, 0o444);
    try {
      await handle.writeFile(original.text);
      await handle.sync();
      await handle.close();
    } catch (err) {
      await handle.close().catch(() => undefined);
      await fs.rm(path, { force: true });
      throw err;
    }
  }

  async openWithheld(name: string): Promise<{ open: OpenValue; index: LineIndex; bytes: number }> {
    const path = this.withheldPath(name);
    const handle = await openFile(this.root, path, READ).catch(() => {
      throw new InvalidInput(`no withheld original ${JSON.stringify(name)} in this store`);
    });
    const index = await indexFile(handle).finally(() => handle.close());
    return { open: fileBytes(path), index, bytes: index.bytes };
  }

  /** The file of a withheld original, by the name its notice gives (`<name>` without `.txt`). */
  withheldPath(name: string): string {
    return join(this.root, WITHHELD_DIR, `${checkedWithheld(name)}${VALUE_EXT}`);
  }

  measure(): Promise<StoreUse> {
    return measureStore(this.root);
  }

  runNow(runId: string): Promise<{ lastWriteMs: number; pinned: boolean }> {
    return runNow(this.root, checkedId(runId, 'run'));
  }

  async whyNoRemoval(): Promise<string | undefined> {
    return undefined;
  }

  /** Records of shared bytes whose file went with a removed run. */
  async collectGarbage(): Promise<void> {
    await this.blobs.collect();
  }

  /** `hook.log` at the root (the folder made for it: the hook is this project's), never through a link. */
  async logHook(line: string): Promise<void> {
    await fs.mkdir(this.root, { recursive: true });
    const handle = await openFile(this.root, join(this.root, HOOK_LOG), APPEND);
    try {
      await handle.write(`${new Date().toISOString()} ${line}\n`);
    } finally {
      await handle.close();
    }
  }

  watch(changed: (runId: string) => void): StoreWatcher {
    return new StoreWatcher(this.runsDir, changed);
  }

  /** The run's files as they stand: the transcript's size and time, the values folder's time. */
  async fingerprint(runId: string): Promise<string> {
    const parts = await Promise.all(
      [this.transcriptPath(runId), this.valuesDir(runId)].map((path) =>
        fs.stat(path).then(
          (s) => `${s.ino}:${s.size}:${s.mtimeMs}`,
          () => '-',
        ),
      ),
    );
    return parts.join('|');
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
    const values = await this.values.list(runId);
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

  /** Every run holding a value with this id. */
  async runsWithValue(valueId: string): Promise<string[]> {
    const runs = await this.listRunIds();
    const found: string[] = [];
    for (const runId of runs) if (await this.values.exists(runId, valueId)) found.push(runId);
    return found;
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

  /** Writes a run's whole transcript in place of the one it has, atomically; the caller holds the run's lock. */
  replaceTranscript(runId: string, events: readonly TranscriptEvent[]): Promise<void> {
    return writeEvents(this.root, this.transcriptPath(runId), events, true);
  }

  /** The run's events, from the `from`-th, at most `limit` of them. */
  readEvents(runId: string, from = 0, limit = Infinity): Promise<ReadResult> {
    return readEvents(this.root, this.transcriptPath(runId), from, limit);
  }

  /** The events of the complete lines from byte `start` on (a reader following the run). */
  readEventsFrom(
    runId: string,
    start?: number,
    lineBase?: number,
    page?: { from: number; limit: number; final?: boolean },
  ): Promise<TailRead> {
    return readEventsFrom(this.root, this.transcriptPath(runId), start, lineBase, page);
  }

  /** The events whose lines start at `offsets`, known from an earlier read; undefined when the file changed. */
  readEventsAt(runId: string, offsets: readonly number[]): Promise<TranscriptEvent[] | undefined> {
    return readEventsAt(this.root, this.transcriptPath(runId), offsets);
  }

  /** Which transcript the run has, and how long it is: a new identity is a replaced transcript. */
  async transcriptStamp(runId: string): Promise<{ identity: number; size: number } | undefined> {
    const stat = await fs.stat(this.transcriptPath(runId)).catch(() => undefined);
    return stat ? { identity: stat.ino, size: stat.size } : undefined;
  }

  readFirstEvent(runId: string): Promise<TranscriptEvent | undefined> {
    return readFirstEvent(this.root, this.transcriptPath(runId));
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
    this.values.dropCachesFor(runId);
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

  async tempFiles(): Promise<TempFile[]> {
    if (!(await realDir(this.runsDir).catch(() => false))) return [];
    const out: TempFile[] = [];
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
  return pid !== undefined && processAlive(pid);
}

/** A withheld original's name must be one the sanitizer made: nothing else reaches the folder. */
function checkedWithheld(name: string): string {
  if (!isSanitizedId(name)) throw new InvalidInput(`no withheld original ${JSON.stringify(name)} in this store`);
  return name;
}
