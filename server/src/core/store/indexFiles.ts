/**
 * A folder store's run indexes: `runs/<runId>.index.json` beside each transcript, written to a
 * temp file and renamed into place, so it is whole or absent; never read through a link.
 */
import { promises as fs } from 'node:fs';
import { tempPath } from './layout';
import type { IndexShelf } from './runStore';
import { CREATE_NEW, openFile, readFile, statFile } from './safeFs';

/** What the index files need of their store. */
export interface IndexHome {
  readonly root: string;
  readonly runsDir: string;
  runIndexPath(runId: string): string;
  valuesDir(runId: string): string;
}

export class IndexFiles implements IndexShelf {
  constructor(private readonly store: IndexHome) {}

  /** The values folder's inode and modification time (a value added or deleted changes it), or "none". */
  async valuesStamp(runId: string): Promise<string> {
    const values = await fs.stat(this.store.valuesDir(runId), { bigint: true }).catch(() => undefined);
    return values ? `${values.ino}:${values.mtimeNs}` : 'none';
  }

  async read(runId: string, maxBytes: number): Promise<string | undefined> {
    const path = this.store.runIndexPath(runId);
    try {
      const stat = await statFile(this.store.root, path);
      if (!stat || stat.size > maxBytes) return undefined;
      return (await readFile(this.store.root, path)).toString('utf8');
    } catch {
      return undefined;
    }
  }

  async write(runId: string, text: string, current: () => Promise<boolean>): Promise<void> {
    const tmp = tempPath(this.store.runsDir);
    const handle = await openFile(this.store.root, tmp, CREATE_NEW);
    try {
      try {
        await handle.writeFile(text);
      } finally {
        await handle.close();
      }
      if (await current()) await fs.rename(tmp, this.store.runIndexPath(runId));
    } finally {
      await fs.rm(tmp, { force: true });
    }
  }
}
