/**
 * Line and byte helpers shared by stubs and peek. A line is the text between `\n`s; a final
 * `\n` ends the last line rather than starting an empty one. `\r` stays part of its line, so
 * lines joined with `\n` rebuild the original bytes.
 */
import { createHash } from 'node:crypto';

export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** The SHA-256 of the text's UTF-8 bytes (or of the bytes), in hex: what values record and dedupe by. */
export function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Characters encoded at a time: a value is not copied whole once more on its way to disk. */
const SLICE_CHARS = 4 << 20;

/** A text as UTF-8 pieces, a slice at a time, never splitting a surrogate pair. */
export function* utf8Slices(text: string): Generator<Buffer> {
  for (let at = 0; at < text.length; ) {
    let end = Math.min(text.length, at + SLICE_CHARS);
    if (end < text.length && /[\ud800-\udbff]/.test(text[end - 1]!)) end--;
    yield Buffer.from(text.slice(at, end), 'utf8');
    at = end;
  }
}

export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let count = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count++;
  return text.endsWith('\n') ? count : count + 1;
}

/** The first `n` lines, without scanning the rest of the text. */
export function headLines(text: string, n: number): string[] {
  const lines: string[] = [];
  let start = 0;
  while (lines.length < n && start < text.length) {
    const end = text.indexOf('\n', start);
    if (end === -1) {
      lines.push(text.slice(start));
      break;
    }
    lines.push(text.slice(start, end));
    start = end + 1;
  }
  return lines;
}

/** The last `n` lines, without scanning the rest of the text. */
export function tailLines(text: string, n: number): string[] {
  const lines: string[] = [];
  let end = text.endsWith('\n') ? text.length - 1 : text.length;
  while (lines.length < n && end >= 0 && text.length > 0) {
    const start = text.lastIndexOf('\n', end - 1);
    lines.unshift(text.slice(start + 1, end));
    if (start === -1) break;
    end = start;
  }
  return lines;
}

/**
 * Cuts `text` to at most `maxBytes` UTF-8 bytes at a code-point boundary. Returns the kept
 * text and how many bytes were cut.
 */
export function cutToBytes(text: string, maxBytes: number): { kept: string; cutBytes: number } {
  const total = utf8Bytes(text);
  if (total <= maxBytes) return { kept: text, cutBytes: 0 };
  // Walk code points; cheap because maxBytes is small wherever this is used on long text.
  let bytes = 0;
  let end = 0;
  while (end < text.length) {
    const code = text.codePointAt(end)!;
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (bytes + size > maxBytes) break;
    bytes += size;
    end += code >= 0x10000 ? 2 : 1;
  }
  return { kept: text.slice(0, end), cutBytes: total - bytes };
}

/** `kept` with a visible mark saying how many bytes of the line were cut after it. */
export function withCutMark(kept: string, cutBytes: number): string {
  return cutBytes === 0 ? kept : `${kept}… [line cut: ${cutBytes} more bytes]`;
}
