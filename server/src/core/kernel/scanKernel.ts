/**
 * The work on every byte of a streamed value, sixteen bytes at a time: counting and finding
 * newlines, counting JSON escapes in ASCII, and finding the needles where a landmark may be
 * (scanKernel.wat, built by `npm run build:kernel` into scanKernel.wasm beside it; the build
 * copies it beside the bundles). In JavaScript these passes were most of a 1 GB stream's time.
 * One instance per thread, its memory reused: bytes are loaded, then asked about, in one
 * synchronous step (nothing else loads in between).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** What of WebAssembly is used here (the server's libraries declare none of it). */
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: object };
};

interface Exports {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  text: { value: number };
  lines: { value: number };
  summary(length: number): number;
  newlines(start: number, end: number): number;
  nthNewline(start: number, end: number, n: number): number;
  candidate(start: number, end: number, needles: number): number;
}

/** Of ASCII bytes: what JSON escaping adds to them, and their newlines. */
export interface AsciiSummary {
  jsonExtra: number;
  newlines: number;
}

/** The most bytes loaded at once: callers go through bigger ones a window at a time, so memory stays small. */
export const WINDOW_BYTES = 1 << 20;
/** Bytes past the text that the kernel reads (and never counts): a vector from its last byte's needle. */
const READ_PAST = 32;
const PAGE = 64 * 1024;

export class ScanKernel {
  private readonly text: number;
  private view: Uint8Array;

  constructor(private readonly exports: Exports) {
    this.text = exports.text.value;
    this.view = new Uint8Array(exports.memory.buffer);
  }

  /** The needles `candidate` looks for, as tables (see scanKernel.wat; text/landmarks.ts makes them). */
  setNeedles(tables: Uint8Array): void {
    if (tables.length !== this.text) throw new Error(`needle tables are ${this.text} bytes`);
    this.view.set(tables, 0);
  }

  /** Puts bytes where the other calls look (replacing the ones before). */
  load(bytes: Uint8Array): void {
    if (bytes.length > WINDOW_BYTES) throw new Error(`the kernel takes ${WINDOW_BYTES} bytes at a time`);
    const needed = this.text + bytes.length + READ_PAST;
    if (needed > this.view.length) {
      this.exports.memory.grow(Math.ceil((needed - this.view.length) / PAGE));
      this.view = new Uint8Array(this.exports.memory.buffer);
    }
    this.view.set(bytes, this.text);
    // Past the end, a byte no needle's character is: a needle is never found running off it.
    this.view.fill(0xff, this.text + bytes.length, this.text + bytes.length + READ_PAST);
  }

  /** Newlines in [start, end) of the bytes loaded. */
  newlines(start: number, end: number): number {
    return this.exports.newlines(start, end);
  }

  /** The first `length` bytes loaded, summed up when they are all ASCII; else undefined. */
  summary(length: number): AsciiSummary | undefined {
    const jsonExtra = this.exports.summary(length);
    return jsonExtra < 0 ? undefined : { jsonExtra, newlines: this.exports.lines.value };
  }

  /** Where in [start, end) the n-th newline (from 1) is, or -1 when there are fewer. */
  nthNewline(start: number, end: number, n: number): number {
    return this.exports.nthNewline(start, end, n);
  }

  /** The first place in [start, end) where one of the needles in the mask (a bit each) may begin, or -1. */
  candidate(start: number, end: number, needles: number): number {
    return this.exports.candidate(start, end, needles);
  }
}

let kernel: ScanKernel | undefined;

/** This thread's kernel (WebAssembly SIMD: Node 16.4 and later, every VS Code of our range). */
export function scanKernel(): ScanKernel {
  if (!kernel) {
    const module = new WebAssembly.Module(readFileSync(join(__dirname, 'scanKernel.wasm')));
    kernel = new ScanKernel(new WebAssembly.Instance(module).exports as unknown as Exports);
  }
  return kernel;
}
