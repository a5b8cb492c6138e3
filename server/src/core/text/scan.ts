/**
 * One pass over a result, in pieces as they come: what a stub and an event need to know of it
 * (its size, its lines, the head and tail lines, the landmarks, its size as a JSON string and
 * a token sample) without holding it. A 2 GB command output streams through in bounded memory;
 * a result already in memory is scanned the same way, so both give the same stub.
 */
import { StringDecoder } from 'node:string_decoder';
import { LANDMARK_KINDS, type LandmarkKind } from '../../../../shared/settings';
import { type ScanKernel, scanKernel, WINDOW_BYTES } from '../kernel/scanKernel';
import { utf8Bytes } from './bytes';
import {
  BUILT_IN_CANDIDATES,
  candidateTables,
  EXIT_CODE,
  EXIT_CODE_TAIL_LINES,
  LANDMARK_LINE_MAX,
  LANDMARKS_PER_KIND,
  type Landmarks,
  type LandmarkTest,
  landmarkTest,
  needleMask,
} from './landmarks';
import { jsonStringBytes, TOKEN_SAMPLE_CHARS } from './sizes';

/** The start of a line (enough for any preview and landmark test) and its whole size. */
export interface LineHead {
  text: string;
  bytes: number;
}

/** A scan's figures before its tokens are counted: the first characters, and whether they are all of it. */
export interface ScanFigures extends Omit<ScanResult, 'tokens'> {
  sample: string;
  whole: boolean;
}

export interface ScanResult {
  bytes: number;
  lines: number;
  head: LineHead[];
  /** The last lines, at most as many as asked, in order. */
  tail: LineHead[];
  landmarks: Landmarks;
  /** The result's size as a JSON string, quotes included, and its tokens (estimated past 64 Ki characters). */
  jsonBytes: number;
  /** Counted when first read: a result kept verbatim never loads the tokenizer's tables (tens of MB). */
  readonly tokens: number;
}

/** Characters of a line kept: more than any preview line shows, and what a landmark test reads. */
const LINE_HEAD_CHARS = LANDMARK_LINE_MAX;
/** Bytes decoded and scanned at a time. */
const SLICE_BYTES = 64 * 1024;
/** The end of the text kept for the exit code, which tools print last. */
const END_CHARS = 4096;

export class Scan {
  private bytes = 0;
  private lines = 0;
  private readonly head: LineHead[] = [];
  private tail: LineHead[] = [];
  /** The line not ended yet: its start (enough of it) and its size so far. */
  private pending: LineHead = { text: '', bytes: 0 };
  private readonly tests: Record<LandmarkKind, LandmarkTest>;
  /** Kinds with a pattern from the settings: no prefilter, every line tested. */
  private readonly overridden: ReadonlySet<LandmarkKind>;
  private readonly found: Record<LandmarkKind, number[]>;
  private end = '';
  private sample = '';
  private jsonExtra = 0;
  private chars = 0;
  private readonly decoder = new StringDecoder('utf8');
  private readonly kernel = landmarkKernel();

  constructor(
    private readonly headLines: number,
    private readonly tailLines: number,
    overrides: Partial<Record<LandmarkKind, string>> = {},
  ) {
    this.tests = Object.fromEntries(LANDMARK_KINDS.map((kind) => [kind, landmarkTest(kind, overrides)])) as Record<
      LandmarkKind,
      LandmarkTest
    >;
    this.overridden = new Set(LANDMARK_KINDS.filter((kind) => overrides[kind]));
    this.found = Object.fromEntries(LANDMARK_KINDS.map((kind) => [kind, []])) as unknown as Record<
      LandmarkKind,
      number[]
    >;
  }

  /** Bytes as they come; a character split between two pieces is put back together. */
  pushBytes(part: Buffer): void {
    this.bytes += part.length;
    for (let at = 0; at < part.length; at += WINDOW_BYTES) {
      const window = part.subarray(at, at + WINDOW_BYTES);
      if (this.takeAscii(window)) continue;
      // In slices whose strings are short-lived and small: collected young, not piled up as large objects.
      for (let from = 0; from < window.length; from += SLICE_BYTES) {
        const slice = window.subarray(from, from + SLICE_BYTES);
        if (!this.takeAscii(slice)) this.takeText(this.decoder.write(slice));
      }
    }
  }

  /** Text already decoded (a result in memory), whole or in pieces that do not split a surrogate pair. */
  pushText(text: string): void {
    this.bytes += utf8Bytes(text);
    this.takeText(text);
  }

  private takeText(text: string): void {
    this.take(new TextPiece(text), jsonStringBytes(text) - 2);
  }

  /** Bytes read in the kernel, never decoded whole, when they are all ASCII (most command output). */
  private takeAscii(bytes: Buffer): boolean {
    this.kernel.load(bytes);
    const summary = this.kernel.summary(bytes.length);
    if (!summary) return false;
    // A character left split by the piece before ends here, as the decoder would end it.
    this.takeText(this.decoder.end());
    this.take(new AsciiPiece(bytes, this.kernel, summary.newlines), bytes.length + summary.jsonExtra);
    return true;
  }

  /**
   * A piece of the result, `jsonBytes` its size in a JSON string (quotes aside). The lines it
   * ends are handled as one stretch (counted, searched for landmarks by their needles, head and
   * tail taken from its ends), not one by one: a 200 MB log is a few scans, not millions of steps.
   */
  private take(piece: Piece, jsonBytes: number): void {
    const { length } = piece;
    if (length === 0) return;
    this.chars += length;
    if (this.sample.length < TOKEN_SAMPLE_CHARS) this.sample += piece.text(0, TOKEN_SAMPLE_CHARS - this.sample.length);
    this.end = (this.end + piece.text(Math.max(0, length - END_CHARS), length)).slice(-END_CHARS);
    this.jsonExtra += jsonBytes;
    const first = piece.newline(0);
    if (first === -1) {
      this.extend(piece, 0, length);
      return;
    }
    // The line the pending one ends, on its own; then every whole line after it at once.
    this.extend(piece, 0, first);
    this.endLine(this.pending);
    this.pending = { text: '', bytes: 0 };
    const last = piece.lastNewline(length - 1);
    if (last > first) this.stretch(piece, first + 1, last + 1, piece.newlineCount - 1);
    if (last + 1 < length) this.extend(piece, last + 1, length);
  }

  /** More of the pending line: [start, end) of a piece. */
  private extend(piece: Piece, start: number, end: number): void {
    const wanted = LINE_HEAD_CHARS - this.pending.text.length;
    if (wanted > 0) this.pending.text += piece.text(start, Math.min(end, start + wanted));
    this.pending.bytes += piece.bytes(start, end);
  }

  /** One line (the one pieces were gathered for). */
  private endLine(line: LineHead): void {
    this.lines++;
    if (this.head.length < this.headLines) this.head.push(line);
    if (this.tailLines > 0) {
      this.tail.push(line);
      if (this.tail.length > this.tailLines) this.tail.shift();
    }
    for (const kind of LANDMARK_KINDS) {
      const list = this.found[kind];
      if (list.length < LANDMARKS_PER_KIND && this.tests[kind](line.text)) list.push(this.lines);
    }
  }

  /** Whole lines: [from, to) of a piece, each ending with a newline, the one before `from` too. */
  private stretch(piece: Piece, from: number, to: number, count: number): void {
    const base = this.lines;
    // The head: the first lines, while it wants more.
    for (let start = from; this.head.length < this.headLines && start < to; ) {
      const nl = piece.newline(start);
      this.head.push(lineHead(piece, start, nl));
      start = nl + 1;
    }
    // The tail: the last lines of this stretch, after what came before.
    if (this.tailLines > 0) {
      const lastLines: LineHead[] = [];
      for (let end = to - 1; lastLines.length < this.tailLines && end >= from; ) {
        // The newline before `from` ends the search.
        const start = piece.lastNewline(end - 1) + 1;
        lastLines.unshift(lineHead(piece, start, end));
        end = start - 1;
      }
      this.tail = [...this.tail, ...lastLines].slice(-this.tailLines);
    }
    this.findIn(piece, from, to, base);
    this.lines += count;
  }

  /** The first landmarks of each kind in the whole lines [from, to) of a piece, numbered from `base` + 1. */
  private findIn(piece: Piece, from: number, to: number, base: number): void {
    const open = () => LANDMARK_KINDS.filter((kind) => this.found[kind].length < LANDMARKS_PER_KIND);
    if (open().length === 0) return;
    let lineNumber = base;
    let counted = from; // the offset up to which newlines are counted into lineNumber
    const numberAt = (start: number) => {
      // The needles start again from the stretch's first line after the line-by-line patterns.
      if (start < counted) [lineNumber, counted] = [base, from];
      lineNumber += piece.newlines(counted, start);
      counted = start;
      return lineNumber + 1;
    };
    /** Tests the line starting at `start` for `kinds`; returns where the next line starts. */
    const testLine = (start: number, kinds: readonly LandmarkKind[]) => {
      const nl = piece.newline(start);
      const line = piece.text(start, Math.min(nl, start + LINE_HEAD_CHARS));
      for (const kind of kinds) {
        const list = this.found[kind];
        if (list.length < LANDMARKS_PER_KIND && this.tests[kind](line)) list.push(numberAt(start));
      }
      return nl + 1;
    };
    const perLine = open().filter((kind) => this.overridden.has(kind));
    for (let start = from; start < to && perLine.some((k) => this.found[k].length < LANDMARKS_PER_KIND); )
      start = testLine(start, perLine);
    const needled = () => open().filter((kind) => !this.overridden.has(kind));
    let kinds = needled();
    if (kinds.length === 0) return;
    // The first line on its own (its newline is not in the stretch); then from the newline
    // before each next line, where a line-start needle begins.
    let next = testLine(from, kinds);
    for (let at = piece.candidate(next - 1, to, kinds); at !== -1; ) {
      const lineStart = piece.newline(at) === at ? at + 1 : at;
      const start = piece.lastNewline(lineStart - 1) + 1;
      if (lineStart >= to || start < next) {
        at = piece.candidate(at + 1, to, kinds);
        continue;
      }
      // A pattern is tested on a line's first characters only, as on a line read alone.
      next = lineStart - start < LINE_HEAD_CHARS ? testLine(start, kinds) : piece.newline(lineStart) + 1;
      kinds = needled();
      if (kinds.length === 0) return;
      at = piece.candidate(next - 1, to, kinds);
    }
  }

  /** What the scan found, the token sample uncounted: withTokens counts it when first read. */
  figures(): ScanFigures {
    this.takeText(this.decoder.end());
    // A last line without a newline is a line too.
    if (this.pending.bytes > 0) this.endLine(this.pending);
    const lines: Partial<Record<LandmarkKind, number[]>> = {};
    for (const kind of LANDMARK_KINDS) if (this.found[kind].length) lines[kind] = this.found[kind];
    const landmarks: Landmarks = { lines };
    for (const line of this.end.split('\n').slice(-EXIT_CODE_TAIL_LINES).reverse()) {
      const match = EXIT_CODE.exec(line);
      if (match) {
        landmarks.exitCode = Number(match[1]);
        break;
      }
    }
    return {
      bytes: this.bytes,
      lines: this.lines,
      head: this.head,
      tail: this.tail,
      landmarks,
      jsonBytes: this.jsonExtra + 2,
      sample: this.sample,
      whole: this.chars <= TOKEN_SAMPLE_CHARS,
    };
  }
}

let prepared: ScanKernel | undefined;

/** This thread's kernel, looking for the landmark needles. */
function landmarkKernel(): ScanKernel {
  if (!prepared) {
    prepared = scanKernel();
    prepared.setNeedles(candidateTables());
  }
  return prepared;
}

/** The line [start, end) of a piece. */
function lineHead(piece: Piece, start: number, end: number): LineHead {
  return { text: piece.text(start, Math.min(end, start + LINE_HEAD_CHARS)), bytes: piece.bytes(start, end) };
}

/**
 * A piece of a result as the scan reads it: decoded text, or ASCII bytes loaded in the kernel.
 * Offsets count UTF-16 units (one per byte in ASCII).
 */
interface Piece {
  readonly length: number;
  /** Its newlines. */
  readonly newlineCount: number;
  /** The first newline at or after `from`, or -1. */
  newline(from: number): number;
  /** The last newline at or before `from` (0 or more), or -1. */
  lastNewline(from: number): number;
  text(start: number, end: number): string;
  /** The UTF-8 size of [start, end). */
  bytes(start: number, end: number): number;
  /** The newlines in [start, end). */
  newlines(start: number, end: number): number;
  /** The first place in [start, end) where a built-in landmark of these kinds may begin, or -1. */
  candidate(start: number, end: number, kinds: readonly LandmarkKind[]): number;
}

class TextPiece implements Piece {
  constructor(private readonly value: string) {}
  get length(): number {
    return this.value.length;
  }
  get newlineCount(): number {
    return this.newlines(0, this.value.length);
  }
  newline(from: number): number {
    return this.value.indexOf('\n', from);
  }
  lastNewline(from: number): number {
    return this.value.lastIndexOf('\n', from);
  }
  text(start: number, end: number): string {
    return this.value.slice(start, end);
  }
  bytes(start: number, end: number): number {
    return utf8Bytes(this.value.slice(start, end));
  }
  newlines(start: number, end: number): number {
    let count = 0;
    for (let at = this.value.indexOf('\n', start); at !== -1 && at < end; at = this.value.indexOf('\n', at + 1))
      count++;
    return count;
  }
  /** Any kind's needles (the pattern is one for all). */
  candidate(start: number, end: number): number {
    BUILT_IN_CANDIDATES.lastIndex = start;
    const match = BUILT_IN_CANDIDATES.exec(this.value);
    return match && match.index < end ? match.index : -1;
  }
}

class AsciiPiece implements Piece {
  /** `value` must be what the kernel holds while the piece is read. */
  constructor(
    private readonly value: Buffer,
    private readonly kernel: ScanKernel,
    readonly newlineCount: number,
  ) {}
  get length(): number {
    return this.value.length;
  }
  newline(from: number): number {
    return this.value.indexOf(0x0a, from);
  }
  lastNewline(from: number): number {
    // (A negative offset would count from the end.)
    return from < 0 ? -1 : this.value.lastIndexOf(0x0a, from);
  }
  text(start: number, end: number): string {
    return this.value.toString('latin1', start, end);
  }
  bytes(start: number, end: number): number {
    return end - start;
  }
  newlines(start: number, end: number): number {
    return this.kernel.newlines(start, end);
  }
  candidate(start: number, end: number, kinds: readonly LandmarkKind[]): number {
    return this.kernel.candidate(start, end, needleMask(kinds));
  }
}

/** Scans a result held in memory. */
export function scanText(
  text: string,
  headLines: number,
  tailLines: number,
  overrides?: Partial<Record<LandmarkKind, string>>,
): ScanFigures {
  const scan = new Scan(headLines, tailLines, overrides);
  scan.pushText(text);
  return scan.figures();
}
