/**
 * One pass over a result, in pieces as they come: what a stub and an event need to know of it
 * (its size, its lines, the head and tail lines, the landmarks, its size as a JSON string and
 * a token sample) without holding it. A 2 GB command output streams through in bounded memory;
 * a result already in memory is scanned the same way, so both give the same stub.
 */
import { isAscii } from 'node:buffer';
import { StringDecoder } from 'node:string_decoder';
import { LANDMARK_KINDS, type LandmarkKind } from '../../../../shared/settings';
import { asciiJsonExtra, jsonStringBytes, TOKEN_SAMPLE_CHARS } from '../history/jsonSize';
import { utf8Bytes } from '../text';
import {
  BUILT_IN_CANDIDATES,
  EXIT_CODE,
  EXIT_CODE_TAIL_LINES,
  LANDMARK_LINE_MAX,
  LANDMARKS_PER_KIND,
  type Landmarks,
  type LandmarkTest,
  landmarkTest,
} from './landmarks';

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
    // In slices whose strings are short-lived and small: collected young, not piled up as large objects.
    for (let at = 0; at < part.length; at += SLICE_BYTES) {
      const slice = part.subarray(at, at + SLICE_BYTES);
      if (isAscii(slice)) {
        // Most command output: decoded by a copy, its JSON size counted on the bytes. A character
        // left split by the piece before ends here, as the decoder would end it.
        this.take(this.decoder.end(), 0);
        this.take(slice.toString('latin1'), slice.length, asciiJsonExtra(slice));
      } else this.take(this.decoder.write(slice), slice.length);
    }
  }

  /** Text already decoded (a result in memory), whole or in pieces that do not split a surrogate pair. */
  pushText(text: string): void {
    const bytes = utf8Bytes(text);
    this.bytes += bytes;
    this.take(text, bytes);
  }

  /**
   * A piece of text. The lines it ends are handled as one stretch (counted, searched for
   * landmarks by their prefilters, head and tail taken from its ends), not one by one: a 200 MB
   * log is a few native scans, not millions of small steps.
   */
  private take(text: string, bytes: number, jsonExtra?: number): void {
    if (text.length === 0) return;
    this.chars += text.length;
    if (this.sample.length < TOKEN_SAMPLE_CHARS) this.sample += text.slice(0, TOKEN_SAMPLE_CHARS - this.sample.length);
    this.end = (this.end + text.slice(-END_CHARS)).slice(-END_CHARS);
    // Pure ASCII (as many bytes as characters) has no surrogates: the cheap count.
    this.jsonExtra += jsonExtra !== undefined ? bytes + jsonExtra : jsonStringBytes(text, bytes === text.length) - 2;
    const first = text.indexOf('\n');
    if (first === -1) {
      this.extend(text);
      return;
    }
    // The line the pending one ends, on its own; then every whole line after it at once.
    this.extend(text.slice(0, first));
    this.endLine(this.pending);
    this.pending = { text: '', bytes: 0 };
    const last = text.lastIndexOf('\n');
    if (last > first) this.stretch(text.slice(first + 1, last + 1));
    if (last + 1 < text.length) this.extend(text.slice(last + 1));
  }

  private extend(piece: string): void {
    if (this.pending.text.length < LINE_HEAD_CHARS)
      this.pending.text += piece.slice(0, LINE_HEAD_CHARS - this.pending.text.length);
    this.pending.bytes += utf8Bytes(piece);
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

  /** Whole lines, each ending with a newline. */
  private stretch(region: string): void {
    const base = this.lines;
    let count = 0;
    for (let at = region.indexOf('\n'); at !== -1; at = region.indexOf('\n', at + 1)) count++;
    // The head: the first lines, while it wants more.
    for (let start = 0; this.head.length < this.headLines && start < region.length; ) {
      const nl = region.indexOf('\n', start);
      this.head.push(lineHead(region.slice(start, nl)));
      start = nl + 1;
    }
    // The tail: the last lines of this stretch, after what came before.
    if (this.tailLines > 0) {
      const lastLines: LineHead[] = [];
      for (let end = region.length - 1; lastLines.length < this.tailLines && end >= 0; ) {
        // (lastIndexOf from -1 would search from 0 and find the region's first newline.)
        const start = end === 0 ? 0 : region.lastIndexOf('\n', end - 1) + 1;
        lastLines.unshift(lineHead(region.slice(start, end)));
        end = start - 1;
      }
      this.tail = [...this.tail, ...lastLines].slice(-this.tailLines);
    }
    this.findIn(region, base);
    this.lines += count;
  }

  /** The first landmarks of each kind in whole lines numbered from `base` + 1. */
  private findIn(region: string, base: number): void {
    const open = LANDMARK_KINDS.filter((kind) => this.found[kind].length < LANDMARKS_PER_KIND);
    if (open.length === 0) return;
    let lineNumber = base;
    let counted = 0; // region offset up to which newlines are counted into lineNumber
    const numberAt = (offset: number) => {
      for (let at = region.indexOf('\n', counted); at !== -1 && at < offset; at = region.indexOf('\n', at + 1)) {
        lineNumber++;
        counted = at + 1;
      }
      return lineNumber + 1;
    };
    /** Tests the line starting at `start` for `kinds`; returns where the next line starts. */
    const testLine = (start: number, kinds: readonly LandmarkKind[]) => {
      const nl = region.indexOf('\n', start);
      const line = region.slice(start, Math.min(nl, start + LINE_HEAD_CHARS));
      for (const kind of kinds) {
        const list = this.found[kind];
        if (list.length < LANDMARKS_PER_KIND && this.tests[kind](line)) list.push(numberAt(start));
      }
      return nl + 1;
    };
    const perLine = open.filter((kind) => this.overridden.has(kind));
    for (
      let start = 0;
      perLine.length > 0 && start < region.length && perLine.some((k) => this.found[k].length < LANDMARKS_PER_KIND);
    )
      start = testLine(start, perLine);
    const filtered = open.filter((kind) => !this.overridden.has(kind));
    if (filtered.length === 0) return;
    let next = testLine(0, filtered);
    // From the newline before the next line, where a line-start literal matches.
    BUILT_IN_CANDIDATES.lastIndex = next - 1;
    for (let match = BUILT_IN_CANDIDATES.exec(region); match; match = BUILT_IN_CANDIDATES.exec(region)) {
      // A line-start literal matches on the newline before its line.
      const at = region[match.index] === '\n' ? match.index + 1 : match.index;
      const start = region.lastIndexOf('\n', at - 1) + 1;
      if (start < next) continue;
      // A pattern is tested on a line's first characters only, as on a line read alone.
      next = at - start < LINE_HEAD_CHARS ? testLine(start, filtered) : region.indexOf('\n', at) + 1;
      if (filtered.every((kind) => this.found[kind].length >= LANDMARKS_PER_KIND)) return;
      BUILT_IN_CANDIDATES.lastIndex = next - 1;
    }
  }

  /** What the scan found, as plain data (it crosses threads): the token sample uncounted (see withTokens). */
  figures(): ScanFigures {
    this.take(this.decoder.end(), 0);
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

function lineHead(line: string): LineHead {
  return { text: line.length > LINE_HEAD_CHARS ? line.slice(0, LINE_HEAD_CHARS) : line, bytes: utf8Bytes(line) };
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
