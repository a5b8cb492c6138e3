/**
 * The messages between the inspector webview and the extension, declared once and imported by
 * both. The webview asks (inspect, search, open a value) and the extension answers; the
 * extension also says when the run changed. A webview is a browser page and its messages are
 * input: the extension checks each with `PageMessage` before use, as the server checks requests,
 * and checks the state the webview saved too, so the page itself parses nothing.
 */

import type { RequestType } from 'vscode-languageserver-protocol';
import * as z from 'zod';
import { check } from './check';
import { VIEWS } from './history';
import { ID_MAX, PATH_MAX } from './ids';
import { PAGE_REQUESTS, type PageRequestMethod } from './protocol';
import { MAX_QUERY_LENGTH } from './query';

const id = z.string().min(1).max(ID_MAX);
const line = z.number().int().min(1);

/** What the webview keeps with `setState`, and the panel serializer restores. */
export const InspectorState = z.object({
  runId: id,
  /** The model call whose view is shown; absent: always the latest. */
  modelCall: line.optional(),
  policy: z.boolean().default(false),
  /** For an imported run: as the agent sent it, or with Retained Outputs. */
  view: z.enum(VIEWS).optional(),
  query: z.string().max(MAX_QUERY_LENGTH).optional(),
  /** The event index at the top of the list. */
  scrollIndex: z.number().int().min(0).optional(),
  /** For an agent's session followed live: its file. */
  session: z.string().max(PATH_MAX).optional(),
  /** A run of the team store. */
  team: z.boolean().optional(),
});
export type InspectorState = z.infer<typeof InspectorState>;

type ResultOf<T> = T extends RequestType<infer _P, infer R, infer _E> ? R : never;
/** Each request's parameters (as the page gives them) and result. */
export type PageRequests = {
  [M in PageRequestMethod]: {
    params: z.input<(typeof PAGE_REQUESTS)[M]['query']>;
    result: ResultOf<(typeof PAGE_REQUESTS)[M]['request']['type']>;
  };
};
/** A request message: its method and that method's parameters. */
export type PageRequestMessage = {
  [M in PageRequestMethod]: { type: 'request'; id: number; method: M; params: PageRequests[M]['params'] };
}[PageRequestMethod];

const requestMessage = (method: PageRequestMethod) =>
  z.strictObject({
    type: z.literal('request'),
    id: z.number().int().min(0),
    method: z.literal(method),
    params: PAGE_REQUESTS[method].query,
  });
const [firstMethod, ...otherMethods] = Object.keys(PAGE_REQUESTS) as PageRequestMethod[];
const RequestMessage = z.discriminatedUnion('method', [
  requestMessage(firstMethod!),
  ...otherMethods.map(requestMessage),
]);

const time = z.number().min(0);
/** Steps of the page's start, in ms since it started: its script ran, init came, the first request went and was answered. */
const MarksSchema = z.strictObject({ script: time, init: time, request: time, answer: time }).partial();
export type Marks = z.infer<typeof MarksSchema>;

export const PageMessage = z.discriminatedUnion('type', [
  /** The page is loaded and listening, with the state it saved (unchecked): the extension answers with `init`. */
  z.strictObject({ type: z.literal('ready'), state: z.unknown().optional() }),
  RequestMessage,
  /** Open a retained value of this run in an editor, at `line` (to `endLine`) when given. */
  z
    .strictObject({ type: z.literal('openValue'), valueId: id, line: line.optional(), endLine: line.optional() })
    .refine((m) => m.endLine === undefined || (m.line !== undefined && m.endLine >= m.line), {
      message: 'endLine needs line, and must not come before it',
      path: ['endLine'],
    }),
  /** Open one event's whole body in an editor: its text or result, or one call's arguments. */
  z.strictObject({ type: z.literal('openEvent'), index: z.number().int().min(0), callId: id.optional() }),
  /** The first rows are on screen, `ms` after the page started; `marks`: when it got to each step before. */
  z.strictObject({
    type: z.literal('rendered'),
    ms: z.number().min(0),
    rows: z.number().int().min(0),
    marks: MarksSchema.optional(),
  }),
]);
/** A message of the page: a request (typed by its method), or one of the others. */
export type PageToHost = PageRequestMessage | Exclude<z.infer<typeof PageMessage>, { type: 'request' }>;

export type HostToPage =
  /** The run to show, and the saved state when it is a valid one of this run. */
  | { type: 'init'; runId: string; session?: string; team?: boolean; state?: InspectorState }
  | { type: 'response'; id: number; result: unknown }
  | { type: 'error'; id: number; message: string }
  /** The run changed (an event appended, a value written or deleted): fetch again. */
  | { type: 'changed' }
  /** A team run's store was lost (why, in words) or is served again (no `problem`). */
  | { type: 'storeState'; problem?: string };

/** The message, or throws an InvalidInput naming what is wrong with it. */
export function parsePageMessage(data: unknown): PageToHost {
  // The schema checks each request's parameters against its method's; its inferred type cannot pair them.
  return check(PageMessage, data, 'message') as PageToHost;
}

/** The saved state, or undefined when it is not one (a state from another version). */
export function parseState(data: unknown): InspectorState | undefined {
  const parsed = InspectorState.safeParse(data);
  return parsed.success ? parsed.data : undefined;
}
