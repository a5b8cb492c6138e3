/**
 * Agents' sessions shown live: each session file converted into a run of its own store (a cache
 * beside the workspace's store), again whenever the file has changed since, so the inspector can
 * follow a session as the agent writes it without copying anything into the workspace's store.
 */
import { stat } from 'node:fs/promises';
import { check } from '../../../shared/check';
import { SessionParams, type SessionResult } from '../../../shared/protocol';
import type { RetentionService } from '../core/service';

export class Sessions {
  /** What each file was when last converted, and its run. */
  private readonly seen = new Map<string, { size: number; mtimeMs: number; result: SessionResult }>();
  /** One conversion at a time per file: a burst of writes converts once more, not once each. */
  private readonly busy = new Map<string, Promise<SessionResult>>();

  constructor(private readonly service: RetentionService) {}

  open(input: SessionParams): Promise<SessionResult> {
    const { path } = check(SessionParams, input);
    const running = this.busy.get(path);
    const next = (running ?? Promise.resolve()).catch(() => undefined).then(() => this.convert(path));
    this.busy.set(path, next);
    const forget = () => this.busy.get(path) === next && this.busy.delete(path);
    next.then(forget, forget);
    return next;
  }

  private async convert(path: string): Promise<SessionResult> {
    const { size, mtimeMs } = await stat(path);
    const known = this.seen.get(path);
    if (known && known.size === size && known.mtimeMs === mtimeMs) return known.result;
    // Named as an import names it (the session's id where the file has one, else the file's name).
    const imported = await this.service.importer.import({
      path,
      ifExists: 'replace',
      subagents: false,
    });
    const result: SessionResult = { runId: imported.runId, name: imported.name, format: imported.format };
    this.seen.set(path, { size, mtimeMs, result });
    return result;
  }
}
