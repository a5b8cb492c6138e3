/**
 * Identical values stored once. `blobs/<sha256>` names, in a few bytes, the value file that
 * first held those bytes (its path in the store); a later value with the same hash becomes a
 * hard link to that file instead of a copy. The file system's link count is the reference count:
 * removing a run unlinks its names, and the bytes go with the last name. Values stay ordinary
 * files at their own paths, so every reader works as before.
 *
 * A record is used only when its file is still a plain file whose bytes hash to its name; one
 * whose file is gone is collected. Where hard links are not to be had (some network or FUSE
 * file systems), values are simply not shared.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { BLOBS_DIR, tempPath, VALUE_FILE } from './layout';
import { CREATE_NEW, makeDir, openFile, READ, readFile, realDir } from './safeFs';

const SHA256 = /^[0-9a-f]{64}$/;

export class Blobs {
  readonly dir: string;

  constructor(private readonly root: string) {
    this.dir = join(root, BLOBS_DIR);
  }

  /** A value file already holding these bytes (its hash checked), to link a new value from; else undefined. */
  async find(sha256: string, bytes: number): Promise<string | undefined> {
    const path = await this.target(sha256);
    if (!path) return undefined;
    const stat = await fs.lstat(path).catch(() => undefined);
    if (!stat?.isFile() || stat.size !== bytes) return undefined;
    return (await fileSha256(this.root, path).catch(() => '')) === sha256 ? path : undefined;
  }

  /** Records that `path` (a placed value) holds the bytes of this hash. Never throws. */
  async record(sha256: string, path: string): Promise<void> {
    if (!SHA256.test(sha256)) return;
    const rel = relative(this.root, path).split(sep).join('/');
    if (!VALUE_FILE.test(rel)) return;
    try {
      await makeDir(this.root, this.dir);
      const tmp = tempPath(this.dir);
      const handle = await openFile(this.root, tmp, CREATE_NEW);
      await handle.writeFile(rel).finally(() => handle.close());
      await fs.rename(tmp, join(this.dir, sha256));
    } catch {
      // Not shared: the value itself is placed either way.
    }
  }

  /** Removes the records whose file is gone; how many. */
  async collect(): Promise<number> {
    if (!(await realDir(this.dir).catch(() => false))) return 0;
    let removed = 0;
    for (const name of await fs.readdir(this.dir)) {
      if (!SHA256.test(name) || (await this.target(name))) continue;
      await fs.rm(join(this.dir, name), { force: true });
      removed++;
    }
    return removed;
  }

  /** The existing plain file a record names, or undefined. */
  private async target(sha256: string): Promise<string | undefined> {
    if (!SHA256.test(sha256)) return undefined;
    const rel = await readFile(this.root, join(this.dir, sha256)).then(
      (data) => (data.length <= 1024 ? data.toString('utf8') : ''),
      () => '',
    );
    if (!VALUE_FILE.test(rel)) return undefined;
    const path = join(this.root, rel);
    return (await fs.lstat(path).catch(() => undefined))?.isFile() ? path : undefined;
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
