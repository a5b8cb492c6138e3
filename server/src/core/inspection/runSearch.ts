/**
 * Search across a whole run: user and assistant text, tool-call arguments (as the inspector
 * shows them, indented JSON) and full results, retained or not (a result kept in a value is
 * searched in its file, streamed, by the caller's `searchValue`). Answers name the event and
 * the line inside its body, so a hit past a cell's clip can open the value at that line.
 */

import type { TranscriptEvent } from '../../../../shared/events';
import type { RunSearchHit, RunSearchResult } from '../../../../shared/protocol';
import { compileQuery, type LineMatcher, type QueryOptions } from '../../../../shared/query';
import { cutToBytes } from '../text/bytes';

export interface RunSearchOptions extends QueryOptions {
  /** Most hits returned; counting goes on to `COUNT_MAX`. */
  limit?: number;
}

const COUNT_MAX = 10_000;
const PREVIEW_BYTES = 240;

function matcherFor(query: string, options: RunSearchOptions): LineMatcher {
  return compileQuery(query, options);
}

function* bodies(event: TranscriptEvent): Generator<{ where: RunSearchHit['where']; text: string; callId?: string }> {
  if (event.type === 'user' || event.type === 'system') yield { where: 'text', text: event.text };
  if (event.type === 'compaction' && event.summary !== undefined) yield { where: 'text', text: event.summary };
  if (event.type === 'assistant') {
    if (event.text) yield { where: 'text', text: event.text };
    for (const call of event.toolCalls ?? [])
      yield { where: 'arguments', text: JSON.stringify(call.arguments ?? {}, null, 2), callId: call.id };
  }
  if (event.type === 'tool_call_finished' && event.result !== undefined)
    yield { where: 'result', text: event.result, callId: event.callId };
}

/** The matching lines of a result kept in a value: up to `keep` with their text, and how many in all. */
export type ValueSearch = (
  valueId: string,
  keep: number,
) => Promise<{ lines: { line: number; text: string }[]; total: number }>;

/** The lines of `text` that match, once each: numbered from 1, with their bounds. */
function* matchingLines(
  text: string,
  literal: string | undefined,
  matcher: LineMatcher,
): Generator<{ line: number; start: number; end: number }> {
  if (literal !== undefined) {
    // A literal is found with indexOf across the body, counting newlines only up to each hit.
    let line = 1;
    let counted = 0;
    for (let hit = text.indexOf(literal); hit !== -1; ) {
      for (let nl = text.indexOf('\n', counted); nl !== -1 && nl < hit; nl = text.indexOf('\n', nl + 1)) {
        line++;
        counted = nl + 1;
      }
      const end = text.indexOf('\n', hit);
      yield { line, start: counted, end: end === -1 ? text.length : end };
      if (end === -1) return;
      counted = end + 1;
      line++;
      hit = text.indexOf(literal, counted);
    }
    return;
  }
  let line = 1;
  for (let start = 0; ; line++) {
    const end = text.indexOf('\n', start);
    const lineEnd = end === -1 ? text.length : end;
    if (matcher.test(text.slice(start, lineEnd))) yield { line, start, end: lineEnd };
    if (end === -1) return;
    start = end + 1;
  }
}

export async function searchRun(
  events: readonly TranscriptEvent[],
  query: string,
  options: RunSearchOptions,
  searchValue: ValueSearch,
): Promise<RunSearchResult> {
  const matcher = matcherFor(query, options);
  const literal = !options.regex && !options.ignoreCase ? query : undefined;
  const limit = options.limit ?? 1000;
  const hits: RunSearchHit[] = [];
  let total = 0;
  const add = (hit: RunSearchHit) => {
    if (++total > COUNT_MAX) return false;
    if (hits.length < limit) hits.push(hit);
    return true;
  };
  for (let index = 0; index < events.length; index++) {
    const event = events[index]!;
    for (const body of bodies(event)) {
      for (const { line, start, end } of matchingLines(body.text, literal, matcher)) {
        if (
          !add({
            index,
            where: body.where,
            line,
            preview: cutToBytes(body.text.slice(start, end), PREVIEW_BYTES).kept,
            ...(body.callId ? { callId: body.callId } : {}),
          })
        )
          return { hits, total: COUNT_MAX, more: true };
      }
    }
    if (event.type === 'tool_call_finished' && event.result === undefined && event.valueId) {
      const found = await searchValue(event.valueId, Math.max(0, limit - hits.length));
      for (const { line, text } of found.lines) {
        if (!add({ index, where: 'result', line, preview: cutToBytes(text, PREVIEW_BYTES).kept, callId: event.callId }))
          return { hits, total: COUNT_MAX, more: true };
      }
      // Matches past those shown are counted too.
      total += found.total - found.lines.length;
      if (total > COUNT_MAX) return { hits, total: COUNT_MAX, more: true };
    }
  }
  return { hits, total, more: false };
}
