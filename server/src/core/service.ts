/**
 * The retention service: what every front end (the language server, the MCP server, the CLI,
 * the tests) talks to. It owns the store and the settings, and is made of one part per path:
 * `retainer` (record results), `values` (find and peek), `history` (replay), `inspection`
 * (the inspector's rows and run search), `importer` (agent sessions) and `runs`. Every part
 * checks its own input with the shared schemas.
 *
 * Changes are announced once: a change this process makes and the echo the file watcher sees
 * of it become one notice; a change another process makes is announced when the watcher sees it.
 */
import { EventEmitter } from 'node:events';
import { check } from '../../../shared/check';
import { InvalidInput } from '../../../shared/invalidInput';
import {
  type CleanupResult,
  DeleteParams,
  type ReadResult,
  type RunSummary,
  RunsParams,
  StatusParams,
  type StatusResult,
  TranscriptParams,
  ValueFileParams,
} from '../../../shared/protocol';
import { resolveSettings, type Settings, type SettingsInput } from '../../../shared/settings';
import { Cleaner } from './cleanup/cleaner';
import type { Context } from './context';
import type { History } from './history/history';
import type { Importer } from './import/importer';
import type { Inspection } from './inspection/inspection';
import { Retainer } from './retain/retainer';
import { Runs } from './runs';
import { withheldName } from './store/layout';
import { openStore } from './store/open';
import type { RunStore } from './store/runStore';
import { Values } from './values/values';
import { Withholder, type WithholderOptions } from './withhold/withholder';

export interface ServiceOptions {
  settings?: SettingsInput;
  /** Where a relative import path is read from; default the current directory. */
  workspace?: string;
  withhold?: WithholderOptions;
  /** How long indexing waits: after a run's last write (default 5 s), and after the server starts (default 10 s). */
  indexDelayMs?: number;
  /**
   * Index an imported run right after its import (default true). A command line says no: it
   * would wait for the token counts; a server watching the store indexes the run when it is quiet.
   */
  indexImports?: boolean;
}

/** How long changes to one run are gathered into one notice. */
const NOTICE_DELAY_MS = 60;
/** How long a run is left alone after a write before its index is brought up to date. */
const INDEX_QUIET_MS = 5000;
/** After the server starts, how long until the newest runs' indexes are checked, and how many. */
const INDEX_AT_START_MS = 10_000;
const INDEX_AT_START_RUNS = 20;

export class RetentionService {
  readonly store: RunStore;
  readonly runs: Runs;
  readonly retainer: Retainer;
  readonly values: Values;
  readonly cleaner: Cleaner;
  readonly withholder: Withholder;
  private settings: Settings;
  private readonly notices = new EventEmitter();
  private readonly pending = new Map<string, { timer: NodeJS.Timeout; own: boolean }>();
  /** Runs written to, by the timer that indexes them once they are quiet. */
  private readonly quiet = new Map<string, NodeJS.Timeout>();
  private indexing: NodeJS.Timeout | undefined;
  private disposed = false;
  /** Writes under way, per run: the watcher's echoes of them wait for the write's own notice. */
  private readonly busy = new Map<string, number>();
  /** Each run's files as last announced, so the watcher's echo of a change already announced is not sent again. */
  private readonly seen = new Map<string, string>();
  private watcher: { start(): void; dispose(): void } | undefined;

  /** `address`: a store folder, or a team store's `postgres://` URL (store/open.ts); not for messages (a URL may hold a password). */
  constructor(
    readonly address: string,
    private readonly options: ServiceOptions = {},
  ) {
    this.settings = resolveSettings(options.settings);
    this.store = openStore(address);
    this.runs = new Runs(this.store);
    const ctx: Context = {
      store: this.store,
      runs: this.runs,
      settings: () => this.settings,
      writing: (runId, work) => this.writing(runId, work),
    };
    this.withholder = new Withholder(ctx, options.withhold);
    const workspace = options.workspace ?? process.cwd();
    this.retainer = new Retainer(ctx, this.withholder, workspace);
    this.values = new Values(ctx);
    // The parts a server at rest does not use load on their first use: their modules (the
    // converters and their schemas, the inspector's rows and usage, replay) are most of the core.
    this.lazyHistory = lazy(() => {
      const { History } = require('./history/history') as typeof import('./history/history');
      return new History(ctx, this.retainer);
    });
    this.lazyInspection = lazy(() => {
      const { Inspection } = require('./inspection/inspection') as typeof import('./inspection/inspection');
      return new Inspection(ctx);
    });
    this.lazyImporter = lazy(() => {
      const { Importer } = require('./import/importer') as typeof import('./import/importer');
      return new Importer(
        ctx,
        this.retainer,
        workspace,
        options.indexImports === false ? undefined : (runId) => this.inspection.prepare(runId),
      );
    });
    this.cleaner = new Cleaner(ctx);
  }

  private readonly lazyHistory: Lazy<History>;
  private readonly lazyInspection: Lazy<Inspection>;
  private readonly lazyImporter: Lazy<Importer>;
  get history(): History {
    return this.lazyHistory.get();
  }
  get inspection(): Inspection {
    return this.lazyInspection.get();
  }
  get importer(): Importer {
    return this.lazyImporter.get();
  }

  /**
   * Opens the store (creating nothing) and sweeps the temp files a crashed writer left; cleans
   * up when `retained.cleanup.onStartup` says so, and returns what that removed.
   */
  async init(): Promise<{ cleanup?: CleanupResult }> {
    await this.store.init();
    if (!this.settings.cleanup.onStartup || this.store.shared) return {};
    return { cleanup: await this.cleaner.cleanup() };
  }

  getSettings(): Settings {
    return { ...this.settings };
  }

  /** Replaces the settings; throws an InvalidInput (and keeps the old ones) when invalid. */
  updateSettings(input: unknown): Settings {
    this.settings = resolveSettings(input);
    return this.getSettings();
  }

  /** Called once per change of a run, by this process or another. */
  onChanged(listener: (runId: string) => void): () => void {
    this.notices.on('changed', listener);
    return () => this.notices.off('changed', listener);
  }

  /** Called when a store reached over a network is lost (why, in words) or found again (undefined). */
  onReached(listener: (problem: string | undefined) => void): () => void {
    this.notices.on('reached', listener);
    return () => this.notices.off('reached', listener);
  }

  /** Starts noticing changes other processes make to the store. */
  watch(): void {
    this.watcher ??= this.store.watch(
      (runId) => this.changed(runId, false),
      (problem) => this.notices.emit('reached', problem),
    );
    this.watcher.start();
    this.indexing ??= setTimeout(() => void this.indexRecent(), this.options.indexDelayMs ?? INDEX_AT_START_MS);
    this.indexing.unref();
  }

  /**
   * The newest runs whose index is missing or stale (written by an older version, or by a
   * process no server watched) get one, one at a time, a while after the server starts: so
   * opening them is quick too.
   */
  private async indexRecent(): Promise<void> {
    for (const runId of (await this.store.listRunIds().catch(() => [])).slice(0, INDEX_AT_START_RUNS)) {
      if (this.disposed) return;
      await this.inspection.prepare(runId).catch(() => undefined);
    }
  }

  dispose(): void {
    this.disposed = true;
    void this.store.close();
    clearTimeout(this.indexing);
    this.watcher?.dispose();
    for (const timer of this.quiet.values()) clearTimeout(timer);
    this.quiet.clear();
    for (const { timer } of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
  }

  private async writing<T>(runId: string, work: () => Promise<T>): Promise<T> {
    this.busy.set(runId, (this.busy.get(runId) ?? 0) + 1);
    try {
      return await work();
    } finally {
      const left = this.busy.get(runId)! - 1;
      if (left > 0) this.busy.set(runId, left);
      else this.busy.delete(runId);
      this.changed(runId, true);
    }
  }

  /** Another thread or process changed a run (an import on a thread of its own): as the watcher would say. */
  changedElsewhere(runId: string): void {
    this.changed(runId, false);
  }

  /** A run changed: what is cached about it goes now; the notice goes once the burst is over. */
  private changed(runId: string, own: boolean): void {
    this.runs.forget(runId, !own);
    // Nothing of the run is cached before the inspection is first used.
    this.lazyInspection.made?.invalidate(runId);
    this.indexLater(runId);
    if (!own) this.store.values.dropCachesFor(runId);
    const pending = this.pending.get(runId);
    if (pending) clearTimeout(pending.timer);
    const entry = {
      own: own || (pending?.own ?? false),
      timer: setTimeout(() => void this.announce(runId, entry.own), NOTICE_DELAY_MS),
    };
    this.pending.set(runId, entry);
  }

  /**
   * Once a run written to has been quiet a while (its agent's turn is over), its index is
   * brought up to date in the background, so opening it is quick. Only in a long-lived
   * server (one that watches the store): a command line ends first.
   */
  private indexLater(runId: string): void {
    if (!this.watcher) return;
    clearTimeout(this.quiet.get(runId));
    const timer = setTimeout(() => {
      this.quiet.delete(runId);
      void this.inspection.prepare(runId).catch(() => undefined);
    }, this.options.indexDelayMs ?? INDEX_QUIET_MS);
    timer.unref();
    this.quiet.set(runId, timer);
  }

  private async announce(runId: string, own: boolean): Promise<void> {
    this.pending.delete(runId);
    const now = await this.store.fingerprint(runId).catch(() => '-');
    // The watcher's echo of a write under way (its own notice follows), or of a change already announced.
    if (!own && (this.busy.has(runId) || now === this.seen.get(runId))) return;
    this.seen.set(runId, now);
    this.notices.emit('changed', runId);
  }

  async listRuns(input: RunsParams = {}): Promise<RunSummary[]> {
    return this.runs.list(check(RunsParams, input).runIds);
  }

  /** A page of a run's events, as recorded (a retained result names its value). */
  async transcript(input: TranscriptParams): Promise<ReadResult> {
    const { runId, from, limit } = check(TranscriptParams, input);
    return this.store.readEvents(await this.runs.key(runId), from, limit);
  }

  /** The file a value's document reads, by the value's id or by the event whose result a guard withheld. */
  async valueFile(input: ValueFileParams): Promise<{ uri: string; bytes: number; valueId: string }> {
    const { valueId, runId, event } = check(ValueFileParams, input);
    if (valueId !== undefined) return this.values.file({ valueId, runId });
    if (event === undefined || runId === undefined)
      throw new InvalidInput('valueFile needs valueId, or runId and event');
    const [found] = (await this.transcript({ runId, from: event, limit: 1 })).events;
    const name = found?.type === 'tool_call_finished' ? withheldName(found.withheld?.file) : undefined;
    if (!name) throw new InvalidInput(`event ${event} of run ${runId} has no withheld original`);
    return this.values.file({ valueId: name });
  }

  /** Deletes one value (with valueId) or a whole run. */
  async delete(input: DeleteParams): Promise<void> {
    const { runId: given, valueId } = check(DeleteParams, input);
    const runId = await this.runs.existing(given);
    if (valueId !== undefined) return this.values.delete(runId, valueId);
    await this.writing(runId, () => this.runs.delete(runId));
    // Records of shared bytes whose file went with the run (a clean-up does this once, at its end).
    await this.store.collectGarbage();
  }

  async status(input: StatusParams = {}): Promise<StatusResult> {
    check(StatusParams, input);
    const [runs, temps, use] = await Promise.all([
      this.runs.list(),
      this.store.tempFiles?.() ?? [],
      this.cleaner.use(),
    ]);
    const { quotaBytes } = this.settings.cleanup;
    return {
      root: this.store.where,
      tempFiles: temps.length,
      tempBytes: temps.reduce((n, t) => n + t.bytes, 0),
      settings: this.getSettings(),
      runs: runs.length,
      values: runs.reduce((n, r) => n + r.valueCount, 0),
      valueBytes: runs.reduce((n, r) => n + r.valueBytes, 0),
      keptOutBytes: runs.reduce((n, r) => n + r.keptOutBytes, 0),
      storeBytes: use.bytes,
      quotaBytes,
      overQuota: quotaBytes > 0 && use.bytes > quotaBytes,
      withheld: use.withheld,
    };
  }
}

interface Lazy<T> {
  get(): T;
  /** The part, once made. */
  readonly made: T | undefined;
}

function lazy<T>(make: () => T): Lazy<T> {
  let made: T | undefined;
  return {
    get: () => {
      made ??= make();
      return made;
    },
    get made() {
      return made;
    },
  };
}
