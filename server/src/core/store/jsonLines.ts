/**
 * The one reader of JSON Lines files (a run's transcript, an agent's session): the lines of a
 * file from a byte offset, a chunk at a time, its lines given in batches (one step of the loop
 * per batch, not per line; a batch is capped in lines too, so a file of tiny lines holds few views at
 * once). A line that lies in one chunk is given as a view of it (valid
 * until the next batch is asked for: decode it first), a longer one joined; a line
 * over `maxLineBytes` comes as its size only and is never held, so no line can fill memory.
 * What follows the last newline comes last, marked `unterminated`: a torn write, or a line
 * still being written.
 */
import type { FileHandle } from 'node:fs/promises';

const CHUNK_BYTES = 1 << 20;
const NEWLINE = 0x0a;
const BATCH_LINES = 1024;

export interface Line {
  /** Where the line starts in the file. */
  offset: number;
  /** Its bytes, without the newline. */
  bytes: number;
  /** Its bytes, unless it is over the cap. */
  text?: Buffer;
  /** No newline ends it (the end of the file). */
  unterminated?: true;
}

export async function* linesOf(
  handle: FileHandle,
  { start = 0, maxLineBytes, onRead }: { start?: number; maxLineBytes: number; onRead?: (bytes: number) => void },
): AsyncGenerator<Line[]> {
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  /** A line begun in an earlier chunk: its parts (copies), and its size so far. */
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let position = start;
  let offset = start;
  for (;;) {
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    onRead?.(bytesRead);
    let from = 0;
    let lines: Line[] = [];
    for (let nl = chunk.indexOf(NEWLINE, 0); nl !== -1 && nl < bytesRead; nl = chunk.indexOf(NEWLINE, from)) {
      const bytes = pendingBytes + (nl - from);
      const text =
        bytes > maxLineBytes
          ? undefined
          : pendingBytes === 0
            ? chunk.subarray(from, nl)
            : Buffer.concat([...pending, chunk.subarray(from, nl)], bytes);
      pending = [];
      pendingBytes = 0;
      lines.push(text ? { offset, bytes, text } : { offset, bytes });
      offset += bytes + 1;
      from = nl + 1;
      if (lines.length === BATCH_LINES) {
        yield lines;
        lines = [];
      }
    }
    if (lines.length > 0) yield lines;
    if (from < bytesRead) {
      pendingBytes += bytesRead - from;
      // Past the cap, only count its bytes: the line is given without them.
      if (pendingBytes <= maxLineBytes) pending.push(Buffer.from(chunk.subarray(from, bytesRead)));
      else pending = [];
    }
  }
  if (pendingBytes > 0)
    yield [
      pendingBytes > maxLineBytes
        ? { offset, bytes: pendingBytes, unterminated: true }
        : { offset, bytes: pendingBytes, text: Buffer.concat(pending, pendingBytes), unterminated: true },
    ];
}
