/**
 * The Retained Outputs protocol: every custom message between the language server and its
 * clients, declared once. The server, the extension and the tests import these objects, so a
 * renamed field fails to compile on every side.
 */
import { NotificationType, RequestType } from 'vscode-languageserver-protocol';
import type { PeekParams, PeekResult, ReplayResult, ReplayShape, RetainParams, RetainResult } from './core/retention';
import type { HistoryPolicy } from '../../shared/settings';
import type { IfExists, ImportFormat, ImportParams, ImportResult } from './core/import/importRun';
import type { CallCell, Clip, FullCell, InspectRow, ModelCell, ModelForm, Outline, RequestFigures } from './core/inspection';
import type { InspectParams, InspectResult } from './core/runInspector';
import type { RunSearchHit, RunSearchResult } from './core/runSearch';
import type { Block, Message, View } from './core/replay';
import type { Settings } from '../../shared/settings';
import type { RunSummary, ValueMeta } from './core/store';
import type { ReadResult, StopReason, TranscriptEvent } from './core/transcript';

export type { View };
export type { CallCell, Clip, FullCell, InspectParams, InspectResult, InspectRow, ModelCell, ModelForm, Outline, RequestFigures, RunSearchHit, RunSearchResult };
export type { Block, IfExists, ImportFormat, ImportParams, ImportResult, Message, PeekParams, PeekResult, ReadResult, ReplayShape, RetainParams, RetainResult, RunSummary, Settings, StopReason, TranscriptEvent, ValueMeta };

/** Client → server: record a tool result; retain it when it is over the threshold. */
export namespace RetainRequest {
  export const method = 'retained/retain';
  export const type = new RequestType<RetainParams, RetainResult, void>(method);
}

/** Client → server: a bounded read of a retained value, by line range or search. */
export namespace PeekRequest {
  export const method = 'retained/peek';
  export const type = new RequestType<PeekParams, PeekResult, void>(method);
}

export interface AppendParams {
  runId: string;
  event: TranscriptEvent;
}
/** Client → server: append a run_started, user, assistant or turn_ended event to a run. */
export namespace AppendRequest {
  export const method = 'retained/append';
  export const type = new RequestType<AppendParams, { ok: true }, void>(method);
}

/** Client → server: every run in the store, newest first; or just the runs named in `runIds`. */
export namespace RunsRequest {
  export const method = 'retained/runs';
  export const type = new RequestType<{ runIds?: string[] } | undefined, { runs: RunSummary[] }, void>(method);
}

/** A value as listed: its metadata without the stub, and the file's URI. */
export type ValueSummary = Omit<ValueMeta, 'stub'> & { uri: string };

/** Client → server: the retained values of one run, oldest first. */
export namespace ValuesRequest {
  export const method = 'retained/values';
  export const type = new RequestType<{ runId: string }, { values: ValueSummary[] }, void>(method);
}

/** Client → server: one value's metadata with the stub the model got. */
export namespace ValueRequest {
  export const method = 'retained/value';
  export const type = new RequestType<{ runId: string; valueId: string }, ValueMeta & { uri: string }, void>(method);
}

export interface TranscriptParams {
  runId: string;
  /** 0-based position of the first event to return. */
  from?: number;
  limit?: number;
}
/** Client → server: a page of a run's transcript events, full results included. */
export namespace TranscriptRequest {
  export const method = 'retained/transcript';
  export const type = new RequestType<TranscriptParams, ReadResult, void>(method);
}

export interface ReplayParams {
  runId: string;
  shape: ReplayShape;
  /** `retained` (default): with Retained Outputs' stubs; `sent`: as the agent sent it (differs for an imported run). */
  view?: View;
  /** Older result bodies as references: `{keepRounds?, inlineMaxBytes?, exemptTools?}`, or `true` for the configured policy. */
  policy?: Partial<HistoryPolicy> | boolean;
  /** Also report bytes and tokens sent versus a naive full replay. */
  stats?: boolean;
}
/** The history in the shape asked for, and the transcript lines that could not be read. */
export type ReplayResponse = ReplayResult & { skipped: ReadResult['skipped'] };
/** Client → server: the model-facing history of a run, rebuilt from its transcript. */
export namespace ReplayRequest {
  export const method = 'retained/replay';
  export const type = new RequestType<ReplayParams, ReplayResponse, void>(method);
}

/**
 * Client → server: import a real agent session (Claude Code, Codex) as a run: its events with
 * the original times, big results as values, and what the agent really sent kept apart from
 * what Retained Outputs would send. When the run exists and `ifExists` is `error`, the error's
 * `data` is `{ runId }`.
 */
export namespace ImportRequest {
  export const method = 'retained/import';
  export const type = new RequestType<ImportParams, ImportResult, void>(method);
}

/**
 * Client → server: a run as the inspector shows it. The outline (counts, bytes and estimated
 * tokens per request, full versus sent) and rows `from`…`from+limit` (at most 500): each event,
 * clipped, beside what request `request` sent for it, with the history policy when `policy`.
 */
export namespace InspectRequest {
  export const method = 'retained/inspect';
  export const type = new RequestType<InspectParams, InspectResult, void>(method);
}

export interface SearchRunParams {
  runId: string;
  query: string;
  ignoreCase?: boolean;
  regex?: boolean;
}
/** Client → server: matching lines anywhere in a run (messages, arguments, full results), at most 1,000. */
export namespace SearchRunRequest {
  export const method = 'retained/search';
  export const type = new RequestType<SearchRunParams, RunSearchResult, void>(method);
}

/** Client → server: delete one value (with valueId) or a whole run (without). */
export namespace DeleteRequest {
  export const method = 'retained/delete';
  export const type = new RequestType<{ runId: string; valueId?: string }, { ok: true }, void>(method);
}

/** Client → server: the settings in force and where the store is. */
export namespace StatusRequest {
  export const method = 'retained/status';
  export const type = new RequestType<Record<string, never> | undefined, { root: string; settings: Settings; runs: number; values: number; valueBytes: number; keptOutBytes: number }, void>(method);
}

/** Server → client: a run changed (this server, or another process writing the same store). */
export namespace ChangedNotification {
  export const method = 'retained/changed';
  export const type = new NotificationType<{ runId: string }>(method);
}

/** What the client passes in `initializationOptions` and `workspace/didChangeConfiguration`. */
export interface ServerOptions {
  /** Store root; defaults to `<first workspace folder>/.retained`. */
  storeRoot?: string;
  settings?: Partial<Settings>;
}
