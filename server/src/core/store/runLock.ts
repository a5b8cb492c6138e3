/**
 * One run's lock, across processes: the hook, the MCP server, a command line and the language
 * server may all write one store. Held only around a change of the run's files (an append, a
 * transcript replaced, a run removed, a pin), never while an output streams, so a wait is short.
 *
 * The lock is a file made with O_EXCL (`runs/<runId>.lock`), holding the holder's pid and host.
 * A lock whose holder on this host has died, or that is older than any change takes, is broken
 * (renamed aside first, so two breakers cannot both take it). Inside a process, holders queue
 * per run, so the file is contended only between processes.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { CREATE_NEW, openFile, readFile } from './safeFs';

/** No change of a run's files takes this long: a lock older than this was left by a hung or killed holder. */
const STALE_MS = 30_000;
/** How long a change waits for a run another process holds, before it fails saying so. */
const WAIT_MS = 15_000;

/** Why a store takes no new file: its lock cannot be made, and nobody else can change its files either. */
const UNWRITABLE = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT', 'EMFILE', 'ENFILE']);

/** A run stayed locked by another process past the wait; the message names the holder. */
export class RunLocked extends Error {}

interface Holder {
  pid: number;
  host: string;
  at: number;
}

export class RunLocks {
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(private readonly root: string) {}

  /** Runs `work` holding the lock at `path` (a run's `.lock`): after this process's earlier holders, and any other process's. */
  with<T>(path: string, work: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(path) ?? Promise.resolve();
    const next = previous
      .catch(() => undefined)
      .then(async () => {
        const held = await this.take(path);
        try {
          return await work();
        } finally {
          if (held) await fs.rm(path, { force: true }).catch(() => undefined);
        }
      });
    this.queues.set(path, next);
    const forget = () => {
      if (this.queues.get(path) === next) this.queues.delete(path);
    };
    next.then(forget, forget);
    return next;
  }

  /**
   * Takes the lock; false when it cannot be made because the store takes no new file (read only,
   * full, out of descriptors): then no other process can remove or replace the run's files either,
   * so the change goes ahead, and fails or not on its own.
   */
  private async take(path: string): Promise<boolean> {
    const me: Holder = { pid: process.pid, host: hostname(), at: Date.now() };
    const deadline = Date.now() + WAIT_MS;
    for (let wait = 2; ; wait = Math.min(wait * 2, 50)) {
      try {
        const handle = await openFile(this.root, path, CREATE_NEW);
        try {
          await handle.writeFile(JSON.stringify(me));
        } finally {
          await handle.close();
        }
        return true;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== undefined && UNWRITABLE.has(code)) return false;
        if (code !== 'EEXIST') throw err;
      }
      const holder = await this.holder(path);
      if (!holder || isGone(holder)) {
        await this.breakLock(path);
        continue;
      }
      if (Date.now() > deadline)
        throw new RunLocked(
          `the run is being changed by process ${holder.pid} on ${holder.host} (its lock ${path} is ${Math.round((Date.now() - holder.at) / 1000)} s old); try again`,
        );
      await sleep(wait);
    }
  }

  /** Who holds the lock; undefined when it is gone or unreadable (a holder killed between create and write). */
  private async holder(path: string): Promise<Holder | undefined> {
    try {
      const stat = await fs.lstat(path);
      const raw = JSON.parse((await readFile(this.root, path)).toString('utf8')) as Partial<Holder>;
      if (typeof raw.pid === 'number' && typeof raw.host === 'string' && typeof raw.at === 'number')
        return { pid: raw.pid, host: raw.host, at: Math.min(raw.at, stat.mtimeMs) };
      // An empty lock a moment old is being written; an older one is a leftover.
      return Date.now() - stat.mtimeMs < 1000 ? { pid: -1, host: '', at: stat.mtimeMs } : undefined;
    } catch {
      return undefined;
    }
  }

  /** Moves a dead holder's lock aside and removes it: of two breakers, one renames it, the other finds it gone. */
  private async breakLock(path: string): Promise<void> {
    const aside = `${path}.broken-${randomBytes(4).toString('hex')}`;
    await fs.rename(path, aside).catch(() => undefined);
    await fs.rm(aside, { force: true }).catch(() => undefined);
  }
}

function isGone(holder: Holder): boolean {
  if (Date.now() - holder.at > STALE_MS) return true;
  if (holder.pid <= 0 || holder.host !== hostname()) return false;
  if (holder.pid === process.pid) return false;
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'EPERM';
  }
}
