/**
 * Notices changes other processes make to the store (another agent appending a transcript or
 * writing a value) and reports them per run, coalesced, so a UI can refresh just that run.
 */
import { watch, type FSWatcher } from 'node:fs';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

const RUN_FILE = /^([A-Za-z0-9_-]+)\.(jsonl|values)$/;

export class StoreWatcher {
  private readonly watchers = new Map<string, FSWatcher>();
  private readonly pending = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly runsDir: string,
    private readonly onRunChanged: (runId: string) => void,
    private readonly debounceMs = 75,
  ) {}

  start(): void {
    mkdirSync(this.runsDir, { recursive: true });
    this.watchDir(this.runsDir, (name) => {
      const match = name ? RUN_FILE.exec(name) : null;
      if (!match) return;
      if (match[2] === 'values') this.watchValues(match[1]!);
      this.report(match[1]!);
    });
  }

  /** Starts watching a run's values folder (idempotent); values written there count as changes. */
  watchValues(runId: string): void {
    const dir = join(this.runsDir, `${runId}.values`);
    if (this.watchers.has(dir)) return;
    this.watchDir(dir, (name) => {
      if (name && !name.startsWith('.tmp-')) this.report(runId);
    });
  }

  private watchDir(dir: string, onName: (name: string | null) => void): void {
    try {
      const watcher = watch(dir, { persistent: false }, (_event, name) => onName(name ? name.toString() : null));
      watcher.on('error', () => {
        watcher.close();
        this.watchers.delete(dir);
      });
      this.watchers.set(dir, watcher);
    } catch {
      // The folder is gone or cannot be watched; changes there arrive through the runs folder.
    }
  }

  private report(runId: string): void {
    const timer = this.pending.get(runId);
    if (timer) clearTimeout(timer);
    this.pending.set(
      runId,
      setTimeout(() => {
        this.pending.delete(runId);
        this.onRunChanged(runId);
      }, this.debounceMs),
    );
  }

  dispose(): void {
    for (const timer of this.pending.values()) clearTimeout(timer);
    for (const watcher of this.watchers.values()) watcher.close();
    this.pending.clear();
    this.watchers.clear();
  }
}
