/**
 * One pass over a result, in pieces as they come: what a stub and an event need to know of it
 * (its size, its lines, the head and tail lines, the landmarks, its size as a JSON string and
 * a token sample) without holding it. A 2 GB command output streams through in bounded memory;
 * a result already in memory is scanned the same way, so both give the same stub.
 */
import { StringDecoder } from 'node:string_decoder';
import { LANDMARK_KINDS, type LandmarkKind } from '../../../../shared/settings';
import { jsonStringBytes, TOKEN_SAMPLE_CHARS, tokensOf } from '../history/tokens';
import { utf8Bytes } from '../text';
import {
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

export interface ScanResult {
  bytes: number;
  lines: number;
  head: LineHead[];
  /** The last lines, at most as many as asked, in order. */
  tail: LineHead[];
  landmarks: Landmarks;
  /** The result's size as a JSON string, quotes included, and its tokens (estimated past 64 Ki characters). */
  jsonBytes: number;
  tokens: number;
}

/** Characters of a line kept: more than any preview line shows, and what a landmark test reads. */
const LINE_HEAD_CHARS = LANDMARK_LINE_MAX;
/** The end of the text kept for the exit code, which tools print last. */
const END_CHARS = 4096;

export class Scan {
  private bytes = 0;
  private lines = 0;
  private readonly head: LineHead[] = [];
  private readonly tail: LineHead[] = [];
  private current = { text: '', bytes: 0 };
  private readonly tests: Record<LandmarkKind, LandmarkTest>;
  private readonly found: Partial<Record<LandmarkKind, number[]>> = {};
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
  }

  /** Bytes as they come; a character split between two pieces is put back together. */
  pushBytes(part: Buffer): void {
    this.bytes += part.length;
    this.take(this.decoder.write(part));
  }

  /** Text already decoded (a result in memory), whole or in pieces that do not split a surrogate pair. */
  pushText(text: string): void {
    this.bytes += utf8Bytes(text);
    this.take(text);
  }

  private take(text: string): void {
    if (text.length === 0) return;
    this.chars += text.length;
    if (this.sample.length < TOKEN_SAMPLE_CHARS) this.sample += text.slice(0, TOKEN_SAMPLE_CHARS - this.sample.length);
    this.end = (this.end + text.slice(-END_CHARS)).slice(-END_CHARS);
    this.jsonExtra += jsonStringBytes(text) - 2;
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      this.extend(text.slice(start, nl));
      this.endLine();
      start = nl + 1;
    }
    if (start < text.length) this.extend(text.slice(start));
  }

  private extend(piece: string): void {
    if (this.current.text.length < LINE_HEAD_CHARS)
      this.current.text += piece.slice(0, LINE_HEAD_CHARS - this.current.text.length);
    this.current.bytes += utf8Bytes(piece);
  }

  private endLine(): void {
    const line = this.current;
    this.current = { text: '', bytes: 0 };
    this.lines++;
    if (this.head.length < this.headLines) this.head.push(line);
    if (this.tailLines > 0) {
      this.tail.push(line);
      if (this.tail.length > this.tailLines) this.tail.shift();
    }
    for (const kind of LANDMARK_KINDS) {
      this.found[kind] ??= [];
      const list = this.found[kind];
      if (list.length < LANDMARKS_PER_KIND && this.tests[kind](line.text)) list.push(this.lines);
    }
  }

  finish(): ScanResult {
    this.take(this.decoder.end());
    // A last line without a newline is a line too.
    if (this.current.text.length > 0 || this.current.bytes > 0) this.endLine();
    const lines: Partial<Record<LandmarkKind, number[]>> = {};
    for (const kind of LANDMARK_KINDS) if (this.found[kind]?.length) lines[kind] = this.found[kind];
    const landmarks: Landmarks = { lines };
    for (const line of this.end.split('\n').slice(-EXIT_CODE_TAIL_LINES).reverse()) {
      const match = EXIT_CODE.exec(line);
      if (match) {
        landmarks.exitCode = Number(match[1]);
        break;
      }
    }
    const jsonBytes = this.jsonExtra + 2;
    return {
      bytes: this.bytes,
      lines: this.lines,
      head: this.head,
      tail: this.tail,
      landmarks,
      jsonBytes,
      tokens: tokensOf(this.sample, jsonBytes, this.chars <= TOKEN_SAMPLE_CHARS),
    };
  }
}

/** Scans a result held in memory. */
export function scanText(
  text: string,
  headLines: number,
  tailLines: number,
  overrides?: Partial<Record<LandmarkKind, string>>,
): ScanResult {
  const scan = new Scan(headLines, tailLines, overrides);
  scan.pushText(text);
  return scan.finish();
}
