/**
 * Every text the model reads from Retained Outputs in place of a result, written and parsed
 * here and nowhere else: the `[retained #id]` marker, the stub's lines (header, omission,
 * landmarks, peek hint), the references of the history policy, the notice for a deleted value,
 * and the `N: ` gutter of peeked lines with `stripGutters`, its inverse.
 */
import type { Exit } from './events';
import { PEEK_TOOL } from './history';
import { ID_CHARS } from './ids';
import { LANDMARK_KINDS, type LandmarkKind } from './settings';
import { utf8Length } from './utf8';

/** `[retained #id]`: how every stub and reference begins. */
export function marker(valueId: string): string {
  return `[retained #${valueId}]`;
}

/** A marker in a text: its value id and where it is. */
export interface MarkerRef {
  valueId: string;
  start: number;
  end: number;
}

const MARKER = new RegExp(`\\[retained #(${ID_CHARS}{1,64})\\]`, 'g');

const LEADING_MARKER = new RegExp(`^\\[retained #${ID_CHARS}{1,64}\\]`);

/** Whether `text` begins with a marker, as a stub or a reference does. */
export function startsWithMarker(text: string): boolean {
  return LEADING_MARKER.test(text);
}

/** Every marker in `text`. */
export function findMarkers(text: string): MarkerRef[] {
  return [...text.matchAll(MARKER)].map((m) => ({ valueId: m[1]!, start: m.index, end: m.index + m[0].length }));
}

/** The marker at `offset`, looking only at the line around it (documents can be large). */
export function markerAt(text: string, offset: number): MarkerRef | undefined {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const lineEndAt = text.indexOf('\n', offset);
  const lineEnd = lineEndAt === -1 ? text.length : lineEndAt;
  return findMarkers(text.slice(lineStart, lineEnd))
    .map((ref) => ({ ...ref, start: ref.start + lineStart, end: ref.end + lineStart }))
    .find((ref) => ref.start <= offset && offset <= ref.end);
}

const oneLine = (text: string) => text.replace(/[\r\n]/g, ' ');
const kind = (isError: boolean | undefined) => (isError ? 'error' : 'result');

/** How a command ended, as a stub says it: `exit 2`, `killed by SIGTERM`, `killed by SIGKILL on its timeout`. */
export function exitText(exit: Exit): string {
  if ('code' in exit) return `exit ${exit.code}`;
  return `killed by ${exit.signal}${exit.timedOut ? ' on its timeout' : ''}`;
}

/** The stub's first line; a command's says how it ended. */
export function stubHeader(
  valueId: string,
  tool: string,
  isError: boolean | undefined,
  bytes: number,
  lines: number,
  exit?: Exit,
): string {
  const ended = exit ? `, ${exitText(exit)}` : '';
  return `${marker(valueId)} ${oneLine(tool)} ${kind(isError)}: ${bytes} bytes, ${lines} lines${ended}, kept out of context`;
}

/** The line between a stub's head and tail. */
export function omission(hidden: number, from: number, to: number): string {
  return `… ${hidden} lines not shown (${from}-${to}) …`;
}

/**
 * The stub's landmarks line, from parts like `exit code 2`, `error at line 4, 9`: the jump it
 * offers is to the first kind found (an error, when only an exit code was), the other kinds after it.
 */
export function landmarksText(parts: readonly string[], found: readonly LandmarkKind[] = [], tool = PEEK_TOOL): string {
  const first = found[0] ?? 'error';
  const others = LANDMARK_KINDS.filter((kind) => kind !== first).join(', ');
  return `Landmarks: ${parts.join('; ')}. Jump there with ${tool} {"landmark":"${first}"} (or ${others}).`;
}

/** How a stub tells the model to read the value. */
export function peekHint(valueId: string, maxLines: number, tool = PEEK_TOOL): string {
  return `Read it with ${tool}: {"id":"${valueId}","start":1,"end":${maxLines}} for lines, or {"id":"${valueId}","query":"text"} to search.`;
}

/** The reference the history policy sends for an earlier result. */
export function resultReference(valueId: string, tool: string, bytes: number, lines: number, isError: boolean): string {
  return `${marker(valueId)} ${tool} ${kind(isError)}: ${bytes} bytes, ${lines} lines, an earlier result kept out of context; read it with peek_value`;
}

/** The reference the history policy puts inside an earlier call's arguments for a long input string. */
export function inputReference(valueId: string, tool: string, path: string, bytes: number, lines: number): string {
  return `${marker(valueId)} ${tool} input ${path}: ${bytes} bytes, ${lines} lines, elided from an earlier call; read it with peek_value`;
}

/**
 * What replay sends for a retained result whose value was deleted from the store: that it is
 * gone, and how to get it again. Never the full text unasked, never a stub pointing at nothing.
 */
export function deletedNotice(
  valueId: string,
  tool: string,
  isError: boolean | undefined,
  bytes?: number,
  lines?: number,
): string {
  const size = bytes !== undefined ? `: ${bytes} bytes, ${lines ?? '?'} lines` : '';
  return `${marker(valueId)} ${oneLine(tool)} ${kind(isError)}${size}; its value was deleted from the store, so it can no longer be read. Run the tool again if you need it.`;
}

/** A link in a stub, for a view that makes them clickable. */
export type StubLink =
  /** The marker: opens the value. */
  | { start: number; end: number; valueId: string }
  /** A preview line's number, or a landmark's: opens the value there. */
  | { start: number; end: number; line: number }
  /** The peek hint's range: opens the value with those lines selected. */
  | { start: number; end: number; valueId: string; line: number; endLine: number };

const LINKS = new RegExp(
  `\\[retained #(${ID_CHARS}+)\\]|^([1-9]\\d*)(?=: |\\t)|(?<=\\bat line (?:\\d+, )*)(\\d+)|\\{"id":"(${ID_CHARS}+)","start":(\\d+),"end":(\\d+)\\}`,
  'gm',
);

/** The links of a stub or reference: its marker, its preview line numbers, landmark lines and peek hint. */
export function stubLinks(text: string): StubLink[] {
  const out: StubLink[] = [];
  for (const m of text.matchAll(LINKS)) {
    const start = m.index;
    const end = start + m[0].length;
    if (m[1]) out.push({ start, end, valueId: m[1] });
    else if (m[4]) out.push({ start, end, valueId: m[4], line: Number(m[5]), endLine: Number(m[6]) });
    else out.push({ start, end, line: Number(m[2] ?? m[3]) });
  }
  return out;
}

/** The `N: ` gutter peek puts before every line. */
export function gutterLine(lineNumber: number, text: string): string {
  return `${lineNumber}: ${text}`;
}

/** A line as an agent's file read numbers it (Claude Code's Read: the number, a tab, the line). */
export function readLine(lineNumber: number, text: string): string {
  return `${lineNumber}\t${text}`;
}

/** The last line of a read-shaped stub: which lines it leaves out, and how to read them. */
export function readRest(
  valueId: string,
  from: number,
  to: number,
  firstLine: number,
  maxLines: number,
  tool = PEEK_TOOL,
): string {
  const lines =
    firstLine === 1
      ? `lines ${from}-${to}`
      : `lines ${from}-${to} of this read (file lines ${from + firstLine - 1}-${to + firstLine - 1})`;
  return `… ${lines} not shown. Read them with ${tool}: {"id":"${valueId}","start":${from},"end":${Math.min(to, from + maxLines - 1)}}, or {"id":"${valueId}","query":"text"} to search.`;
}

/** A read-shaped stub back to the content that makes it (the agent numbers the lines again). */
export function readContent(stub: string): { content: string; startLine: number } {
  const lines = stub.split('\n');
  const startLine = Number(/^(\d+)\t/.exec(lines[0] ?? '')?.[1] ?? 0);
  return { content: lines.map((line) => line.replace(/^\d+\t/, '')).join('\n'), startLine };
}

/**
 * One gutter layer: optional indent, a line number, then `: ` (or a bare `:` at the end of a
 * line whose trailing space an editor trimmed), or the `→` that `cat -n`-style readers print.
 */
const GUTTER = /^ *\d+(?:: |:(?=\r?$)|→)/;

/**
 * The line a peek adds after a value's last line when that line has no newline (as `diff`
 * does), so lines read back rebuild the value exactly.
 */
export const NO_FINAL_NEWLINE = '\\ No newline at end of file';

/** A peek's own notice (`[peek: …]`): not a line of the value. */
const NOTICE = /^\[peek: .*\]\r?$/;

/** A peek's notice line, built here so stripGutters knows it. */
export function peekNotice(text: string): string {
  return `[peek: ${text}]`;
}

/** True when every non-empty line of `snippet` carries a peek gutter: text that came from a peek. */
export function hasGutters(snippet: string): boolean {
  const lines = snippet
    .split('\n')
    .filter((line) => line.length > 0 && line !== NO_FINAL_NEWLINE && !NOTICE.test(line));
  return lines.length > 0 && lines.every((line) => GUTTER.test(line));
}

/**
 * True when `snippet` is a range of lines copied from a peek answer: it carries the peek's notice
 * or `\ No newline at end of file`, or it has at least two lines, every one numbered, the numbers
 * rising. One numbered line (`200: OK`) is ordinary text, and a paste leaves it alone.
 */
export function isPeekRange(snippet: string): boolean {
  if (!hasGutters(snippet)) return false;
  const lines = snippet.split('\n');
  if (lines.some((line) => line === NO_FINAL_NEWLINE || NOTICE.test(line))) return true;
  const numbers = lines.flatMap((line) => {
    const number = /^ *(\d+)/.exec(line)?.[1];
    return number === undefined ? [] : [Number(number)];
  });
  return numbers.length >= 2 && numbers.every((n, i) => i === 0 || n > numbers[i - 1]!);
}

/**
 * Removes the gutter from a peeked snippet, with the notices a peek adds; `\ No newline at end
 * of file` takes the newline before it away. A gutter is removed only when every non-empty line
 * carries one, so ordinary text that merely starts with a number and a colon is left alone.
 * Each line keeps its own ending (`\r` stays), so CRLF and mixed endings survive.
 *
 * One layer by default, the peek's own, so lines read back rebuild the value exactly even when
 * they look like gutters themselves. With `stacked`, layers come off while every line has one
 * (`12: 5→text` → `text`): a peek of a read that had its own gutter, as an edit matcher wants it.
 */
export function stripGutters(snippet: string, { stacked = false } = {}): string {
  let lines = snippet.split('\n');
  const marked = lines.length > 1 && lines.some((line) => line === NO_FINAL_NEWLINE || NOTICE.test(line));
  if (marked) lines = lines.filter((line, i) => !(NOTICE.test(line) || (line === NO_FINAL_NEWLINE && i > 0)));
  do {
    const nonEmpty = lines.filter((line) => line.length > 0);
    if (nonEmpty.length === 0 || !nonEmpty.every((line) => GUTTER.test(line))) break;
    lines = lines.map((line) => line.replace(GUTTER, ''));
  } while (stacked);
  return lines.join('\n');
}

/**
 * What replay sends for a call with no recorded result: cut off before it finished, or its
 * result could not be written down. Also what the model gets live when the recording fails, so
 * the turn it saw and every replay of it agree.
 */
export const INTERRUPTED_RESULT =
  '[interrupted: no result was recorded for this call (it was cut off, or its result could not be stored)]';

/** A retained value as the index after a compaction names it (a value's metadata says all of it). */
export interface IndexedValue {
  valueId: string;
  tool: string;
  bytes: number;
  lines: number;
  isError: boolean;
  createdAt: string;
  /** What the call worked on (`npm test`, `package-lock.json`). */
  subject?: { text: string } | undefined;
  /** The stub the model got: its landmarks line is the index's too. */
  stub: string;
}

/** How the index after a compaction begins: it names an injected event as one. */
export const INDEX_OPENING = 'Retained Outputs kept ';

/** An event that handed the model the index after a compaction: text the agent added, not typed. */
export function isHandedIndex(event: { type: string; injected?: boolean; text?: string }): boolean {
  return event.type === 'user' && event.injected === true && (event.text ?? '').startsWith(INDEX_OPENING);
}

/** The most bytes the index after a compaction takes of the model's context. */
export const INDEX_MAX_BYTES = 1536;

/** How a list of values (the index, list_retained) says to read one, with the first as the example. */
export function readOneHint(valueId: string, tool = PEEK_TOOL): string {
  return `Read one with ${tool}: {"id":"${valueId}","start":1,"end":400}, or {"id":"${valueId}","query":"error"} to search.`;
}

/** A value's line in the index: what the call was, its size, how it ended, its landmarks. */
export function indexEntry(value: IndexedValue): string {
  const what = value.subject ? `${oneLine(value.tool)} ${oneLine(value.subject.text)}` : oneLine(value.tool);
  const landmarks = /^Landmarks: (.*?)\. Jump there with /m.exec(value.stub)?.[1];
  return `${marker(value.valueId)} ${what} ${kind(value.isError)}: ${value.bytes} bytes, ${value.lines} lines${landmarks ? `; ${landmarks}` : ''}`;
}

/**
 * What the model is handed after a compaction: the values retained before it, one line each, so
 * it reads them again rather than running the tools again. At most INDEX_MAX_BYTES: the newest and
 * the landmarked first, the rest counted, one `list` away. The same values give the same text.
 */
export function retainedIndex(
  values: readonly IndexedValue[],
  runId: string,
  tool = PEEK_TOOL,
  list = 'list_retained',
): string {
  if (values.length === 0) return '';
  const newest = [...values].sort(
    (a, b) => b.createdAt.localeCompare(a.createdAt) || a.valueId.localeCompare(b.valueId),
  );
  const first = newest[0]!.valueId;
  const head = `${INDEX_OPENING}${values.length === 1 ? 'this output' : `these ${values.length} outputs`} of the session whole before the compaction; each is one ${tool} away (not a tool run again):`;
  const hint = readOneHint(first, tool);
  const more = (n: number) => `… and ${n} more: ${list} {"runId":"${runId}"} names them all.`;
  const bytes = (text: string) => utf8Length(text) + 1;
  // Landmarked values (an error, a failing test) are kept first under the budget; then the newest.
  const order = [
    ...newest.filter((v) => /^Landmarks: /m.test(v.stub)),
    ...newest.filter((v) => !/^Landmarks: /m.test(v.stub)),
  ];
  const kept = new Set<IndexedValue>();
  let used = bytes(head) + bytes(hint) + bytes(more(values.length));
  for (const value of order) {
    const size = bytes(indexEntry(value));
    if (used + size > INDEX_MAX_BYTES) continue;
    kept.add(value);
    used += size;
  }
  const left = values.length - kept.size;
  return [head, ...newest.filter((v) => kept.has(v)).map(indexEntry), ...(left ? [more(left)] : []), hint].join('\n');
}
