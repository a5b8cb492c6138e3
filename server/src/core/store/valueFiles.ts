/**
 * A store's values, one folder per run: a value's bytes staged to a temp file (hashed, indexed
 * and fsynced as they come), then placed once under its name by a link that fails if the name
 * is taken, so a reader never sees a partial value and no writer replaces one a stub points at;
 * its sidecars (line index, metadata) beside it; identical bytes shared through blobs.ts.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { TranscriptEvent } from '../../../../shared/events';
import { isSanitizedId } from '../../../../shared/ids';
import type { ValueMeta } from '../../../../shared/protocol';
import type { Blobs } from './blobs';
import { fileSha256 } from './blobs';
import { tempPath, VALUE_EXT, valueFileName } from './layout';
import { indexFile, type LineIndex, parseIndex, serializeIndex } from './lineIndex';
import { type OpenValue, readHead } from './lineReader';
import { checkedId, namesTaken, sidecarMeta, valueNames } from './naming';
import { EventNotRecorded, type NewValue, type StagedValue, type ValueStore } from './runStore';
import { CREATE_NEW, listDir, openFile, READ, readFile, readFilesIn, realDir, statFile, statFilesIn } from './safeFs';
import { Staging } from './staging';

/** A value's metadata sidecar holds a stub of a few KB; a bigger one is not ours and is not read. */
const META_MAX_BYTES = 1 << 20;

/** What values need of the store they are in. */
export interface ValueHome {
  readonly root: string;
  readonly runsDir: string;
  readonly blobs: Blobs;
  ensureWritable(): Promise<void>;
  valuesDir(runId: string): string;
  appendEvent(runId: string, event: TranscriptEvent): Promise<void>;
}

export class ValueFiles implements ValueStore {
  private readonly indexCache = new Map<string, LineIndex>();
  private readonly staging: Staging;

  constructor(private readonly store: ValueHome) {
    this.staging = new Staging(store.root);
  }

  path(runId: string, valueId: string): string {
    return join(this.store.valuesDir(runId), valueFileName(checkedId(valueId, 'value'), 'text'));
  }

  /** The value's bytes, for a reader (see lineReader.ts). */
  open(runId: string, valueId: string): OpenValue {
    // Each folder on the way checked again, and the file opened without following a link (safeFs.ts).
    const path = this.path(runId, valueId);
    return () => openFile(this.store.root, path, READ);
  }

  uri(runId: string, valueId: string): string {
    return pathToFileURL(this.path(runId, valueId)).href;
  }

  private sidecar(runId: string, valueId: string, kind: 'index' | 'meta'): string {
    return join(this.store.valuesDir(runId), valueFileName(checkedId(valueId, 'value'), kind));
  }

  /**
   * Stages a value's bytes in its run's folder (see staging.ts): placed once under a name by a
   * link, the temp file and the value are on one file system.
   */
  async stage(
    runId: string,
    parts: Iterable<Buffer> | AsyncIterable<Buffer>,
    onPart?: (part: Buffer) => void | Promise<void>,
  ): Promise<StagedValue> {
    await this.store.ensureWritable();
    return this.staging.stage(runId, this.store.valuesDir(runId), parts, onPart);
  }

  readStaged(staged: StagedValue): Promise<string> {
    return this.staging.read(staged);
  }

  discardStaged(staged: StagedValue): Promise<void> {
    return this.staging.discard(staged);
  }

  /**
   * Places a staged value once, under the call's id; when that name holds other bytes (a call
   * id used twice, or two writers at once), under a name made of the call id and the hash. The
   * same bytes under a taken name are the same value: it is reused. With `valueId`, only that
   * name. The temp file is gone afterwards, placed or not; throws when no name can be had.
   */
  async place(
    staged: StagedValue,
    value: NewValue,
    valueId?: string,
    event?: (meta: ValueMeta) => TranscriptEvent,
  ): Promise<ValueMeta> {
    const meta = await this.placeOnly(staged, value, valueId);
    if (!event) return meta;
    try {
      await this.store.appendEvent(value.runId, event(meta));
    } catch (err) {
      throw new EventNotRecorded(meta, err);
    }
    return meta;
  }

  private async placeOnly(staged: StagedValue, value: NewValue, valueId?: string): Promise<ValueMeta> {
    const { tmp, sha256, index, bytes } = staged;
    const dir = this.store.valuesDir(value.runId);
    try {
      const names = valueNames(value.callId, sha256, valueId);
      for (const valueId of names) {
        const target = this.path(value.runId, valueId);
        // Bytes the store already holds (a re-read lock file) are linked, not written again.
        const shared = await this.store.blobs.find(sha256, bytes);
        const placed = await linkValue(shared ?? tmp, tmp, target).then(
          () => true,
          (err: NodeJS.ErrnoException) => {
            if (err.code === 'EEXIST') return false;
            throw err;
          },
        );
        if (!placed && (await fileSha256(this.store.root, target)) !== sha256) continue; // other bytes: the next name
        if (placed) await syncDir(dir);
        if (placed && !shared) await this.store.blobs.record(sha256, target);
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
      throw namesTaken(value.callId, names);
    } finally {
      await fs.rm(tmp, { force: true });
    }
  }

  /** Temp file → rename: a sidecar is whole or absent (it may be replaced: it is derived). */
  private async writeSidecar(runId: string, target: string, data: Buffer): Promise<void> {
    const tmp = tempPath(this.store.valuesDir(runId));
    const handle = await openFile(this.store.root, tmp, CREATE_NEW);
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

  async exists(runId: string, valueId: string): Promise<boolean> {
    try {
      return (await statFile(this.store.root, this.path(runId, valueId)))?.isFile() === true;
    } catch {
      return false;
    }
  }

  /** The value's line index: cached, else read from its sidecar, else rebuilt by streaming. */
  async lineIndex(runId: string, valueId: string): Promise<LineIndex> {
    const path = this.path(runId, valueId);
    const stat = await statFile(this.store.root, path);
    if (!stat?.isFile()) throw new Error(`value ${valueId} of run ${runId} is not there`);
    const cached = this.indexCache.get(path);
    if (cached && cached.bytes === stat.size) return cached;
    const idxPath = this.sidecar(runId, valueId, 'index');
    let index = await readFile(this.store.root, idxPath).then(
      (data) => parseIndex(data, stat.size),
      () => undefined,
    );
    if (!index) {
      const handle = await openFile(this.store.root, path, READ);
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
    const path = this.path(runId, valueId);
    const stat = await statFile(this.store.root, path);
    if (!stat?.isFile()) throw new Error(`value ${valueId} of run ${runId} is not there`);
    try {
      const meta = sidecarMeta(
        (await readFile(this.store.root, this.sidecar(runId, valueId, 'meta'))).toString('utf8'),
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
  readHead(runId: string, valueId: string, maxBytes: number): Promise<string> {
    return readHead(this.open(runId, valueId), maxBytes);
  }

  /** Value ids and sizes in a run, from the folder alone (cheap: one readdir and a stat each). */
  async listFiles(runId: string): Promise<{ valueId: string; bytes: number; mtimeMs: number }[]> {
    const dir = this.store.valuesDir(runId);
    if (!(await realDir(this.store.runsDir).catch(() => false)) || !(await realDir(dir).catch(() => false))) return [];
    const ids: string[] = [];
    for (const name of await listDir(this.store.root, dir)) {
      if (!name.endsWith(VALUE_EXT) || name.startsWith('.')) continue;
      const valueId = name.slice(0, -VALUE_EXT.length);
      if (isSanitizedId(valueId)) ids.push(valueId);
    }
    const stats = await statFilesIn(
      this.store.root,
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
      this.store.root,
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

  async list(runId: string): Promise<ValueMeta[]> {
    return this.readMetas(runId, await this.listFiles(runId));
  }

  /**
   * The metadata of listed values, read together (a page of the tree). A value whose sidecar is
   * missing or does not match its file is described from the file, as readMeta does.
   */
  async readMetas(runId: string, files: readonly { valueId: string; bytes: number }[]): Promise<ValueMeta[]> {
    const sidecars = await readFilesIn(
      this.store.root,
      this.store.valuesDir(runId),
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

  async delete(runId: string, valueId: string): Promise<void> {
    const path = this.path(runId, valueId);
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
    const prefix = `${this.store.valuesDir(runId)}/`;
    for (const key of this.indexCache.keys()) if (key.startsWith(prefix)) this.indexCache.delete(key);
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
