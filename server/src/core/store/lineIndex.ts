/**
 * A sparse line-offset index, so a peek into a 1 GB value seeks near the line it wants
 * instead of reading from the start. A checkpoint (line number, byte offset of its start) is
 * kept every CHECKPOINT_LINES lines or CHECKPOINT_BYTES bytes, whichever comes first, so both
 * many short lines and few long ones stay cheap to reach.
 */
import type { FileHandle } from 'node:fs/promises';
import { scanKernel, WINDOW_BYTES } from '../kernel/scanKernel';

const CHECKPOINT_LINES = 256;
const CHECKPOINT_BYTES = 64 * 1024;
const NEWLINE = 0x0a;
const MAGIC = 'RETIDX2\n';

export interface LineIndex {
  bytes: number;
  lines: number;
  /** Whether the last line ends with a newline (true for an empty value). */
  finalNewline: boolean;
  /** 1-based line numbers of the checkpoints, ascending; the first is always line 1. */
  checkpointLines: number[];
  /** Byte offset where each checkpoint's line starts. */
  checkpointOffsets: number[];
}

/** Builds an index incrementally over the chunks of one value, in order. */
export class LineIndexBuilder {
  private bytes = 0;
  private newlines = 0;
  private lastCheckpointLine = 1;
  private lastCheckpointOffset = 0;
  private readonly checkpointLines = [1];
  private readonly checkpointOffsets = [0];
  private lastByte = NEWLINE;

  /** The next chunk. */
  push(chunk: Uint8Array): void {
    for (let at = 0; at < chunk.length; at += WINDOW_BYTES) this.pushWindow(chunk.subarray(at, at + WINDOW_BYTES));
  }

  /** The next bytes, in the kernel at once: their newlines are found a checkpoint at a time. */
  private pushWindow(chunk: Uint8Array): void {
    const kernel = scanKernel();
    kernel.load(chunk);
    const length = chunk.byteLength;
    for (let at = 0; ; ) {
      // The next checkpoint: at the newline ending CHECKPOINT_LINES lines past the last one, or
      // at the first newline CHECKPOINT_BYTES past its start, whichever comes first.
      const far = this.lastCheckpointOffset + CHECKPOINT_BYTES - 1 - this.bytes;
      const byBytes = far < length ? indexOf(chunk, NEWLINE, Math.max(at, far)) : -1;
      const wanted = this.lastCheckpointLine + CHECKPOINT_LINES - 1 - this.newlines;
      const byLines = kernel.nthNewline(at, byBytes === -1 ? length : byBytes + 1, wanted);
      const newline = byLines !== -1 ? byLines : byBytes;
      if (newline === -1) {
        this.newlines += kernel.newlines(at, length);
        break;
      }
      this.newlines += byLines !== -1 ? wanted : kernel.newlines(at, newline + 1);
      at = newline + 1;
      this.lastCheckpointLine = this.newlines + 1;
      this.lastCheckpointOffset = this.bytes + at;
      this.checkpointLines.push(this.lastCheckpointLine);
      this.checkpointOffsets.push(this.lastCheckpointOffset);
    }
    this.bytes += length;
    this.lastByte = length > 0 ? chunk[length - 1]! : this.lastByte;
  }

  finish(): LineIndex {
    const lines = this.bytes === 0 ? 0 : this.lastByte === NEWLINE ? this.newlines : this.newlines + 1;
    // A checkpoint past the last line (after a final newline) points at nothing: drop it.
    while (this.checkpointLines.length > 1 && this.checkpointLines[this.checkpointLines.length - 1]! > lines) {
      this.checkpointLines.pop();
      this.checkpointOffsets.pop();
    }
    return {
      bytes: this.bytes,
      lines,
      finalNewline: this.lastByte === NEWLINE,
      checkpointLines: this.checkpointLines,
      checkpointOffsets: this.checkpointOffsets,
    };
  }
}

function indexOf(bytes: Uint8Array, byte: number, from: number): number {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(byte, from);
}

export function indexBuffer(buf: Uint8Array): LineIndex {
  const builder = new LineIndexBuilder();
  builder.push(buf);
  return builder.finish();
}

/** Streams an open file once to index it; memory stays at one chunk plus the checkpoints. */
export async function indexFile(handle: FileHandle): Promise<LineIndex> {
  const builder = new LineIndexBuilder();
  const chunk = Buffer.allocUnsafe(1 << 20);
  for (let position = 0; ; ) {
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
    if (bytesRead === 0) break;
    builder.push(chunk.subarray(0, bytesRead));
    position += bytesRead;
  }
  return builder.finish();
}

/** The index of the last of `sorted` (ascending, not empty) at or before `key`; 0 when none is. */
export function lastAtOrBefore(sorted: ArrayLike<number>, key: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (sorted[mid]! <= key) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The last checkpoint at or before a line (`{ line }`) or a byte offset (`{ offset }`). */
export function checkpointFor(
  index: LineIndex,
  at: { line: number } | { offset: number },
): { line: number; offset: number } {
  const [keys, key] = 'line' in at ? [index.checkpointLines, at.line] : [index.checkpointOffsets, at.offset];
  const found = lastAtOrBefore(keys, key);
  return { line: index.checkpointLines[found]!, offset: index.checkpointOffsets[found]! };
}

export function serializeIndex(index: LineIndex): Buffer {
  const header = Buffer.from(
    `${MAGIC}${JSON.stringify({ bytes: index.bytes, lines: index.lines, finalNewline: index.finalNewline, count: index.checkpointLines.length })}\n`,
  );
  const body = new Float64Array(index.checkpointLines.length * 2);
  index.checkpointLines.forEach((line, i) => {
    body[i * 2] = line;
    body[i * 2 + 1] = index.checkpointOffsets[i]!;
  });
  return Buffer.concat([header, Buffer.from(body.buffer)]);
}

/** Parses a serialized index; undefined when it is torn, foreign, or not for `expectedBytes`. */
export function parseIndex(data: Buffer, expectedBytes: number): LineIndex | undefined {
  if (data.subarray(0, MAGIC.length).toString() !== MAGIC) return undefined;
  const headerEnd = data.indexOf(NEWLINE, MAGIC.length);
  if (headerEnd === -1) return undefined;
  let header: { bytes: number; lines: number; finalNewline: boolean; count: number };
  try {
    header = JSON.parse(data.subarray(MAGIC.length, headerEnd).toString());
  } catch {
    return undefined;
  }
  const body = data.subarray(headerEnd + 1);
  if (header.bytes !== expectedBytes || typeof header.finalNewline !== 'boolean' || body.length !== header.count * 16)
    return undefined;
  const values = new Float64Array(body.buffer.slice(body.byteOffset, body.byteOffset + body.length));
  const checkpointLines: number[] = [];
  const checkpointOffsets: number[] = [];
  for (let i = 0; i < header.count; i++) {
    checkpointLines.push(values[i * 2]!);
    checkpointOffsets.push(values[i * 2 + 1]!);
  }
  return {
    bytes: header.bytes,
    lines: header.lines,
    finalNewline: header.finalNewline,
    checkpointLines,
    checkpointOffsets,
  };
}
