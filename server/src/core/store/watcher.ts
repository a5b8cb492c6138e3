/**
 * Notices changes other processes make to the store (another agent appending a transcript or
 * writing a value) and reports them per run, so a UI can refresh just that run. It creates
 * nothing: until the store exists it watches the nearest folder above it for it to appear. It
 * never watches through a link (a store may come from a cloned repository).
 */
import { type FSWatcher, lstatSync, watch } from 'node:fs';
import { dirname, relative, sep } from 'node:path';
import { isTemp, RUN_FILE, runFile } from './layout';
import { namesIn } from './safeFs';

export class StoreWatcher {
  private readonly watchers = new Map<string, FSWatcher>();
  private disposed = false;

  constructor(
    private readonly runsDir: string,
    private readonly onRunChanged: (runId: string) => void,
  ) {}

  start(): void {
    if (this.disposed || this.watchers.has(this.runsDir)) return;
    if (!isRealDir(this.runsDir)) {
      this.awaitStore();
      return;
    }
    this.watchDir(this.runsDir, (name) => {
      const match = name ? RUN_FILE.exec(name) : null;
      if (!match) return;
      if (match[2] === 'values') this.watchValues(match[1]!);
      this.onRunChanged(match[1]!);
    });
    for (const dir of this.watchers.keys()) if (dir !== this.runsDir) this.close(dir);
    for (const name of namesIn(this.runsDir)) {
      const match = RUN_FILE.exec(name);
      if (match?.[2] === 'values') this.watchValues(match[1]!);
    }
  }

  /** Starts watching a run's values folder (idempotent); values written there count as changes. */
  watchValues(runId: string): void {
    const dir = runFile(this.runsDir, runId, 'values');
    if (this.watchers.has(dir) || !isRealDir(dir)) return;
    this.watchDir(dir, (name) => {
      if (name && !isTemp(name)) this.onRunChanged(runId);
    });
  }

  /** The store is not there yet: watch the nearest existing folder above `runs/` until it is. */
  private awaitStore(): void {
    let dir = dirname(this.runsDir);
    while (!isRealDir(dir) && dirname(dir) !== dir) dir = dirname(dir);
    if (this.watchers.has(dir)) return;
    const next = relative(dir, this.runsDir).split(sep)[0];
    this.watchDir(dir, (name) => {
      if (name === next || name === null) queueMicrotask(() => this.retry(dir));
    });
  }

  private retry(waiting: string): void {
    this.close(waiting);
    this.start();
  }

  private watchDir(dir: string, onName: (name: string | null) => void): void {
    try {
      const watcher = watch(dir, { persistent: false }, (_event, name) => onName(name ? name.toString() : null));
      watcher.on('error', () => this.close(dir));
      this.watchers.set(dir, watcher);
    } catch {
      // The folder is gone or cannot be watched; changes there arrive through the runs folder.
    }
  }

  private close(dir: string): void {
    this.watchers.get(dir)?.close();
    this.watchers.delete(dir);
  }

  dispose(): void {
    this.disposed = true;
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }
}

function isRealDir(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}
