/**
 * The Retained Outputs protocol: every `retained/…` message between the language server and its
 * clients, declared once. Each request is a namespace: its method, its params as a schema (the
 * server checks every request with it, and an unknown field is refused naming it), and its
 * result type. The server, the extension, the MCP server, the CLI and the tests import these.
 */
import { NotificationType, RequestType } from 'vscode-languageserver-protocol';
import * as z from 'zod';
import type { ImportFormat } from './agents';
import type { CallSubject } from './callSubject';
import {
  type Exit,
  ExitSchema,
  ImportFormatSchema,
  NewEventSchema,
  type RunSource,
  type StopReason,
  type TranscriptEvent,
} from './events';
import {
  type HistoryStats,
  INSPECT_VIEW,
  type Projected,
  REPLAY_SHAPES,
  REPLAY_VIEW,
  VIEWS,
  type View,
} from './history';
import { ID_MAX, PATH_MAX } from './ids';
import { MAX_QUERY_LENGTH } from './query';
import { HistoryPolicySchema, LANDMARK_KINDS, type LandmarkKind, type Settings, SettingsSchema } from './settings';
import type { RunUsage } from './usage';

export type { Exit };

const id = z.string().min(1).max(ID_MAX);
const whole = (min: number, max?: number) =>
  max === undefined ? z.number().int().min(min) : z.number().int().min(min).max(max);
const query = z.string().min(1).max(MAX_QUERY_LENGTH);
/**
 * Which store a request is of: the workspace's (the default); the team store in PostgreSQL
 * (`storeUrl` in initializationOptions); or the cache of agents' sessions the inspector shows
 * live (see SessionRequest), which is not the workspace's store.
 */
export const STORES = ['workspace', 'team', 'sessions'] as const;
const store = z.enum(STORES).optional();
export type StoreKey = (typeof STORES)[number];

/**
 * The largest message the language server reads (its JSON, so a result's escaped size counts):
 * a larger one is refused with an error, unread. The CLI and the MCP server's run_command
 * stream an output into its value instead, with no such limit.
 */
export const MAX_MESSAGE_BYTES = 256 << 20;

// ─── Retain ────────────────────────────────────────────────────────────────────────────────

export const RetainParams = z.strictObject({
  runId: id,
  callId: id,
  tool: id,
  text: z.string(),
  isError: z.boolean().optional(),
  /** How the command ended, for a command's output: its stub says it. */
  exit: ExitSchema.optional(),
  /** The call's arguments, recorded with the result. */
  arguments: z.unknown().optional(),
  turn: whole(0).optional(),
  durationMs: z.number().min(0).optional(),
  /**
   * The agent's guard withholds this result from the model: its original goes to `withheld/`
   * and the model gets a neutral notice saying where. The reason goes to the audit log only.
   */
  withheld: z.strictObject({ reason: z.string().max(1000).optional() }).optional(),
});
export type RetainParams = z.infer<typeof RetainParams>;

/**
 * A tool result held in a file, for a caller that has it on disk (an in-process agent that ran a
 * command into a file): read once and streamed into its value as it is read, so no text crosses
 * the protocol. The file must be a regular file; a relative path is the workspace's.
 */
export const RetainFileParams = RetainParams.omit({ text: true }).extend({
  path: z.string().min(1).max(PATH_MAX),
});
export type RetainFileParams = z.infer<typeof RetainFileParams>;

/** Where a withheld result's original went (see `retained/withhold`). */
export type WithheldOutcome = 'written' | 'failed' | 'unfinished' | 'skipped';

export interface RetainResult {
  /** Exactly what the model gets: the stub when retained, else the result itself. */
  content: string;
  retained: boolean;
  valueId?: string;
  uri?: string;
  bytes: number;
  lines: number;
  /** Why a result over the threshold was kept verbatim, or that the transcript append failed. */
  warning?: string;
  /** Set when the result was withheld: `content` is the notice. */
  withheld?: { outcome: WithheldOutcome; file?: string };
}

/** Client → server: record a tool result; retain it when it is over the threshold. */
export namespace RetainRequest {
  export const method = 'retained/retain';
  export const params = RetainParams;
  export const type = new RequestType<RetainParams, RetainResult, void>(method);
}

/** Client → server: record a tool result held in a file (see RetainFileParams), as retained/retain does. */
export namespace RetainFileRequest {
  export const method = 'retained/retainFile';
  export const params = RetainFileParams;
  export const type = new RequestType<RetainFileParams, RetainResult, void>(method);
}

export const WithholdParams = z.strictObject({
  runId: id,
  /** The results of one model response: one batch, one deadline. */
  results: z
    .array(
      z.strictObject({
        callId: id,
        tool: id,
        text: z.string(),
        isError: z.boolean().optional(),
        arguments: z.unknown().optional(),
        reason: z.string().max(1000).optional(),
      }),
    )
    .min(1)
    .max(100),
  /** The batch's deadline, from when it is queued (at most the default 30 s). */
  deadlineMs: whole(1, 30_000).optional(),
});
export type WithholdParams = z.infer<typeof WithholdParams>;

export interface WithholdResult {
  /** 12 hex digits: 48 random bits naming the batch in its files. */
  batch: string;
  results: { callId: string; content: string; outcome: WithheldOutcome; file?: string }[];
}

/**
 * Client → server: the agent's guard withholds these results (one model response's) from the
 * model. Each original goes to `withheld/<date>-withheld-<batch>-<index>-<callId>.txt` in the
 * store; each model gets a neutral notice and where the original is (the file, a failed write,
 * a write unfinished at the batch's deadline, or only the audit log). Every outcome goes to
 * `audit.jsonl`. The reasons never reach the model.
 */
export namespace WithholdRequest {
  export const method = 'retained/withhold';
  export const params = WithholdParams;
  export const type = new RequestType<WithholdParams, WithholdResult, void>(method);
}

export const AppendParams = z.strictObject({ runId: id, event: NewEventSchema });
export type AppendParams = z.infer<typeof AppendParams>;
/** Client → server: append a run_started, user, system, assistant, model_call, compaction or turn_ended event to a run. */
export namespace AppendRequest {
  export const method = 'retained/append';
  export const params = AppendParams;
  export const type = new RequestType<AppendParams, { ok: true }, void>(method);
}

// ─── Values and peek ───────────────────────────────────────────────────────────────────────

/** The reads `peek_value` offers: a line range, a search, or a landmark, always bounded (see peekTool.ts for the model's side). */
/** The most lines of context a search may ask for around each match. */
export const PEEK_CONTEXT_MAX = 20;

export const PeekInput = z.strictObject({
  start: whole(1).optional().describe('First line to read (1-based). With query: the line to start searching from.'),
  end: whole(1).optional().describe('Last line to read (inclusive).'),
  query: query.optional().describe('Text to search for; returns the matching lines with their numbers.'),
  ignoreCase: z.boolean().optional().describe('Match the query regardless of case.'),
  regex: z
    .boolean()
    .optional()
    .describe('Treat the query as a regular expression (RE2 syntax: no lookaround or backreferences).'),
  context: whole(0, PEEK_CONTEXT_MAX).optional().describe('Lines of context to show before and after each match.'),
  landmark: z
    .enum(LANDMARK_KINDS as [LandmarkKind, ...LandmarkKind[]])
    .optional()
    .describe(
      'Jump to the first lines that look like errors, failures, warnings or stack traces (the stub lists them as Landmarks), with 3 lines of context.',
    ),
});
export type PeekInput = z.infer<typeof PeekInput>;

export const PeekParams = PeekInput.extend({ valueId: id, runId: id.optional(), store });
export type PeekParams = z.infer<typeof PeekParams>;

export interface PeekAnswer {
  text: string;
  totalLines: number;
  bytes: number;
  truncated: boolean;
  /** Where the next call should start to continue a cut answer. */
  nextStart?: number;
  /** For a search: how many lines match in all. */
  matches?: number;
}
export interface PeekResult extends PeekAnswer {
  runId: string;
  valueId: string;
}

/** Client → server: a bounded read of a retained value, by line range or search. */
export namespace PeekRequest {
  export const method = 'retained/peek';
  export const params = PeekParams;
  export const type = new RequestType<PeekParams, PeekResult, void>(method);
}

export interface ValueMeta {
  runId: string;
  valueId: string;
  callId: string;
  tool: string;
  bytes: number;
  lines: number;
  sha256: string;
  isError: boolean;
  /** What the call worked on (the file it read, the command it ran), from its arguments. */
  subject?: CallSubject;
  /** ISO time the value was written. */
  createdAt: string;
  /** The stub the model got in its place ('' for a value some other tool dropped in). */
  stub: string;
}
/** A value as listed: its metadata without the stub, and the file's URI. */
export type ValueSummary = Omit<ValueMeta, 'stub'> & { uri: string };

/** The most values one answer lists. */
export const VALUES_PAGE_MAX = 1000;
export const ValuesParams = z.strictObject({
  runId: id,
  from: whole(0).optional(),
  limit: whole(1, VALUES_PAGE_MAX).optional(),
  store,
});
export type ValuesParams = z.infer<typeof ValuesParams>;
/** Client → server: a page of one run's retained values (oldest first), and how many it has. */
export namespace ValuesRequest {
  export const method = 'retained/values';
  export const params = ValuesParams;
  export const type = new RequestType<ValuesParams, { values: ValueSummary[]; total: number }, void>(method);
}

export const ValueParams = z.strictObject({ valueId: id, runId: id.optional(), store });
export type ValueParams = z.infer<typeof ValueParams>;
/** Client → server: one value's metadata with the stub the model got. */
export namespace ValueRequest {
  export const method = 'retained/value';
  export const params = ValueParams;
  export const type = new RequestType<ValueParams, ValueMeta & { uri: string }, void>(method);
}

export const ValueFileParams = z.strictObject({
  valueId: id.optional(),
  runId: id.optional(),
  /** Instead of valueId: the event of the run whose result a guard withheld. */
  event: z.number().int().min(0).optional(),
  store,
});
export type ValueFileParams = z.infer<typeof ValueFileParams>;
/**
 * Client → server: the file a value's document reads (shared/valueDocument.ts): a run's value,
 * a guard's withheld original by the name its notice gives, or the one an event withheld. The
 * server resolves ids; no client parses a store path.
 */
export namespace ValueFileRequest {
  export const method = 'retained/valueFile';
  export const params = ValueFileParams;
  export const type = new RequestType<ValueFileParams, { uri: string; bytes: number; valueId: string }, void>(method);
}

/** The most bytes one `retained/valueBytes` answer carries. */
export const VALUE_BYTES_MAX = 4 << 20;
export const ValueBytesParams = z.strictObject({
  valueId: id,
  runId: id,
  offset: z.number().int().min(0),
  length: z.number().int().min(1).max(VALUE_BYTES_MAX),
  store,
});
export type ValueBytesParams = z.infer<typeof ValueBytesParams>;
/**
 * Client → server: a stretch of a value that has no file on this machine (a team store's), for
 * its read-only document; base64, at most VALUE_BYTES_MAX bytes, with the value's whole size.
 */
export namespace ValueBytesRequest {
  export const method = 'retained/valueBytes';
  export const params = ValueBytesParams;
  export const type = new RequestType<ValueBytesParams, { base64: string; bytes: number }, void>(method);
}

export const DeleteParams = z.strictObject({ runId: id, valueId: id.optional(), store });
export type DeleteParams = z.infer<typeof DeleteParams>;
/** Client → server: delete one value (with valueId) or a whole run (without). */
export namespace DeleteRequest {
  export const method = 'retained/delete';
  export const params = DeleteParams;
  export const type = new RequestType<DeleteParams, { ok: true }, void>(method);
}

// ─── Runs ──────────────────────────────────────────────────────────────────────────────────

export interface RunSummary {
  /** The run's identity: a sanitized id, usable in every request. */
  runId: string;
  /** The id as its writer gave it. */
  name: string;
  /** What the run is called in a list, where it has more than an id: an imported session's first prompt. */
  title?: string;
  /** ISO time the run began. */
  startedAt: string;
  updatedAt: string;
  transcriptBytes: number;
  valueCount: number;
  valueBytes: number;
  /** Bytes the model did not get: each value's size less its stub's. */
  keptOutBytes: number;
  /** Kept from clean-ups (`retained/pin`). */
  pinned: boolean;
}

export const RunsParams = z.strictObject({ runIds: z.array(id).max(10_000).optional(), store });
export type RunsParams = z.infer<typeof RunsParams>;
/** Client → server: every run in the store, newest first; or just the runs named in `runIds`. */
export namespace RunsRequest {
  export const method = 'retained/runs';
  export const params = RunsParams;
  export const type = new RequestType<RunsParams | undefined, { runs: RunSummary[] }, void>(method);
}

export interface ReadResult {
  events: TranscriptEvent[];
  /** Lines that could not be parsed (a torn last line after a crash), with their line numbers. */
  skipped: { line: number; reason: string }[];
}

export const TranscriptParams = z.strictObject({
  runId: id,
  store,
  /** 0-based position of the first event to return. */
  from: whole(0).optional(),
  limit: whole(1, 10_000).optional(),
});
export type TranscriptParams = z.infer<typeof TranscriptParams>;
/** Client → server: a page of a run's transcript events (a retained result names its value). */
export namespace TranscriptRequest {
  export const method = 'retained/transcript';
  export const params = TranscriptParams;
  export const type = new RequestType<TranscriptParams, ReadResult, void>(method);
}

export interface StatusResult {
  root: string;
  /** Temp files crashed writers left (removed at the next start), and their bytes. */
  tempFiles: number;
  tempBytes: number;
  settings: Settings;
  runs: number;
  values: number;
  valueBytes: number;
  keptOutBytes: number;
  /** The store's size on disk: every file and folder once (identical values share their bytes), as `du -sb` counts. */
  storeBytes: number;
  /** `retained.cleanup.quotaBytes` (0: none), and whether the store is past it. */
  quotaBytes: number;
  overQuota: boolean;
  /** Results a guard withheld, in `withheld/`. */
  withheld: number;
}
export const StatusParams = z.strictObject({});
export type StatusParams = z.infer<typeof StatusParams>;
/** Client → server: the settings in force and where the store is. */
export namespace StatusRequest {
  export const method = 'retained/status';
  export const params = StatusParams;
  export const type = new RequestType<StatusParams | undefined, StatusResult, void>(method);
}

/** Server → client: a run changed (this server, or another process writing the same store); one per change. */
export namespace ChangedNotification {
  export const method = 'retained/changed';
  /** `store`: the team store's run (absent: the workspace's). */
  export const type = new NotificationType<{ runId: string; store?: 'team' }>(method);
}

/**
 * Server → client: whether the team store is served now. `problem` is why not, in words a user
 * acts on (a password refused, a database out of reach); absent, it is served again.
 */
export namespace StoreStateNotification {
  export const method = 'retained/storeState';
  export const type = new NotificationType<{ store: 'team'; problem?: string }>(method);
}

// ─── Store lifecycle ───────────────────────────────────────────────────────────────────────

export const PinParams = z.strictObject({ runId: id, pinned: z.boolean(), store });
export type PinParams = z.infer<typeof PinParams>;
/** Client → server: keep a run from clean-ups (`pinned: true`), or let them remove it again. */
export namespace PinRequest {
  export const method = 'retained/pin';
  export const params = PinParams;
  export const type = new RequestType<PinParams, { ok: true }, void>(method);
}

export const CleanupParams = z.strictObject({ dryRun: z.boolean().optional() });
export type CleanupParams = z.infer<typeof CleanupParams>;

export interface CleanupRemoval {
  runId: string;
  name: string;
  /** Why it goes: not written for `maxAgeDays`, or the oldest while the store is over its quota. */
  reason: 'age' | 'quota';
  /** ISO time of the run's last write. */
  lastWrite: string;
  /** Bytes its removal frees (values it shares with a run that stays free nothing). */
  bytes: number;
}

export interface CleanupResult {
  dryRun: boolean;
  removed: CleanupRemoval[];
  freedBytes: number;
  storeBytesBefore: number;
  storeBytesAfter: number;
  quotaBytes: number;
  maxAgeDays: number;
  /** Runs that stay though the rules would take them: kept by the user, or written in the last hour. */
  spared: { pinned: number; recent: number };
}

/**
 * Client → server: removes whole runs (transcript and values together), oldest first: those not
 * written for `retained.cleanup.maxAgeDays`, then more while the store is over
 * `retained.cleanup.quotaBytes`; never a pinned run or one written in the last hour. With
 * `dryRun`, says what would go and removes nothing. Each removal goes to the audit log.
 */
export namespace CleanupRequest {
  export const method = 'retained/cleanup';
  export const params = CleanupParams;
  export const type = new RequestType<CleanupParams | undefined, CleanupResult, void>(method);
}

/** One line of the store's audit log (`audit.jsonl`). */
export interface AuditRecord {
  ts: string;
  event: 'withheld' | 'written' | 'failed' | 'unfinished' | 'skipped' | 'settled' | 'removed';
  runId: string;
  callId?: string;
  /** A withheld result's batch (12 hex digits) and its place in it. */
  batch?: string;
  index?: number;
  /** The guard's reason: kept here, never in the model's context. */
  reason?: string;
  /** A withheld original's file (relative to the store), or a removed run's bytes. */
  file?: string;
  bytes?: number;
  sha256?: string;
  /** A failed write's error, cut short; why a write was skipped; how a late write ended. */
  error?: string;
  why?: string;
  outcome?: 'written' | 'failed';
}

// ─── History ───────────────────────────────────────────────────────────────────────────────

/** What the usage of a run asks (the inspector page sends the same, less the run). */
export const UsageQuery = z.strictObject({
  /**
   * `sent` (the default): as the agent sent it; `retained`: with Retained Outputs (for an imported
   * run, a simulation). No default in the schema: `baseline` is given without it.
   */
  view: z.enum(VIEWS).optional(),
  /** Older result bodies as references: the policy's fields, or `true` for the configured policy. */
  policy: z.union([z.boolean(), HistoryPolicySchema]).optional(),
  /** Every result in full: what the run would have sent without Retained Outputs (no policy). */
  full: z.boolean().optional(),
  /**
   * The run without Retained Outputs, whatever it is (then `view`, `policy` and `full` are not
   * given): an imported run as its agent sent it, a run recorded here with every result in full.
   */
  baseline: z.literal(true).optional(),
});
export type UsageQuery = z.infer<typeof UsageQuery>;
export const UsageParams = UsageQuery.extend({
  runId: id,
  /** `false`: the run alone, without its subagents' rows and the session's sum. */
  subagents: z.boolean().optional(),
  store,
});
export type UsageParams = z.infer<typeof UsageParams>;

export const ExportParams = z.strictObject({
  runId: id,
  format: z.enum(['json', 'markdown', 'html']),
  /** Only what model call k was sent, and its figures. */
  modelCall: whole(1).optional(),
  view: z.enum(VIEWS).default(INSPECT_VIEW),
  store,
});
export type ExportParams = z.input<typeof ExportParams>;
/**
 * Client → server: a run (or one model call) as a report to attach to a bug: JSON in the
 * protocol's shapes, Markdown, or one self-contained HTML file (no script, every text escaped).
 */
export namespace ExportRequest {
  export const method = 'retained/export';
  export const params = ExportParams;
  export const type = new RequestType<ExportParams, { text: string }, void>(method);
}
/**
 * Client → server: where each model call's tokens go (by part: they add up to its total), its
 * prompt-cache reads and writes (a simulation, as the Messages API bills them), its cost, and
 * the run's totals.
 */
export namespace UsageRequest {
  export const method = 'retained/usage';
  export const params = UsageParams;
  export const type = new RequestType<UsageParams, RunUsage, void>(method);
}

export const ReplayParams = z.strictObject({
  runId: id,
  shape: z.enum(REPLAY_SHAPES),
  /** `retained` (default): with Retained Outputs' stubs; `sent`: as the agent sent it (differs for an imported run). */
  view: z.enum(VIEWS).default(REPLAY_VIEW),
  /** Older result bodies as references: the policy's fields, or `true` for the configured policy. */
  policy: z.union([z.boolean(), HistoryPolicySchema]).optional(),
  /** Also report bytes and tokens sent versus a naive full replay. */
  stats: z.boolean().optional(),
  /**
   * The history model call k sent (1-based), rather than the next one; for an imported run that
   * records its requests, `request` then holds that request's other parts.
   */
  modelCall: whole(1).optional(),
});
export type ReplayParams = z.input<typeof ReplayParams>;

/** The parts of a request besides its messages, as a run records them (see FORMATS in shared/agents.ts for what it cannot). */
export interface RequestParts {
  /** The system prompt as sent (Anthropic's `system`, OpenAI's `instructions`). */
  system?: unknown;
  tools?: unknown[];
  /** The request's other fields (model, max_tokens, thinking, …). */
  fields: Record<string, unknown>;
  /** Headers the record names (Claude Code's betas, as `anthropic-beta`). */
  headers: Record<string, string>;
  /** Where the request put its cache breakpoints: a path into the body, and the mark. */
  cacheControl: { path: (string | number)[]; value: unknown }[];
  /** Set when the request is rebuilt from the conversation, not exactly: why. */
  rebuilt?: string;
  /** What the agent's session files do not record, so this request cannot hold it. */
  notRecorded: readonly string[];
}
export type ReplayResult =
  | { shape: 'text'; text: string }
  | (Projected & { stats?: HistoryStats; request?: RequestParts; body?: Record<string, unknown> });
/** The history in the shape asked for, and the transcript lines that could not be read. */
export type ReplayResponse = ReplayResult & { skipped: ReadResult['skipped'] };
/** Client → server: the model-facing history of a run, rebuilt from its transcript. */
export namespace ReplayRequest {
  export const method = 'retained/replay';
  export const params = ReplayParams;
  export const type = new RequestType<ReplayParams, ReplayResponse, void>(method);
}

// ─── Import ────────────────────────────────────────────────────────────────────────────────

/** What to do when the run an import would create exists already. */
export const IF_EXISTS = ['error', 'replace', 'new'] as const;
export type IfExists = (typeof IF_EXISTS)[number];

export const ImportParams = z.strictObject({
  /** A Claude Code session, a Codex rollout or a Copilot Chat replay; a relative path is the workspace's. */
  path: z.string().min(1).max(PATH_MAX),
  format: ImportFormatSchema.optional(),
  /** Defaults to the file's name. */
  runId: id.optional(),
  /** Default `error`: the answer names the run that exists, so a client can offer the other two. */
  ifExists: z.enum(IF_EXISTS).optional(),
  /** Also import a Claude Code session's subagents (`<session>/subagents/*.jsonl`) as runs of their own. Default true. */
  subagents: z.boolean().optional(),
});
export type ImportParams = z.infer<typeof ImportParams>;

export interface ImportResult {
  runId: string;
  name: string;
  format: ImportFormat;
  /** How faithfully the agent's model calls could be rebuilt (see RunSource). */
  fidelity: RunSource['fidelity'];
  events: number;
  toolCalls: number;
  /** Results over the threshold, stored as values. */
  retained: number;
  /** Full outputs the agent had kept in files that are gone: only what the model got survives. */
  lostOutputs: number;
  /** Lines that were not JSON (torn or foreign), by line number. */
  skippedLines: number[];
  /** Records not imported, by kind (`progress/hook_progress`: 12). */
  skipped: Record<string, number>;
  notes: string[];
  /** Subagent sessions imported as runs of their own. */
  subagents: ImportResult[];
  /**
   * Set when the run was the live run of this conversation (written by Retained Outputs' hook or
   * MCP server while the agent ran): the import enriched it, and this many of its values, whose
   * stubs the model got, were kept as they were.
   */
  enriched?: number;
}

/**
 * Client → server: import a real agent session (a format of IMPORT_FORMATS) as a run: its
 * events with the original times, big results as values, and what the agent really sent kept
 * apart from what Retained Outputs would send. When the run exists and `ifExists` is `error`,
 * the error's `data` is `{ runId }`.
 */
export namespace ImportRequest {
  export const method = 'retained/import';
  export const params = ImportParams;
  export const type = new RequestType<ImportParams, ImportResult, void>(method);
}

// ─── Agents' sessions ─────────────────────────────────────────────────────────────────────

export const SessionParams = z.strictObject({
  /** An agent's session file (a Claude Code session, a Codex rollout). */
  path: z.string().min(1).max(PATH_MAX),
});
export type SessionParams = z.infer<typeof SessionParams>;
export interface SessionResult {
  /** The session's run in the sessions store: read it with `store: 'sessions'`. */
  runId: string;
  name: string;
  format: ImportFormat;
}
/**
 * Client → server: an agent's session as a run of the sessions store (a cache beside the
 * workspace's store, given as `sessionsRoot`), converted again whenever the file has changed
 * since: for the inspector to show a live session, as the agent sent it and with Retained
 * Outputs, without copying anything into the workspace's store.
 */
export namespace SessionRequest {
  export const method = 'retained/session';
  export const params = SessionParams;
  export const type = new RequestType<SessionParams, SessionResult, void>(method);
}

// ─── Inspection ────────────────────────────────────────────────────────────────────────────

/** A body as a cell shows it: the first lines and bytes, and the size of the whole. */
export interface Clip {
  text: string;
  bytes: number;
  lines: number;
  /** True when `text` is only the start of the body. */
  cut: boolean;
}

export interface CallCell {
  id: string;
  name: string;
  /** The arguments as indented JSON. */
  arguments: Clip;
}

export type RowKind =
  | 'run_started'
  | 'user'
  | 'system'
  | 'assistant'
  | 'tool_result'
  | 'turn_ended'
  | 'compaction'
  | 'request_shape'
  | 'model_call';

/** The left column: the event as recorded, in full (clipped for display). */
export interface FullCell {
  kind: RowKind;
  ts?: string;
  text?: Clip;
  /** Reasoning blocks the assistant event carries (kept verbatim). */
  thinking?: number;
  /** Their readable text, joined (encrypted or redacted reasoning has none). */
  thinkingText?: Clip;
  calls?: CallCell[];
  tool?: string;
  callId?: string;
  durationMs?: number;
  isError?: boolean;
  /** The retained value holding this result, while its file exists. */
  valueId?: string;
  /** A guard withheld it: the text is the notice the model got; the original's file, if written. */
  withheld?: { outcome: WithheldOutcome; file?: string };
  stopReason?: StopReason;
  model?: string;
  agent?: string;
  tools?: string[];
  /** A user text the agent added (a system reminder, a command record). */
  injected?: boolean;
  /** An imported result: what the agent sent the model instead of the full result (clipped). */
  sent?: Clip;
  /** An imported result whose full output could not be recovered, and why. */
  lost?: string;
  /** A compaction: why the history restarted. */
  reason?: string;
  /** A request_shape: the tool definitions' size as sent (`tools` names them, `text` is the system prompt). */
  toolsBytes?: number;
}

/** How a body reached the model: whole, as our stub or reference, or as the agent's own cut (an imported run). */
export type ModelForm = 'verbatim' | 'stub' | 'reference' | 'truncated';

/** The right column: what the chosen model call sent for this event. */
export interface ModelCell {
  /** False when the event is not in the chosen model call (it came later, or is not a message). */
  sent: boolean;
  text?: Clip;
  form?: ModelForm;
  calls?: CallCell[];
  /** Results the replay made up for calls that never finished (interrupted). */
  synthetic?: string[];
  /** Bytes of this event's bodies the model did not get in full; all of it can be read back. */
  savedBytes: number;
}

export interface InspectRow {
  index: number;
  /** The first model call that sent this event (the number of calls + 1: not sent yet). */
  firstModelCall: number;
  full: FullCell;
  model: ModelCell;
}

/** A model call's place in the run: where its history ends. What the rows need, counted without the tokenizer. */
export interface ModelCallPlace {
  modelCall: number;
  /** Events before this index were sent. */
  cut: number;
  /** Set when this model call's request could not be rebuilt exactly from the agent's file: why (it is rebuilt from the conversation). */
  rebuilt?: string;
}

/** What one model call sent, against the same history with every body in full. */
export interface ModelCallFigures extends ModelCallPlace {
  bytesFull: number;
  bytesSent: number;
  tokensFull: number;
  tokensSent: number;
}

/** A run's counts and its model calls' places: what the rows need, ready before any token is counted. */
export interface RunCounts {
  events: number;
  userMessages: number;
  assistantMessages: number;
  toolCalls: number;
  errors: number;
  /** Results retained as values whose files exist. */
  retained: number;
  /** UTF-8 bytes of those results that the model got as stubs instead. */
  keptOutBytes: number;
  /** One entry per model call, the last being the next one (what a resume sends). */
  modelCalls: ModelCallPlace[];
  /** An imported run: which agent's session, and how faithfully its model calls were rebuilt. */
  source?: { format: RunSource['format']; fidelity: RunSource['fidelity']; version?: string };
  /** The view the counts are of. */
  view: View;
}

/** The counts with each model call's figures: bytes and estimated tokens, full against sent. */
export interface Outline extends RunCounts {
  modelCalls: ModelCallFigures[];
  totals: { bytesFull: number; bytesSent: number; tokensFull: number; tokensSent: number };
  tokenizer: string;
}

/** The most rows one inspect answers. */
export const INSPECT_PAGE_MAX = 500;

/** What the inspector asks of a run; the webview sends the same, less the run. */
export const InspectQuery = z.strictObject({
  /** Which model call's view of the history (1-based); default and past the end: the next one. */
  modelCall: whole(1).optional(),
  /** Apply the configured history policy to the model's view. */
  policy: z.boolean().optional(),
  /** For an imported run: `sent` (as the agent sent it, the default) or `retained` (with Retained Outputs). */
  view: z.enum(VIEWS).default(INSPECT_VIEW),
  /** First row (event index) and how many rows; without limit, only the outline comes back. */
  from: whole(0).optional(),
  limit: whole(0, INSPECT_PAGE_MAX).optional(),
  /**
   * False: answer with the rows as soon as they are read, without waiting for the token figures
   * (the outline then comes as its counts unless the figures are known already). Default true.
   */
  figures: z.boolean().optional(),
});
export type InspectQuery = z.input<typeof InspectQuery>;
export const InspectParams = InspectQuery.extend({ runId: id, store });
export type InspectParams = z.input<typeof InspectParams>;

/** An imported run's other view, its figures only: as its agent sent it, or with Retained Outputs. */
export interface Compare {
  view: View;
  totals: Outline['totals'];
  modelCalls: Pick<ModelCallFigures, 'tokensSent' | 'bytesSent'>[];
}

export interface InspectResult {
  /** The run's counts and model calls, with their figures unless `figures: false` was asked and they were not counted yet. */
  outline: Outline | RunCounts;
  /** For an imported run, with the figures: the other view's, so the two are read side by side in either view. */
  compare?: Compare;
  /** The model call the rows show, after clamping. */
  modelCall: number;
  rows: InspectRow[];
  /** Transcript lines that could not be read (a torn last line). */
  skipped: number;
  /**
   * With `policy`: how many values the shown model call's references name that are not written
   * yet. A replay writes them before it is sent; the inspector only shows them.
   */
  unwritten: number;
}

/** An inspect answer with its figures: what any inspect gives but one asking `figures: false`. */
export type FiguredInspectResult = Omit<InspectResult, 'outline'> & { outline: Outline };

/**
 * Client → server: a run as the inspector shows it. The outline (counts, bytes and estimated
 * tokens per model call, full versus sent) and rows `from`…`from+limit`: each event, clipped,
 * beside what model call `modelCall` sent for it, with the history policy when `policy`.
 */
export namespace InspectRequest {
  export const method = 'retained/inspect';
  export const params = InspectParams;
  export const type = new RequestType<InspectParams, InspectResult, void>(method);
}

export const SearchQuery = z.strictObject({ query, ignoreCase: z.boolean().optional(), regex: z.boolean().optional() });
export type SearchQuery = z.infer<typeof SearchQuery>;
export const RunSearchParams = SearchQuery.extend({ runId: id, store });
export type RunSearchParams = z.infer<typeof RunSearchParams>;

export interface RunSearchHit {
  index: number;
  /** Which body of the event: its text, one call's arguments, or its result. */
  where: 'text' | 'arguments' | 'result';
  callId?: string;
  /** 1-based line inside that body. */
  line: number;
  /** The matching line, cut to 240 bytes. */
  preview: string;
}

export interface RunSearchResult {
  hits: RunSearchHit[];
  /** Matching lines counted (at most 10,000). */
  total: number;
  /** True when there are more than `total`. */
  more: boolean;
}

/** Client → server: matching lines anywhere in a run (messages, arguments, full results), at most 1,000. */
export namespace RunSearchRequest {
  export const method = 'retained/search';
  export const params = RunSearchParams;
  export const type = new RequestType<RunSearchParams, RunSearchResult, void>(method);
}

// ─── Starting ──────────────────────────────────────────────────────────────────────────────

/** What the client passes in `initializationOptions` and `workspace/didChangeConfiguration`. */
export const ServerOptions = z.strictObject({
  /** Store root; defaults to `<first workspace folder>/.retained`. */
  storeRoot: z.string().min(1).max(PATH_MAX).optional(),
  /**
   * A team store's `postgres://` URL, served in place of the folder. Its password is never here:
   * libpq's PGPASSWORD (which the extension sets from VS Code's secret storage) or ~/.pgpass.
   */
  storeUrl: z
    .string()
    .max(PATH_MAX)
    .regex(/^postgres(ql)?:\/\//i, 'a postgres:// or postgresql:// URL')
    .refine(
      (url) => !/^postgres(ql)?:\/\/[^/@]*:[^/@]*@/i.test(url),
      'a URL without its password (keep that in secret storage)',
    )
    .optional(),
  settings: SettingsSchema.optional(),
  /** Where agents' sessions opened in the inspector are converted to (not the workspace's store). */
  sessionsRoot: z.string().min(1).max(PATH_MAX).optional(),
});
export type ServerOptions = z.infer<typeof ServerOptions>;

// ─── The inspector page's requests ─────────────────────────────────────────────────────────

/**
 * The requests the inspector page makes, one row each: the protocol request it becomes (the
 * extension adds the panel's run and store) and the parameters the page may give. The page's
 * types and the schema its messages are checked with (shared/messages.ts), the extension's
 * dispatch and the language server's serving all come from here; the inspection method of the
 * row's name answers it.
 */
export const PAGE_REQUESTS = {
  inspect: { request: InspectRequest, query: InspectQuery },
  search: { request: RunSearchRequest, query: SearchQuery },
  usage: { request: UsageRequest, query: UsageQuery },
} as const;
export type PageRequestMethod = keyof typeof PAGE_REQUESTS;
