/**
 * Staging: a value's bytes written to a temp file as they stream (hashed, line-indexed and
 * fsynced as they come), before anyone knows what the value is. Both stores stage here: the
 * folder store in the run's own values folder (so the value is placed by a link), the team store
 * in a private folder of this process (then uploaded whole). A staged file is the writer's
 * alone, named after its process, so a crash's leftovers are known as such and swept.
 */
import { createHash } from 'node:crypto';
import { promises as fs, lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tempPath } from './layout';
import { LineIndexBuilder } from './lineIndex';
import type { StagedValue } from './runStore';
import { CREATE_NEW, makeDir, openFile, readFile, writeAll } from './safeFs';

/** Bytes of a staged value gathered into one write. */
const STAGE_BATCH_BYTES = 1 << 20;
/**
 * Bytes of a staged value written between two flushes to disk, each started in the background
 * as the writing goes on: the last sync of a big value then waits for its end only.
 */
const SYNC_EVERY_BYTES = 16 << 20;
export class Staging {
  /** `root`: the folder no staged file is reached outside of, and no link is followed in (safeFs.ts). */
  constructor(readonly root: string) {}

  /**
   * Writes a value's bytes to a temp file in `dir`, fsynced, with its hash and line index,
   * without placing it: the caller places it (or reads it back, or discards it) once it knows
   * what it is. `onPart` sees every piece, in order (a scan of a streamed result); a piece must
   * not change once given. Throws after removing what it wrote.
   */
  async stage(
    runId: string,
    dir: string,
    parts: Iterable<Buffer> | AsyncIterable<Buffer>,
    onPart?: (part: Buffer) => void | Promise<void>,
  ): Promise<StagedValue> {
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
  async read(staged: StagedValue): Promise<string> {
    return (await readFile(this.root, staged.tmp)).toString('utf8');
  }

  async discard(staged: StagedValue): Promise<void> {
    await fs.rm(staged.tmp, { force: true });
  }
}

/** A private staging folder's name: the prefix, the pid of the process staging in it, a random tail. */
const STAGING_PREFIX = 'retained-staging-';

/**
 * Removes the staging folders of processes that are gone (killed while a value streamed in):
 * only this user's real folders under this prefix, never through a link. A bounded look.
 */
function sweepStagingAreas(): void {
  let names: string[];
  try {
    names = readdirSync(tmpdir())
      .filter((n) => n.startsWith(STAGING_PREFIX))
      .slice(0, 1000);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/^retained-staging-(\d+)-/.exec(name)?.[1]);
    if (!Number.isSafeInteger(pid) || processAlive(pid)) continue;
    const path = join(tmpdir(), name);
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (!stat?.isDirectory() || stat.uid !== process.getuid?.()) continue;
    rmSync(path, { recursive: true, force: true });
  }
}

/** A private staging folder for this process, after sweeping those of processes that are gone. */
export function privateStaging(): Staging {
  sweepStagingAreas();
  return new Staging(mkdtempSync(join(tmpdir(), `${STAGING_PREFIX}${process.pid}-`)));
}

/** Whether a process of this id runs (one of another user's counts: it may not be signalled, but it is there). */
export function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
