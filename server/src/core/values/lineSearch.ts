/**
 * Finds the lines of a value file that match a query, streaming it in chunks of whole lines.
 * A case-sensitive literal is searched in the raw bytes (as `grep -F` does); a regular
 * expression (RE2, linear time) or a case-insensitive query is tested line by line on decoded text.
 */
import { InvalidInput } from '../../../../shared/invalidInput';
import { compileQuery, type QueryOptions } from '../../../../shared/query';
import { checkpointFor, type LineIndex } from '../store/lineIndex';
import type { OpenValue, ValueBytes } from '../store/lineReader';

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
  open: OpenValue,
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
  const start = checkpointFor(index, { line: fromLine });
  const handle = await open();
  try {
    if (match.kind === 'bytes') {
      result.searchedTo = await searchLiteral(handle, index, match.needle, start, last, report, deadline, chunkBytes);
      return result;
    }
    const chunk = Buffer.allocUnsafe(chunkBytes);
    let position = start.offset;
    let line = start.line;
    /** The current line so far. */
    let carry: Buffer = Buffer.alloc(0);
    for (;;) {
      if (Date.now() > deadline && line > fromLine) {
        result.searchedTo = line - 1;
        break;
      }
      const { bytesRead } = await handle.read(chunk, 0, chunkBytes, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      const data = chunk.subarray(0, bytesRead);
      ({ carry, line } = scanText(data, carry, line, match.test, report));
      if (line > last) break;
    }
    if (carry.length > 0 && line <= last && match.test(carry.toString('utf8'))) report(line);
  } finally {
    await handle.close();
  }
  return result;
}

/**
 * A literal in the raw bytes, as `grep -F` does: the file is only searched (Buffer.indexOf, one
 * native pass); newlines are counted only around a hit, from the nearest index checkpoint, so
 * a search of 1 GB with a few hits reads it once and counts almost nothing. Each matching line
 * is reported once, in order. Returns the last line searched.
 */
async function searchLiteral(
  handle: ValueBytes,
  index: LineIndex,
  needle: Buffer,
  start: { line: number; offset: number },
  last: number,
  report: (line: number) => void,
  deadline: number,
  chunkBytes: number,
): Promise<number> {
  const chunk = Buffer.allocUnsafe(chunkBytes);
  /** A line start whose number is known: where counting resumes. */
  let known = { offset: start.offset, line: start.line };
  let chunkStart = start.offset;
  let resumeAt = start.offset; // the first byte not yet searched (past the last matching line)
  let tail = Buffer.alloc(0); // the previous chunk's last needle.length - 1 bytes
  /** A line reported whose newline is in a later chunk: nothing before that newline counts. */
  let openLine: number | undefined;
  const newlinesBetween = async (from: number, to: number, data: Buffer) => {
    let count = 0;
    if (from >= chunkStart) {
      for (
        let at = data.indexOf(NEWLINE, from - chunkStart);
        at !== -1 && at < to - chunkStart;
        at = data.indexOf(NEWLINE, at + 1)
      )
        count++;
      return count;
    }
    const piece = Buffer.allocUnsafe(1 << 20);
    for (let at = from; at < to; ) {
      const { bytesRead } = await handle.read(piece, 0, Math.min(piece.length, to - at), at);
      if (bytesRead === 0) break;
      for (let nl = piece.indexOf(NEWLINE); nl !== -1 && nl < bytesRead; nl = piece.indexOf(NEWLINE, nl + 1)) count++;
      at += bytesRead;
    }
    return count;
  };
  for (;;) {
    if (Date.now() > deadline && known.line > start.line) return known.line - 1;
    const { bytesRead } = await handle.read(chunk, 0, chunkBytes, chunkStart);
    if (bytesRead === 0) return last;
    const data = chunk.subarray(0, bytesRead);
    if (openLine !== undefined) {
      const nl = data.indexOf(NEWLINE);
      if (nl === -1) {
        chunkStart += bytesRead;
        tail = Buffer.alloc(0);
        continue;
      }
      resumeAt = chunkStart + nl + 1;
      known = { offset: resumeAt, line: openLine + 1 };
      openLine = undefined;
      tail = Buffer.alloc(0);
    }
    // A needle that straddles the boundary starts in `tail`.
    const seam = tail.length ? Buffer.concat([tail, data.subarray(0, needle.length - 1)]) : undefined;
    const hits: number[] = [];
    if (seam)
      for (let at = seam.indexOf(needle); at !== -1 && at < tail.length; at = seam.indexOf(needle, at + 1))
        hits.push(chunkStart - tail.length + at);
    for (
      let at = data.indexOf(needle, Math.max(0, resumeAt - chunkStart));
      at !== -1;
      at = data.indexOf(needle, at + 1)
    )
      hits.push(chunkStart + at);
    for (const hit of hits) {
      if (hit < resumeAt) continue;
      // From the nearest checkpoint at or before the hit, if it is past what is known.
      const cp = checkpointFor(index, { offset: hit });
      if (cp.offset > known.offset) known = cp;
      const line = known.line + (await newlinesBetween(known.offset, hit, data));
      if (line > last) return last;
      report(line);
      // The rest of this line cannot report it again: go on after its newline.
      const nl = hit >= chunkStart ? data.indexOf(NEWLINE, hit - chunkStart) : data.indexOf(NEWLINE);
      if (nl === -1) {
        openLine = line;
        break;
      }
      resumeAt = chunkStart + nl + 1;
      known = { offset: resumeAt, line: line + 1 };
    }
    tail =
      openLine === undefined
        ? Buffer.from(data.subarray(Math.max(resumeAt - chunkStart, bytesRead - (needle.length - 1))))
        : Buffer.alloc(0);
    chunkStart += bytesRead;
    if (resumeAt < chunkStart - tail.length) resumeAt = chunkStart - tail.length;
  }
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
