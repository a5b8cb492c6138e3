/**
 * Reads numbered lines out of a value file from the nearest index checkpoint, one chunk at a
 * time. A line is kept only up to `maxLineBytes` (the rest is counted, not held), so even a
 * single 1 GB line never sits in memory whole.
 */
import { checkpointFor, type LineIndex } from './lineIndex';
import { openRegular } from './safeFs';

/** A value's bytes as a reader sees them: a regular file's handle, or a team store's chunks. */
export interface ValueBytes {
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  close(): Promise<void>;
}

/** Opens a value's bytes for one read through it. */
export type OpenValue = () => Promise<ValueBytes>;

/** The first bytes of a value (a few more than `maxBytes`, for a character cut at the end), as text. */
export async function readHead(open: OpenValue, maxBytes: number): Promise<string> {
  const bytes = await open();
  try {
    const buffer = Buffer.alloc(maxBytes + 4);
    const { bytesRead } = await bytes.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await bytes.close();
  }
}

/** A value file's bytes, never through a link (the store checked the folders on the way; see safeFs.ts). */
export function fileBytes(path: string): OpenValue {
  return () => openRegular(path);
}

const CHUNK_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

export interface ReadLine {
  number: number;
  text: string;
  /** Bytes of the line that were not kept because it was longer than the cap. */
  cutBytes: number;
}

/** Largest prefix length ≤ max that ends on a UTF-8 character boundary. */
function boundary(bytes: Buffer, max: number): number {
  if (bytes.length <= max) return bytes.length;
  let end = max;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return end;
}

/**
 * Calls `visit` for each line from `fromLine` on, until it returns false or the value ends.
 */
export async function readLines(
  open: OpenValue,
  index: LineIndex,
  fromLine: number,
  maxLineBytes: number,
  visit: (line: ReadLine) => boolean,
): Promise<void> {
  if (fromLine > index.lines) return;
  const handle = await open();
  try {
    const start = checkpointFor(index, { line: fromLine });
    let position = start.offset;
    let lineNumber = start.line;
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    let parts: Buffer[] = [];
    let kept = 0;
    let length = 0;
    const keepLimit = maxLineBytes + 4; // a little over, to find a character boundary

    const emit = (): boolean => {
      const bytes = Buffer.concat(parts, kept);
      const end = boundary(bytes, maxLineBytes);
      const more = visit({ number: lineNumber, text: bytes.subarray(0, end).toString('utf8'), cutBytes: length - end });
      parts = [];
      kept = 0;
      length = 0;
      lineNumber++;
      return more;
    };

    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      const view = chunk.subarray(0, bytesRead);
      let from = 0;
      while (from < bytesRead) {
        const nl = view.indexOf(NEWLINE, from);
        const end = nl === -1 ? bytesRead : nl;
        if (lineNumber >= fromLine) {
          const take = Math.min(end - from, keepLimit - kept);
          if (take > 0) {
            parts.push(Buffer.from(view.subarray(from, from + take)));
            kept += take;
          }
          length += end - from;
        }
        if (end === bytesRead) break;
        from = end + 1;
        if (lineNumber >= fromLine) {
          if (!emit()) return;
        } else {
          lineNumber++;
        }
      }
    }
    // The last line, when the value does not end in a newline.
    if (lineNumber >= fromLine && lineNumber <= index.lines) emit();
  } finally {
    await handle.close();
  }
}
