/**
 * The messages between the inspector webview and the extension, declared once and imported by
 * both. The webview asks (inspect, search, open a value) and the extension answers; the
 * extension also says when the run changed. Everything the webview sends is checked with
 * `parseViewMessage` before use: a webview is a browser page, and its messages are input.
 */
import type { InspectParams, InspectResult, RunSearchResult, SearchRunParams } from '../../server/src/protocol';

/** What the webview keeps with `setState`, and the panel serializer restores. */
export interface InspectorState {
  runId: string;
  /** The request whose view is shown; absent: always the latest. */
  request?: number;
  policy: boolean;
  /** For an imported run: as the agent sent it, or with Retained Outputs. */
  view?: 'sent' | 'retained';
  query?: string;
  /** The event index at the top of the list. */
  scrollIndex?: number;
}

/** The requests the webview can make, with their parameters and results. */
export interface ViewRequests {
  inspect: { params: Omit<InspectParams, 'runId'>; result: InspectResult };
  search: { params: Omit<SearchRunParams, 'runId'>; result: RunSearchResult };
}
export type ViewRequestMethod = keyof ViewRequests;

export type ViewToHost =
  /** The page is loaded and listening: the extension answers with `init`. */
  | { type: 'ready' }
  | { [M in ViewRequestMethod]: { type: 'request'; id: number; method: M; params: ViewRequests[M]['params'] } }[ViewRequestMethod]
  /** Open a retained value of this run in an editor, at `line` (to `endLine`) when given. */
  | { type: 'openValue'; valueId: string; line?: number; endLine?: number }
  /** Open one event's whole body in an editor: its text or result, or one call's arguments. */
  | { type: 'openEvent'; index: number; callId?: string }
  /** The first rows are on screen, `ms` after the page started. */
  | { type: 'rendered'; ms: number; rows: number };

export type HostToView =
  | { type: 'init'; runId: string }
  | { type: 'response'; id: number; result: unknown }
  | { type: 'error'; id: number; message: string }
  /** The run changed (an event appended, a value written or deleted): fetch again. */
  | { type: 'changed' };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isWhole = (v: unknown, min: number) => typeof v === 'number' && Number.isInteger(v) && v >= min;
const optional = (v: unknown, check: (v: unknown) => boolean) => v === undefined || check(v);
const isBool = (v: unknown) => typeof v === 'boolean';

/** The message, or a sentence naming what is wrong with it. */
export function parseViewMessage(data: unknown): ViewToHost | string {
  if (!isObject(data) || typeof data.type !== 'string') return 'a message must be an object with a string "type"';
  switch (data.type) {
    case 'ready':
      return { type: 'ready' };
    case 'rendered':
      if (!(typeof data.ms === 'number' && Number.isFinite(data.ms) && data.ms >= 0) || !isWhole(data.rows, 0)) return 'rendered needs ms (a number) and rows (a whole number)';
      return { type: 'rendered', ms: data.ms, rows: data.rows as number };
    case 'openValue':
      if (typeof data.valueId !== 'string' || data.valueId.length === 0 || data.valueId.length > 256) return 'openValue needs a valueId string of 1 to 256 characters';
      if (!optional(data.line, (v) => isWhole(v, 1))) return 'openValue line must be a whole number of at least 1';
      if (!optional(data.endLine, (v) => isWhole(v, 1) && data.line !== undefined && (v as number) >= (data.line as number))) return 'openValue endLine must be a whole number, with line, not before it';
      return {
        type: 'openValue',
        valueId: data.valueId,
        ...(data.line !== undefined ? { line: data.line as number } : {}),
        ...(data.endLine !== undefined ? { endLine: data.endLine as number } : {}),
      };
    case 'openEvent':
      if (!isWhole(data.index, 0)) return 'openEvent index must be a whole number';
      if (!optional(data.callId, (v) => typeof v === 'string' && v.length > 0 && v.length <= 256)) return 'openEvent callId must be a string of 1 to 256 characters';
      return { type: 'openEvent', index: data.index as number, ...(data.callId !== undefined ? { callId: data.callId as string } : {}) };
    case 'request': {
      if (!isWhole(data.id, 0)) return 'request needs a whole-number id';
      const id = data.id as number;
      const p = data.params;
      if (!isObject(p)) return `request ${id}: params must be an object`;
      if (data.method === 'inspect') {
        for (const key of ['request', 'from', 'limit'] as const) {
          if (!optional(p[key], (v) => isWhole(v, key === 'request' ? 1 : 0))) return `request ${id}: inspect ${key} must be a whole number`;
        }
        if (!optional(p.policy, isBool)) return `request ${id}: inspect policy must be a boolean`;
        if (!optional(p.view, (v) => v === 'sent' || v === 'retained')) return `request ${id}: inspect view must be "sent" or "retained"`;
        const params = {
          ...(p.request !== undefined ? { request: p.request as number } : {}),
          policy: p.policy === true,
          ...(p.view !== undefined ? { view: p.view as 'sent' | 'retained' } : {}),
          from: (p.from as number | undefined) ?? 0,
          limit: (p.limit as number | undefined) ?? 0,
        };
        return { type: 'request', id, method: 'inspect', params };
      }
      if (data.method === 'search') {
        if (typeof p.query !== 'string' || p.query.length === 0 || p.query.length > 1000) return `request ${id}: search query must be a string of 1 to 1,000 characters`;
        if (!optional(p.ignoreCase, isBool) || !optional(p.regex, isBool)) return `request ${id}: search ignoreCase and regex must be booleans`;
        return { type: 'request', id, method: 'search', params: { query: p.query, ignoreCase: p.ignoreCase === true, regex: p.regex === true } };
      }
      return `request ${id}: unknown method ${JSON.stringify(data.method)}`;
    }
    default:
      return `unknown message type ${JSON.stringify(data.type)}`;
  }
}

/** The saved state, or undefined when it is not one (a state from another version). */
export function parseState(data: unknown): InspectorState | undefined {
  if (!isObject(data) || typeof data.runId !== 'string' || data.runId.length === 0) return undefined;
  return {
    runId: data.runId,
    policy: data.policy === true,
    ...(data.view === 'sent' || data.view === 'retained' ? { view: data.view } : {}),
    ...(isWhole(data.request, 1) ? { request: data.request as number } : {}),
    ...(typeof data.query === 'string' ? { query: data.query } : {}),
    ...(isWhole(data.scrollIndex, 0) ? { scrollIndex: data.scrollIndex as number } : {}),
  };
}
