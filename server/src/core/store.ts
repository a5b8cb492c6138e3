/**
 * The on-disk store. Layout under the root:
 *
 *   .gitignore                          `*`, so the store never reaches version control
 *   runs/<runId>.jsonl                  the run's transcript (see transcript.ts)
 *   runs/<runId>.meta.json              the run's name as its writer gave it, and when it began
 *   runs/<runId>.values/<valueId>.txt   a retained value, byte-identical to the result
 *   runs/<runId>.values/<valueId>.idx   its line index (rebuilt when missing or stale)
 *   runs/<runId>.values/<valueId>.meta.json   tool, call id, counts, hash, preview settings
 *
 * A value is written once, atomically: temp file in the same folder, fsync, rename, so a
 * reader never sees a partial value under its final name.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs, constants as fsConstants } from 'node:fs';
import { join } from 'node:path';
import { isSanitizedId } from './ids';
import type { PreviewSettings } from './stub';
import { indexBuffer, indexFile, parseIndex, serializeIndex, type LineIndex } from './lineIndex';
import { sha256Hex, utf8Bytes } from './text';

export interface ValueMeta {
  runId: string;
  valueId: string;
  callId: string;
  tool: string;
  bytes: number;
  lines: number;
  sha256: string;
  isError: boolean;
  /** ISO time the value was written. */
  createdAt: string;
  /** The preview settings its stub was made with, so replay rebuilds the same stub. */
  preview: PreviewSettings;
  /** The stub the model got in its place ('' for a value some other tool dropped in). */
  stub: string;
}

/** What the store keeps about a run beside its transcript. */
export interface RunMeta {
  /** The id as the writer gave it (`feature/x`), before sanitizing; the run's display name. */
  name: string;
  createdAt: string;
  /** When the run itself began, where that is earlier than its first write here (an imported session). */
  startedAt?: string;
}

export interface RunSummary {
  /** The run's identity: a sanitized id, usable in every request. */
  runId: string;
  /** The id as its writer gave it. */
  name: string;
  /** ISO time of the transcript's first write (its birth time, or mtime where unknown). */
  startedAt: string;
  updatedAt: string;
  transcriptBytes: number;
  valueCount: number;
  valueBytes: number;
  /** Bytes the model did not get: each value's size less its stub's. */
  keptOutBytes: number;
}

const VALUE_EXT = '.txt';
const TMP_PREFIX = '.tmp-';

export class Store {
  readonly runsDir: string;
  private readonly indexCache = new Map<string, LineIndex>();

  constructor(readonly root: string) {
    this.runsDir = join(root, 'runs');
  }

  /** Creates the root, its `.gitignore` and `runs/`. */
  async init(): Promise<void> {
    await fs.mkdir(this.runsDir, { recursive: true });
    const gitignore = join(this.root, '.gitignore');
    await fs.writeFile(gitignore, '*\n', { flag: 'wx' }).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
  }

  /** Run ids are sanitized once, where they enter; here they must already be. */
  transcriptPath(runId: string): string {
    return join(this.runsDir, `${checkedId(runId, 'run')}.jsonl`);
  }

  valuesDir(runId: string): string {
    return join(this.runsDir, `${checkedId(runId, 'run')}.values`);
  }

  private runMetaPath(runId: string): string {
    return join(this.runsDir, `${checkedId(runId, 'run')}.meta.json`);
  }

  /** The run's meta; a run written before metas existed is named by its id. */
  async readRunMeta(runId: string): Promise<RunMeta | undefined> {
    try {
      const meta = JSON.parse(await fs.readFile(this.runMetaPath(runId), 'utf8')) as Partial<RunMeta>;
      if (typeof meta.name === 'string' && typeof meta.createdAt === 'string') {
        return { name: meta.name, createdAt: meta.createdAt, ...(typeof meta.startedAt === 'string' ? { startedAt: meta.startedAt } : {}) };
      }
    } catch {
      // missing or torn: the id stands in
    }
    return undefined;
  }

  /** Records the run's name once, when it is first written to. */
  async ensureRunMeta(runId: string, name: string, startedAt?: string): Promise<void> {
    await fs.mkdir(this.runsDir, { recursive: true });
    const data = Buffer.from(JSON.stringify({ name, createdAt: new Date().toISOString(), ...(startedAt ? { startedAt } : {}) } satisfies RunMeta));
    await fs.writeFile(this.runMetaPath(runId), data, { flag: 'wx' }).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
  }

  /** Whether the run has a transcript or values. */
  async runExists(runId: string): Promise<boolean> {
    if (!isSanitizedId(runId)) return false;
    for (const path of [this.transcriptPath(runId), this.valuesDir(runId)]) if (await fs.stat(path).then(() => true, () => false)) return true;
    return false;
  }

  valuePath(runId: string, valueId: string): string {
    return join(this.valuesDir(runId), `${checkedId(valueId, 'value')}${VALUE_EXT}`);
  }

  private sidecar(runId: string, valueId: string, ext: '.idx' | '.meta.json'): string {
    return join(this.valuesDir(runId), `${checkedId(valueId, 'value')}${ext}`);
  }

  /**
   * Writes a value atomically with its index and metadata. Throws on any failure, after
   * removing what it wrote, so the caller can keep the result verbatim instead.
   */
  async writeValue(meta: Omit<ValueMeta, 'bytes' | 'lines' | 'sha256' | 'createdAt'>, text: string): Promise<ValueMeta> {
    const dir = this.valuesDir(meta.runId);
    await fs.mkdir(dir, { recursive: true });
    const data = Buffer.from(text, 'utf8');
    const index = indexBuffer(data);
    const full: ValueMeta = {
      ...meta,
      bytes: data.length,
      lines: index.lines,
      sha256: sha256Hex(data),
      createdAt: new Date().toISOString(),
    };
    const target = this.valuePath(meta.runId, meta.valueId);
    await writeAtomic(dir, target, data, { durable: true });
    try {
      // Sidecars are derivable from the value, so they skip the fsyncs.
      await writeAtomic(dir, this.sidecar(meta.runId, meta.valueId, '.idx'), serializeIndex(index));
      await writeAtomic(dir, this.sidecar(meta.runId, meta.valueId, '.meta.json'), Buffer.from(JSON.stringify(full)));
    } catch (err) {
      await this.deleteValue(meta.runId, meta.valueId);
      throw err;
    }
    this.indexCache.set(target, index);
    return full;
  }

  async valueExists(runId: string, valueId: string): Promise<boolean> {
    try {
      await fs.access(this.valuePath(runId, valueId), fsConstants.R_OK);
      return true;
    } catch {
      return false;
    }
  }

  /** The value's line index: cached, else read from its sidecar, else rebuilt by streaming. */
  async lineIndex(runId: string, valueId: string): Promise<LineIndex> {
    const path = this.valuePath(runId, valueId);
    const { size } = await fs.stat(path);
    const cached = this.indexCache.get(path);
    if (cached && cached.bytes === size) return cached;
    const idxPath = this.sidecar(runId, valueId, '.idx');
    let index = await fs.readFile(idxPath).then((data) => parseIndex(data, size), () => undefined);
    if (!index) {
      index = await indexFile(path);
      await writeAtomic(this.valuesDir(runId), idxPath, serializeIndex(index)).catch(() => undefined);
    }
    this.indexCache.set(path, index);
    return index;
  }

  /** Metadata of one value; a value some other tool dropped in gets what the file itself tells. */
  async readMeta(runId: string, valueId: string): Promise<ValueMeta> {
    const path = this.valuePath(runId, valueId);
    try {
      const meta = JSON.parse(await fs.readFile(this.sidecar(runId, valueId, '.meta.json'), 'utf8')) as ValueMeta;
      const { size } = await fs.stat(path);
      if (meta.bytes === size) return meta;
    } catch {
      // fall through: describe the file as it is
    }
    const stat = await fs.stat(path);
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
      preview: { previewHeadLines: 0, previewTailLines: 0 },
      stub: '',
    };
  }

  /** Run ids that have a transcript or a values folder, newest first. */
  async listRunIds(): Promise<string[]> {
    const names = await fs.readdir(this.runsDir).catch(() => [] as string[]);
    const ids = new Set<string>();
    for (const name of names) {
      const match = /^([A-Za-z0-9_-]+)\.(jsonl|values)$/.exec(name);
      if (match) ids.add(match[1]!);
    }
    const withTimes = await Promise.all(
      [...ids].map(async (id) => ({ id, time: await this.runTime(id) })),
    );
    return withTimes.sort((a, b) => b.time - a.time || a.id.localeCompare(b.id)).map((r) => r.id);
  }

  private async runTime(runId: string): Promise<number> {
    for (const path of [this.transcriptPath(runId), this.valuesDir(runId)]) {
      const stat = await fs.stat(path).catch(() => undefined);
      if (stat) return stat.birthtimeMs || stat.mtimeMs;
    }
    return 0;
  }

  async summarizeRun(runId: string): Promise<RunSummary> {
    const transcript = await fs.stat(this.transcriptPath(runId)).catch(() => undefined);
    const values = await this.listValues(runId);
    const meta = await this.readRunMeta(runId);
    const started = meta ? Date.parse(meta.startedAt ?? meta.createdAt) : transcript ? transcript.birthtimeMs || transcript.mtimeMs : await this.runTime(runId);
    return {
      runId,
      name: meta?.name ?? runId,
      startedAt: new Date(started).toISOString(),
      updatedAt: new Date(transcript?.mtimeMs ?? started).toISOString(),
      transcriptBytes: transcript?.size ?? 0,
      valueCount: values.length,
      valueBytes: values.reduce((sum, v) => sum + v.bytes, 0),
      keptOutBytes: values.reduce((sum, v) => sum + Math.max(0, v.bytes - utf8Bytes(v.stub)), 0),
    };
  }

  /** Value ids and sizes in a run, from the folder alone (cheap: one readdir and a stat each). */
  async listValueFiles(runId: string): Promise<{ valueId: string; bytes: number; mtimeMs: number }[]> {
    const dir = this.valuesDir(runId);
    const names = await fs.readdir(dir).catch(() => [] as string[]);
    const out: { valueId: string; bytes: number; mtimeMs: number }[] = [];
    for (const name of names) {
      if (!name.endsWith(VALUE_EXT) || name.startsWith('.')) continue;
      const valueId = name.slice(0, -VALUE_EXT.length);
      if (!isSanitizedId(valueId)) continue;
      const stat = await fs.stat(join(dir, name)).catch(() => undefined);
      if (stat) out.push({ valueId, bytes: stat.size, mtimeMs: stat.mtimeMs });
    }
    return out.sort((a, b) => a.mtimeMs - b.mtimeMs || a.valueId.localeCompare(b.valueId));
  }

  async listValues(runId: string): Promise<ValueMeta[]> {
    const files = await this.listValueFiles(runId);
    return Promise.all(files.map((f) => this.readMeta(runId, f.valueId)));
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
    await Promise.all(
      [path, this.sidecar(runId, valueId, '.idx'), this.sidecar(runId, valueId, '.meta.json')].map((p) =>
        fs.rm(p, { force: true }),
      ),
    );
  }

  /** Forgets cached indexes of a run, after another process changed it. */
  dropCachesFor(runId: string): void {
    const prefix = this.valuesDir(runId) + '/';
    for (const key of this.indexCache.keys()) if (key.startsWith(prefix)) this.indexCache.delete(key);
  }

  async deleteRun(runId: string): Promise<void> {
    this.dropCachesFor(runId);
    await fs.rm(this.valuesDir(runId), { recursive: true, force: true });
    await fs.rm(this.transcriptPath(runId), { force: true });
    await fs.rm(this.runMetaPath(runId), { force: true });
  }

  /**
   * Removes temp files that a crash mid-write left in a run's values folder. Only old ones:
   * another process may be writing into the same store right now.
   */
  async sweepTempFiles(runId: string, olderThanMs = 60 * 60 * 1000): Promise<number> {
    const dir = this.valuesDir(runId);
    const names = await fs.readdir(dir).catch(() => [] as string[]);
    let removed = 0;
    for (const name of names.filter((n) => n.startsWith(TMP_PREFIX))) {
      const stat = await fs.stat(join(dir, name)).catch(() => undefined);
      if (stat && Date.now() - stat.mtimeMs > olderThanMs) {
        await fs.rm(join(dir, name), { force: true });
        removed++;
      }
    }
    return removed;
  }
}

function checkedId(id: string, what: 'run' | 'value'): string {
  if (!isSanitizedId(id)) throw new Error(`not a valid ${what} id: ${JSON.stringify(id.slice(0, 80))}`);
  return id;
}

/**
 * Temp file in the same folder → write → rename, so the target is whole or absent. With
 * `durable`, also fsync the file before the rename and the folder after it.
 */
async function writeAtomic(dir: string, target: string, data: Buffer, { durable = false } = {}): Promise<void> {
  const tmp = join(dir, `${TMP_PREFIX}${randomBytes(6).toString('hex')}`);
  const handle = await fs.open(tmp, 'wx', 0o644);
  try {
    try {
      await handle.writeFile(data);
      if (durable) await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(tmp, target);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
  if (!durable) return;
  const dirHandle = await fs.open(dir, 'r').catch(() => undefined);
  if (dirHandle) {
    await dirHandle.sync().catch(() => undefined);
    await dirHandle.close();
  }
}
