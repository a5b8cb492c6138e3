/**
 * Finds the lines of a value file that match a query, streaming it in chunks of whole lines.
 * A case-sensitive literal is searched in the raw bytes (as `grep -F` does); a regular
 * expression or a case-insensitive query is tested line by line on decoded text.
 */
import { open } from 'node:fs/promises';
import { checkpointFor, type LineIndex } from './lineIndex';

const CHUNK_BYTES = 4 << 20;
const NEWLINE = 0x0a;

export interface Query {
  query: string;
  ignoreCase?: boolean;
  regex?: boolean;
}

/** Reports the numbers of matching lines in `region` (whole lines, the first numbered `firstLine`). */
type RegionMatcher = (region: Buffer, firstLine: number, report: (line: number) => void) => void;

/** Throws an Error naming the problem when the query cannot be compiled. */
export function compileQuery(q: Query): RegionMatcher {
  if (q.query.length === 0) throw new Error('query must not be empty');
  if (!q.regex && !q.ignoreCase) {
    const needle = Buffer.from(q.query, 'utf8');
    if (needle.includes(NEWLINE)) throw new Error('query must be a single line (it holds a newline)');
    return (region, firstLine, report) => {
      let line = firstLine;
      let counted = 0; // newlines before `counted` are already in `line`
      for (let hit = region.indexOf(needle); hit !== -1; ) {
        for (let nl = region.indexOf(NEWLINE, counted); nl !== -1 && nl < hit; nl = region.indexOf(NEWLINE, nl + 1)) {
          line++;
          counted = nl + 1;
        }
        report(line);
        const lineEnd = region.indexOf(NEWLINE, hit);
        if (lineEnd === -1) break;
        counted = lineEnd + 1;
        line++;
        hit = region.indexOf(needle, counted);
      }
    };
  }
  let test: (line: string) => boolean;
  if (q.regex) {
    let re: RegExp;
    try {
      re = new RegExp(q.query, q.ignoreCase ? 'iu' : 'u');
    } catch (err) {
      throw new Error(`query is not a valid regular expression: ${(err as Error).message}`);
    }
    test = (line) => re.test(line);
  } else {
    const needle = q.query.toLowerCase();
    test = (line) => line.toLowerCase().includes(needle);
  }
  return (region, firstLine, report) => {
    const lines = region.toString('utf8').split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    lines.forEach((line, i) => {
      if (test(line)) report(firstLine + i);
    });
  };
}

export interface SearchResult {
  /** Matching line numbers, ascending, at most `keep` of them. */
  lines: number[];
  /** How many lines match in all, from `fromLine` to `toLine`. */
  total: number;
}

/**
 * Streams the value in regions of whole lines that start and end at line-index checkpoints,
 * about 1 MiB each, so every region's first line number is known without counting newlines:
 * only a region with a hit pays for counting, and only up to its hits.
 */
export async function searchLines(
  path: string,
  index: LineIndex,
  matcher: RegionMatcher,
  fromLine: number,
  toLine: number,
  keep: number,
): Promise<SearchResult> {
  const result: SearchResult = { lines: [], total: 0 };
  if (fromLine > toLine || fromLine > index.lines) return result;
  const report = (line: number) => {
    if (line < fromLine || line > toLine) return;
    result.total++;
    if (result.lines.length < keep) result.lines.push(line);
  };
  const { checkpointLines: lines, checkpointOffsets: offsets } = index;
  const handle = await open(path, 'r');
  try {
    let buffer = Buffer.allocUnsafe(CHUNK_BYTES + 64 * 1024);
    let at = lines.lastIndexOf(checkpointFor(index, fromLine).line);
    while (at < lines.length && lines[at]! <= toLine) {
      let next = at + 1;
      while (next < lines.length && offsets[next]! - offsets[at]! < CHUNK_BYTES) next++;
      const size = (next < lines.length ? offsets[next]! : index.bytes) - offsets[at]!;
      if (size > buffer.length) buffer = Buffer.allocUnsafe(size); // one line longer than a chunk
      const { bytesRead } = await handle.read(buffer, 0, size, offsets[at]!);
      matcher(buffer.subarray(0, bytesRead), lines[at]!, report);
      at = next;
    }
  } finally {
    await handle.close();
  }
  return result;
}
