/**
 * The store interface the core talks to, in its own words: runs, their events in order, their
 * values (with line index and bytes), pins, and the inspector's index of each run. Two stores
 * implement it: a folder on this machine (folderStore.ts, the default) and a team store in
 * PostgreSQL (postgres/teamStore.ts); one conformance suite (test/server/storeConformance.test.ts)
 * runs against both. This file is the vocabulary (types, the one error and the one limit both
 * share) and imports no implementation (boundaries.test.ts).
 *
 * A transcript is read by position: a position is opaque to the core (a byte offset in a folder
 * store's file, an event's sequence number in a team store), known only from an earlier read.
 * What only some stores do is an optional member named for what it does (`tempFiles`,
 * `withheldPath`, `logHook`): a caller asks whether the store has it, never which store it is.
 */
import type { CallSubject } from '../../../../shared/callSubject';
import type { TranscriptEvent } from '../../../../shared/events';
import type { AuditRecord, ReadResult, RunSummary, ValueMeta } from '../../../../shared/protocol';
import type { LineIndex } from './lineIndex';
import type { OpenValue } from './lineReader';

/** What the store keeps about a run beside its transcript. */
export interface RunMeta {
  /** The id as the writer gave it (`feature/x`), before sanitizing; the run's display name. */
  name: string;
  createdAt: string;
  /** When the run itself began, where that is earlier than its first write here (an imported session). */
  startedAt?: string;
}

/** A record of the audit log, before the store stamps it with the time. */
export type AuditEntry = Omit<AuditRecord, 'ts'>;

/** A read of a run's events from a position on. */
export interface TailRead extends ReadResult {
  /** The byte offset of each event's line, in step with `events`. */
  offsets: number[];
  /** Byte offset just past the last complete line read: where the next read starts. */
  end: number;
  /** Lines read (for numbering the lines of the next read). */
  lines: number;
}

/** A value's bytes in a temp file, with what placing it needs. */
export interface StagedValue {
  runId: string;
  tmp: string;
  bytes: number;
  sha256: string;
  index: LineIndex;
}

/** What a value is placed as: its run and call, and the stub it stands for once its id is known. */
export interface NewValue {
  runId: string;
  callId: string;
  tool: string;
  isError: boolean;
  subject?: CallSubject;
  stubFor: (valueId: string) => string;
  /**
   * Where a store that sends values elsewhere (the team store) moves the staged bytes when it
   * cannot take them, so the caller still has the whole output; a local store ignores it.
   */
  keepTo?: string;
}

/** One file of a run as a clean-up measures it. */
export interface FileUse {
  /** `dev:ino`: the same bytes under several names are one file. */
  inode: string;
  size: number;
  links: number;
}

/** A run's part of a store's measure. */
export interface RunUse {
  runId: string;
  lastWriteMs: number;
  pinned: boolean;
  files: FileUse[];
}

export interface StoreUse {
  /** Every file and folder once, apparent sizes. */
  bytes: number;
  runs: Map<string, RunUse>;
  withheld: number;
}

export interface RunStore {
  /** Where it is, for messages: a folder's path, or a team store's URL without its password. */
  readonly where: string;
  readonly values: ValueStore;
  /** Where each run's inspector index is kept (derived data: see inspection/runIndex.ts). */
  readonly indexes: IndexShelf;
  /** Written by a team: cleaned by its administrator (see Cleaner.cleanup), never at a client's start. */
  readonly shared: boolean;
  /** The temp files writers left, with whether their writer is gone (what status shows); a store without files has none. */
  tempFiles?(): Promise<TempFile[]>;
  /** The file of a withheld original (by the name its notice gives), for a person or an editor to open; a store without files has none. */
  withheldPath?(name: string): string;
  /** Appends a line to the store's hook log; a store without one (the team store: the agent's own log has the hook's errors) has no such member. */
  logHook?(line: string): Promise<void>;

  /** Opens the store, creating nothing. */
  init(): Promise<void>;
  /** Lets go of what it holds (a team store's connections). */
  close(): Promise<void>;

  listRunIds(): Promise<string[]>;
  runExists(runId: string): Promise<boolean>;
  summarizeRun(runId: string): Promise<RunSummary>;
  readRunMeta(runId: string): Promise<RunMeta | undefined>;
  /** Records the run's name once, when it is first written to. */
  ensureRunMeta(runId: string, name: string, startedAt?: string): Promise<void>;
  /** Every run holding a value with this id. */
  runsWithValue(valueId: string): Promise<string[]>;

  appendEvent(runId: string, event: TranscriptEvent): Promise<void>;
  /** A new run's whole transcript (failing if it has one), or with `replace` in place of its own, at once. */
  writeTranscript(runId: string, events: readonly TranscriptEvent[], replace?: boolean): Promise<void>;
  /** Runs `work` as the only writer of the run (an import's read, compare and replace). */
  locked<T>(runId: string, work: () => Promise<T>): Promise<T>;
  /** `writeTranscript(…, true)` for a caller inside `locked`. */
  replaceTranscript(runId: string, events: readonly TranscriptEvent[]): Promise<void>;
  readEvents(runId: string, from?: number, limit?: number): Promise<ReadResult>;
  readFirstEvent(runId: string): Promise<TranscriptEvent | undefined>;
  /** The events from position `start` on (a reader following the run), a page of them when asked. */
  readEventsFrom(
    runId: string,
    start?: number,
    lineBase?: number,
    page?: { from: number; limit: number; final?: boolean },
  ): Promise<TailRead>;
  /** The events at positions known from an earlier read; undefined when the transcript changed. */
  readEventsAt(runId: string, positions: readonly number[]): Promise<TranscriptEvent[] | undefined>;
  /** Which transcript the run has and how far it goes: a new identity is a replaced transcript. */
  transcriptStamp(runId: string): Promise<{ identity: number; size: number } | undefined>;

  /** Appends a record to the audit log (stamped with the time); throws when the store refused it. */
  audit(record: AuditEntry): Promise<void>;
  /** Where a person reads the audit log: a file's path, or the team store's table. */
  readonly auditAt: string;

  /**
   * Calls `changed` for each run another process changes, until the returned watch is disposed;
   * a store reached over a network calls `reached` when it is lost (why, in words) and found again.
   */
  watch(
    changed: (runId: string) => void,
    reached?: (problem: string | undefined) => void,
  ): { start(): void; dispose(): void };
  /** What the run is now, as a string that changes whenever it does (a watcher's echo is told from news by it). */
  fingerprint(runId: string): Promise<string>;

  /**
   * Keeps a guard's withheld original under its name (its text, or a staged file's bytes, taken
   * at once), whole or not at all; never replacing one.
   */
  keepWithheld(name: string, runId: string, original: { text: string } | { file: string }): Promise<void>;
  /** A withheld original by its name, to peek into; an InvalidInput when there is none the role may read. */
  openWithheld(name: string): Promise<{ open: OpenValue; index: LineIndex; bytes: number }>;

  /** What the store holds, run by run, for a clean-up's plan and the status bar. */
  measure(): Promise<StoreUse>;
  /** A run's last write and pin as they are now (read again before it is removed). */
  runNow(runId: string): Promise<Pick<RunUse, 'lastWriteMs' | 'pinned'>>;
  /** Why this store may not remove runs here (a role without the grant), or undefined. */
  whyNoRemoval(): Promise<string | undefined>;
  /** Removes the bytes no value names any more, after runs went. */
  collectGarbage(): Promise<void>;

  isPinned(runId: string): Promise<boolean>;
  setPinned(runId: string, pinned: boolean): Promise<void>;
  deleteRun(runId: string): Promise<void>;
  /** Removes the run if `still` says so once no one else writes it; whether it went. */
  deleteRunIf(runId: string, still: () => Promise<boolean>): Promise<boolean>;
}

/** A run's values: staged as they stream, placed once (visible only whole), read by line. */
export interface ValueStore {
  stage(
    runId: string,
    parts: Iterable<Buffer> | AsyncIterable<Buffer>,
    onPart?: (part: Buffer) => void | Promise<void>,
  ): Promise<StagedValue>;
  readStaged(staged: StagedValue): Promise<string>;
  discardStaged(staged: StagedValue): Promise<void>;
  /**
   * Places a staged value under the call's name (see FolderStore's values for the names it may
   * take). With `event`, the result's event (made from the value's metadata) is appended with it:
   * in one transaction where the store has them (a team store names the value only with its
   * event); a folder store places the value, then appends, and throws EventNotRecorded when only
   * the append failed.
   */
  place(
    staged: StagedValue,
    value: NewValue,
    valueId?: string,
    event?: (meta: ValueMeta) => TranscriptEvent,
  ): Promise<ValueMeta>;
  exists(runId: string, valueId: string): Promise<boolean>;
  lineIndex(runId: string, valueId: string): Promise<LineIndex>;
  readMeta(runId: string, valueId: string): Promise<ValueMeta>;
  readHead(runId: string, valueId: string, maxBytes: number): Promise<string>;
  /** Value ids and sizes of a run, oldest first (cheap). */
  listFiles(runId: string): Promise<{ valueId: string; bytes: number; mtimeMs: number }[]>;
  list(runId: string): Promise<ValueMeta[]>;
  readMetas(runId: string, files: readonly { valueId: string; bytes: number }[]): Promise<ValueMeta[]>;
  /** The value's bytes, for a reader (see lineReader.ts). */
  open(runId: string, valueId: string): OpenValue;
  /** Where an editor opens the value: a file URL, or a `retained:` URL the client reads through the server. */
  uri(runId: string, valueId: string): string;
  delete(runId: string, valueId: string): Promise<void>;
  /** Forgets what it cached of a run, after another process changed it. */
  dropCachesFor(runId: string): void;
}

/** A value placed whose event could not be appended: the value is there, no event names it yet. */
export class EventNotRecorded extends Error {
  constructor(
    readonly meta: ValueMeta,
    override readonly cause: unknown,
  ) {
    super(`the value ${meta.valueId} was kept, its event was not recorded: ${(cause as Error)?.message ?? cause}`);
  }
}

/** The most bytes of one run index: a bigger one is not one we wrote (offsets of a million events are a few MB). */
export const INDEX_MAX_BYTES = 64 << 20;

/**
 * A run's index, kept beside the run: text the inspector made (it checks what it reads back), kept
 * whole or not at all, and only while the run is as it was made from.
 */
export interface IndexShelf {
  /** The values' part of a run's stamp: it changes whenever a value of the run is added or removed ("none": no values). */
  valuesStamp(runId: string): Promise<string>;
  /** The run's index as last kept; undefined when there is none, or it is over `maxBytes`. */
  read(runId: string, maxBytes: number): Promise<string | undefined>;
  /** Keeps `text` as the run's index if `current()` still says so when it is ready to go in place. */
  write(runId: string, text: string, current: () => Promise<boolean>): Promise<void>;
}

/** A writer's temp file. */
export interface TempFile {
  path: string;
  bytes: number;
  /** Its writer is gone, or it is older than any write takes. */
  stale: boolean;
}
