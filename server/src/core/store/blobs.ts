/**
 * Identical values stored once. `blobs/<sha256>` is one more hard link to the first value file
 * with those bytes; a later value with the same hash is linked from it instead of being written
 * again. The file system's link count is the reference count: removing a run unlinks its names,
 * and a blob no value links to any more (a count of 1) is collected. Values stay ordinary files
 * at their own paths, so every reader works as before.
 *
 * Where hard links are not to be had (some network or FUSE file systems), values are simply
 * not shared.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { makeDir, openFile, READ, realDir, statFilesIn } from './safeFs';

const SHA256 = /^[0-9a-f]{64}$/;

export class Blobs {
  readonly dir: string;

  constructor(private readonly root: string) {
    this.dir = join(root, 'blobs');
  }

  /**
   * The file a new value with these bytes is to be linked from: the blob already holding them
   * (its bytes checked against the hash), or `tmp`, which becomes the blob. Never throws: without
   * a usable blob, the value is linked from `tmp` alone.
   */
  async source(tmp: string, sha256: string, bytes: number): Promise<string> {
    if (!SHA256.test(sha256)) return tmp;
    const blob = join(this.dir, sha256);
    try {
      await makeDir(this.root, this.dir);
      await fs.link(tmp, blob);
      return tmp;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return tmp;
    }
    // A blob of these bytes exists: reuse it only when it is a plain file whose bytes match.
    const stat = await fs.lstat(blob).catch(() => undefined);
    if (!stat?.isFile() || stat.size !== bytes || (await fileSha256(this.root, blob).catch(() => '')) !== sha256)
      return tmp;
    return blob;
  }

  /** Removes the blobs no value links to any more; their count and bytes. */
  async collect(): Promise<{ files: number; bytes: number }> {
    if (!(await realDir(this.dir).catch(() => false))) return { files: 0, bytes: 0 };
    const names = (await fs.readdir(this.dir)).filter((name) => SHA256.test(name));
    const stats = await statFilesIn(this.root, this.dir, names);
    let files = 0;
    let bytes = 0;
    for (const [i, stat] of stats.entries()) {
      if (!stat || stat.nlink > 1) continue;
      await fs.rm(join(this.dir, names[i]!), { force: true });
      files++;
      bytes += stat.size;
    }
    return { files, bytes };
  }
}

/** The SHA-256 of a store file's bytes, streamed, never through a link. */
export async function fileSha256(root: string, path: string): Promise<string> {
  const handle = await openFile(root, path, READ);
  try {
    const hash = createHash('sha256');
    const chunk = Buffer.allocUnsafe(1 << 20);
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      hash.update(chunk.subarray(0, bytesRead));
    }
    return hash.digest('hex');
  } finally {
    await handle.close();
  }
}
