/**
 * peek_value: a bounded answer from a retained value, by line range or by search. Every line
 * is `N: text`; an answer never exceeds `peekMaxBytes`, and a cut answer ends with a line
 * that says so and where to continue.
 */

import { InvalidInput } from '../../../../shared/invalidInput';
import type { PeekAnswer, PeekInput } from '../../../../shared/protocol';
import type { Settings } from '../../../../shared/settings';
import { gutterLine, NO_FINAL_NEWLINE, peekNotice } from '../../../../shared/stubText';
import type { LineIndex } from '../store/lineIndex';
import { type OpenValue, type ReadLine, readLines } from '../store/lineReader';
import { utf8Bytes, withCutMark } from '../text/bytes';
import { landmarkTest } from '../text/landmarks';
import { type LineMatch, lineMatch, searchLines } from './lineSearch';

/** Context shown around landmarks unless the request asks for other. */
const LANDMARK_CONTEXT = 3;

/** Room kept for the closing notice line. */
const NOTICE_RESERVE_BYTES = 240;
/** A query longer than this is not repeated in a notice ("the same query" stands for it). */
const ECHO_MAX_CHARS = 120;
/** How long one search may run before it answers with what it has and where to go on. */
export const SEARCH_BUDGET_MS = 10_000;

type Limits = Pick<Settings, 'peekMaxLines' | 'peekMaxBytes'> & Partial<Pick<Settings, 'landmarkPatterns'>>;

/** How the notices name a search: `label` in prose, `resume` as the arguments that repeat it. */
interface SearchName {
  label: string;
  resume: string;
}

/** A search: what matches, and how the notices name it. */
interface Search extends SearchName {
  match: LineMatch;
}

/** Names a query in notices: in full while short; a long one is "the query" and is not repeated. */
function queryName(request: PeekInput): SearchName {
  const query = request.query!;
  const flags = `${request.ignoreCase ? ',"ignoreCase":true' : ''}${request.regex ? ',"regex":true' : ''}`;
  if (query.length <= ECHO_MAX_CHARS)
    return { label: JSON.stringify(query), resume: `"query":${JSON.stringify(query)}${flags}` };
  return { label: `the query (${query.length} characters)`, resume: `"query":<the same query>${flags}` };
}

/** Collects rendered lines while they fit in the byte budget. */
class Answer {
  readonly lines: string[] = [];
  private used = 0;
  constructor(private readonly budget: number) {}

  /** Max bytes of line text one line may keep, so `linesPerWindow` lines always fit. */
  lineCap(linesPerWindow = 1): number {
    return Math.max(64, Math.floor(this.budget / linesPerWindow) - 64);
  }

  /** Adds a line if it fits; a line alone in the answer always fits (the reader cut it). */
  add(text: string): boolean {
    const size = utf8Bytes(text) + 1;
    if (this.lines.length > 0 && this.used + size > this.budget) return false;
    this.lines.push(text);
    this.used += size;
    return true;
  }
}

function render(line: ReadLine): string {
  return gutterLine(line.number, withCutMark(line.text, line.cutBytes));
}

export async function peekValue(
  open: OpenValue,
  index: LineIndex,
  valueId: string,
  request: PeekInput,
  limits: Limits,
): Promise<PeekAnswer> {
  // The request was checked against PeekInput where it came in; what is left is how its fields go together.
  const start = request.start ?? 1;
  const end = request.end;
  if (end !== undefined && end < start) throw new InvalidInput(`end (${end}) must not be before start (${start})`);
  const base = { totalLines: index.lines, bytes: index.bytes };
  if (request.landmark !== undefined) {
    if (request.query !== undefined) throw new InvalidInput('pass either query or landmark, not both');
    const context = contextOf(request, LANDMARK_CONTEXT);
    const test = landmarkTest(request.landmark, limits.landmarkPatterns);
    const search: Search = {
      match: { kind: 'text', test },
      label: `the ${request.landmark} landmark pattern`,
      resume: `"landmark":${JSON.stringify(request.landmark)}`,
    };
    return { ...base, ...(await find(open, index, valueId, search, start, end ?? index.lines, context, limits)) };
  }
  if (request.query !== undefined) {
    const context = contextOf(request, 0);
    const match = lineMatch({
      query: request.query,
      ignoreCase: request.ignoreCase === true,
      regex: request.regex === true,
    });
    return {
      ...base,
      ...(await find(
        open,
        index,
        valueId,
        { match, ...queryName(request) },
        start,
        end ?? index.lines,
        context,
        limits,
      )),
    };
  }
  if (index.lines === 0) return { ...base, text: '[peek: the value is empty]', truncated: false };
  if (start > index.lines) {
    throw new InvalidInput(`start (${start}) is past the end: the value has ${index.lines} lines`);
  }
  return { ...base, ...(await range(open, index, valueId, start, Math.min(end ?? Infinity, index.lines), limits)) };
}

async function range(open: OpenValue, index: LineIndex, valueId: string, start: number, end: number, limits: Limits) {
  const last = Math.min(end, start + limits.peekMaxLines - 1);
  const answer = new Answer(limits.peekMaxBytes - NOTICE_RESERVE_BYTES);
  let shownTo = start - 1;
  await readLines(open, index, start, answer.lineCap(), (line) => {
    if (line.number > last || !answer.add(render(line))) return false;
    shownTo = line.number;
    return line.number < last;
  });
  if (shownTo === index.lines && !index.finalNewline) answer.lines.push(NO_FINAL_NEWLINE);
  if (shownTo >= end) return { text: answer.lines.join('\n'), truncated: false };
  const nextStart = shownTo + 1;
  const why = shownTo < last ? `the ${limits.peekMaxBytes}-byte answer cap` : `the ${limits.peekMaxLines}-line cap`;
  answer.lines.push(
    peekNotice(
      `cut at ${why}: showing lines ${start}-${shownTo} of ${index.lines}; continue with {"id":"${valueId}","start":${nextStart}${end < index.lines ? `,"end":${end}` : ''}}`,
    ),
  );
  return { text: answer.lines.join('\n'), truncated: true, nextStart };
}

function contextOf(request: PeekInput, fallback: number): number {
  return request.context ?? fallback;
}

async function find(
  open: OpenValue,
  index: LineIndex,
  valueId: string,
  search: Search,
  from: number,
  to: number,
  context: number,
  limits: Limits,
) {
  const found = await searchLines(
    open,
    index,
    search.match,
    from,
    to,
    limits.peekMaxLines,
    Date.now() + SEARCH_BUDGET_MS,
  );
  const quoted = search.label;
  const name = search;
  const searchedAll = found.searchedTo >= Math.min(to, index.lines);
  if (found.total === 0 && searchedAll) {
    return {
      text: peekNotice(`no line matches ${quoted} in lines ${from}-${Math.min(to, index.lines)} of ${index.lines}`),
      truncated: false,
      matches: 0,
    };
  }
  if (found.total === 0) {
    const nextStart = found.searchedTo + 1;
    return {
      text: peekNotice(
        `no line matches ${quoted} in lines ${from}-${found.searchedTo} (the ${SEARCH_BUDGET_MS / 1000} s search budget ran out); continue with {"id":"${valueId}",${name.resume},"start":${nextStart}}`,
      ),
      truncated: true,
      nextStart,
      matches: 0,
    };
  }

  // Merge each match's context window into runs of lines to show.
  const windows: [number, number][] = [];
  for (const line of found.lines) {
    const lo = Math.max(1, line - context);
    const hi = Math.min(index.lines, line + context);
    const prev = windows[windows.length - 1];
    if (prev && lo <= prev[1] + 1) prev[1] = Math.max(prev[1], hi);
    else windows.push([lo, hi]);
  }

  // The closing notice repeats the query, so keep room for it.
  const answer = new Answer(limits.peekMaxBytes - NOTICE_RESERVE_BYTES - utf8Bytes(quoted) - utf8Bytes(name.resume));
  const lineCap = answer.lineCap(2 * context + 1);
  let lastMatchShown = 0;
  let lastShown = 0;
  let shownLines = 0;
  let full = false;
  const isMatch = new Set(found.lines);
  for (const [i, [lo, hi]] of windows.entries()) {
    if (i > 0 && !answer.add('--')) break;
    await readLines(open, index, lo, lineCap, (line) => {
      if (line.number > hi) return false;
      // Matches and their context together stay within the line cap.
      if (shownLines >= limits.peekMaxLines || !answer.add(render(line))) {
        full = true;
        return false;
      }
      shownLines++;
      if (isMatch.has(line.number)) lastMatchShown = line.number;
      lastShown = line.number;
      return line.number < hi;
    });
    if (full) break;
  }
  if (lastShown === index.lines && !index.finalNewline) answer.lines.push(NO_FINAL_NEWLINE);
  const shownMatches = found.lines.filter((l) => l <= lastMatchShown).length;
  if (shownMatches === found.total && searchedAll) {
    answer.lines.push(peekNotice(`${found.total} matching line${found.total === 1 ? '' : 's'}`));
    return { text: answer.lines.join('\n'), truncated: false, matches: found.total };
  }
  const nextStart = shownMatches === found.total ? found.searchedTo + 1 : lastMatchShown + 1;
  const through =
    shownMatches === found.total
      ? `searched through line ${found.searchedTo} before the ${SEARCH_BUDGET_MS / 1000} s budget ran out`
      : `through line ${lastMatchShown}`;
  answer.lines.push(
    peekNotice(
      `showing ${shownMatches} of ${found.total}${searchedAll ? '' : '+'} matching lines (${through}); continue with {"id":"${valueId}",${name.resume}${context ? `,"context":${context}` : ''},"start":${nextStart}}`,
    ),
  );
  return { text: answer.lines.join('\n'), truncated: true, nextStart, matches: found.total };
}
