/**
 * Finds the lines of a value file that match a query, streaming it in chunks of whole lines.
 * A case-sensitive literal is searched in the raw bytes (as `grep -F` does); a regular
 * expression (RE2, linear time) or a case-insensitive query is tested line by line on decoded text.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { InvalidInput } from '../../../../shared/invalidInput';
import { compileQuery, type QueryOptions } from '../../../../shared/query';
import { checkpointFor, type LineIndex } from '../store/lineIndex';

const CHUNK_BYTES = 4 << 20;
const NEWLINE = 0x0a;

export interface Query extends QueryOptions {
  query: string;
}

/**
 * How a search recognizes a matching line: a literal in the raw bytes (as `grep -F` does, even
 * across one huge line), or a test of each line's text, of which only the first
 * LINE_TEST_MAX_BYTES are held, so one 1 GB line never sits in memory whole.
 */
export type LineMatch = { kind: 'bytes'; needle: Buffer } | { kind: 'text'; test: (line: string) => boolean };

/** Bytes of one line a text test sees. */
export const LINE_TEST_MAX_BYTES = 1 << 20;

/** The query as a line match, in the one query dialect; throws an InvalidInput naming the problem. */
export function lineMatch(q: Query): LineMatch {
  const matcher = compileQuery(q.query, q);
  if (q.regex || q.ignoreCase) return { kind: 'text', test: (line) => matcher.test(line) };
  const needle = Buffer.from(q.query, 'utf8');
  if (needle.includes(NEWLINE)) throw new InvalidInput('query must be a single line (it holds a newline)');
  return { kind: 'bytes', needle };
}

export interface SearchResult {
  /** Matching line numbers, ascending, at most `keep` of them. */
  lines: number[];
  /** How many lines match, from `fromLine` to `searchedTo`. */
  total: number;
  /** The last line searched: `toLine`, or less when the time budget ran out. */
  searchedTo: number;
}

/**
 * Streams the value from the index checkpoint at or before `fromLine`, a chunk at a time, and
 * reports matching lines. Memory stays at one chunk (and LINE_TEST_MAX_BYTES of a line); the
 * file is read with awaits between chunks, so other requests are served meanwhile; past
 * `deadline` (ms since the epoch) the search stops where it is and says so in `searchedTo`.
 */
export async function searchLines(
  path: string,
  index: LineIndex,
  match: LineMatch,
  fromLine: number,
  toLine: number,
  keep: number,
  deadline = Infinity,
  /** Bytes read at a time (small in tests, to cross chunk boundaries often). */
  chunkBytes = CHUNK_BYTES,
): Promise<SearchResult> {
  const last = Math.min(toLine, index.lines);
  const result: SearchResult = { lines: [], total: 0, searchedTo: last };
  if (fromLine > last) return result;
  const report = (line: number) => {
    if (line < fromLine || line > last) return;
    result.total++;
    if (result.lines.length < keep) result.lines.push(line);
  };
  const start = checkpointFor(index, fromLine);
  // Never through a link (the store checked the folders on the way; see safeFs.ts).
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const chunk = Buffer.allocUnsafe(chunkBytes);
    let position = start.offset;
    let line = start.line;
    /** Literal: the tail of the previous chunk a needle may start in; text: the current line so far. */
    let carry: Buffer = Buffer.alloc(0);
    let lineMatched = false;
    for (;;) {
      if (Date.now() > deadline && line > fromLine) {
        result.searchedTo = line - 1;
        break;
      }
      const { bytesRead } = await handle.read(chunk, 0, chunkBytes, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      const data = chunk.subarray(0, bytesRead);
      if (match.kind === 'bytes') {
        ({ carry, line, lineMatched } = scanBytes(
          Buffer.concat([carry, data]),
          carry.length,
          match.needle,
          line,
          lineMatched,
          report,
        ));
      } else {
        ({ carry, line } = scanText(data, carry, line, match.test, report));
      }
      if (line > last) break;
    }
    if (match.kind === 'text' && carry.length > 0 && line <= last && match.test(carry.toString('utf8'))) report(line);
  } finally {
    await handle.close();
  }
  return result;
}

/**
 * Finds the needle in `data`, whose first `seen` bytes are the previous chunk's tail (scanned,
 * and their newlines counted, before), reporting each line with a hit once. Returns the tail a
 * needle straddling into the next chunk may start in, and the line at the end of `data`.
 */
function scanBytes(
  data: Buffer,
  seen: number,
  needle: Buffer,
  line: number,
  lineMatched: boolean,
  report: (line: number) => void,
) {
  let current = line;
  let matched = lineMatched;
  let counted = seen;
  const countTo = (end: number) => {
    for (let nl = data.indexOf(NEWLINE, counted); nl !== -1 && nl < end; nl = data.indexOf(NEWLINE, nl + 1)) {
      current++;
      matched = false;
      counted = nl + 1;
    }
  };
  let next = 0;
  for (let hit = data.indexOf(needle); hit !== -1; hit = data.indexOf(needle, hit + 1)) {
    countTo(hit);
    if (!matched) report(current);
    matched = true;
    next = hit + 1;
  }
  countTo(data.length);
  // A needle that starts in the last needle.length - 1 bytes (after the last hit) may go on in the next chunk.
  const carry = Buffer.from(data.subarray(Math.max(next, data.length - (needle.length - 1))));
  return { carry, line: current, lineMatched: matched };
}

/** Tests each line that ends in `data`; returns the unfinished line's start (at most LINE_TEST_MAX_BYTES). */
function scanText(
  data: Buffer,
  carry: Buffer,
  line: number,
  test: (line: string) => boolean,
  report: (line: number) => void,
) {
  let current = line;
  let held = carry;
  let from = 0;
  for (let nl = data.indexOf(NEWLINE); nl !== -1; nl = data.indexOf(NEWLINE, from)) {
    const room = LINE_TEST_MAX_BYTES - held.length;
    const text = (
      held.length
        ? Buffer.concat([held, data.subarray(from, from + Math.max(0, Math.min(room, nl - from)))])
        : data.subarray(from, Math.min(nl, from + LINE_TEST_MAX_BYTES))
    ).toString('utf8');
    if (test(text)) report(current);
    held = Buffer.alloc(0);
    current++;
    from = nl + 1;
  }
  const room = LINE_TEST_MAX_BYTES - held.length;
  if (from < data.length && room > 0)
    held = Buffer.concat([held, data.subarray(from, from + Math.min(room, data.length - from))]);
  return { carry: held, line: current };
}
