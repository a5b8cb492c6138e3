/**
 * Search across a whole run: user and assistant text, tool-call arguments (as the inspector
 * shows them, indented JSON) and full results, retained or not. Answers name the event and the
 * line inside its body, so a hit past a cell's clip can open the value at that line.
 */
import { queryPattern, type QueryOptions } from './queryPattern';
import { cutToBytes } from './text';
import type { TranscriptEvent } from './transcript';

export interface RunSearchOptions extends QueryOptions {
  /** Most hits returned; counting goes on to `COUNT_MAX`. */
  limit?: number;
}

export interface RunSearchHit {
  index: number;
  /** Which body of the event: its text, one call's arguments, or its result. */
  where: 'text' | 'args' | 'result';
  callId?: string;
  /** 1-based line inside that body. */
  line: number;
  /** The matching line, cut to 240 bytes. */
  preview: string;
}

export interface RunSearchResult {
  hits: RunSearchHit[];
  /** Matching lines counted (at most COUNT_MAX). */
  total: number;
  /** True when there are more than `total`. */
  more: boolean;
}

const COUNT_MAX = 10_000;
const PREVIEW_BYTES = 240;

export class SearchError extends Error {}

function matcherFor(query: string, options: RunSearchOptions): RegExp {
  if (query.length === 0) throw new SearchError('query must not be empty');
  try {
    return queryPattern(query, options);
  } catch (err) {
    throw new SearchError(`query is not a valid regular expression: ${(err as Error).message}`);
  }
}

function* bodies(event: TranscriptEvent): Generator<{ where: RunSearchHit['where']; text: string; callId?: string }> {
  if (event.type === 'user') yield { where: 'text', text: event.text };
  if (event.type === 'assistant') {
    if (event.text) yield { where: 'text', text: event.text };
    for (const call of event.toolCalls ?? []) yield { where: 'args', text: JSON.stringify(call.arguments ?? {}, null, 2), callId: call.id };
  }
  if (event.type === 'tool_call_finished') yield { where: 'result', text: event.result, callId: event.callId };
}

export function searchRun(events: readonly TranscriptEvent[], query: string, options: RunSearchOptions = {}): RunSearchResult {
  const matcher = matcherFor(query, options);
  const limit = options.limit ?? 1000;
  const hits: RunSearchHit[] = [];
  let total = 0;
  for (let index = 0; index < events.length; index++) {
    for (const body of bodies(events[index]!)) {
      const { text } = body;
      matcher.lastIndex = 0;
      // One hit per matching line: count newlines between matches instead of splitting the body.
      let line = 1;
      let counted = 0;
      let lastLineStart = -1;
      for (let m = matcher.exec(text); m; m = matcher.exec(text)) {
        for (let at = text.indexOf('\n', counted); at !== -1 && at < m.index; at = text.indexOf('\n', at + 1)) {
          line++;
          counted = at + 1;
        }
        if (m[0].length === 0) matcher.lastIndex++;
        if (counted === lastLineStart) continue;
        lastLineStart = counted;
        if (++total > COUNT_MAX) return { hits, total: COUNT_MAX, more: true };
        if (hits.length < limit) {
          const end = text.indexOf('\n', m.index);
          const lineText = text.slice(counted, end === -1 ? text.length : end);
          hits.push({ index, where: body.where, line, preview: cutToBytes(lineText, PREVIEW_BYTES).kept, ...(body.callId ? { callId: body.callId } : {}) });
        }
        // Skip the rest of this line: one hit per line.
        const next = text.indexOf('\n', m.index);
        if (next === -1) break;
        matcher.lastIndex = Math.max(matcher.lastIndex, next);
      }
    }
  }
  return { hits, total, more: false };
}
