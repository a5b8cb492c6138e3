/**
 * A body's size as a JSON string, counted without building it, and the sample its tokens are
 * counted on. Apart from the tokenizer, so a scan (and the scan thread) never loads its tables.
 */
import { utf8Bytes } from '../text';

/** A body longer than this is tokenized on a sample and scaled: an estimate, said so where shown. */
export const TOKEN_SAMPLE_CHARS = 65_536;

/**
 * The UTF-8 size of `text` as a JSON string, quotes included, counted instead of built: a
 * 50 MB body would otherwise be copied into a 50 MB JSON string just to be measured.
 */
export function jsonStringBytes(text: string, ascii = false): number {
  let extra = 2;
  for (const ch of ['"', '\\', '\n', '\r', '\t', '\b', '\f']) {
    for (let at = text.indexOf(ch); at !== -1; at = text.indexOf(ch, at + 1)) extra++;
  }
  // Other control characters become \u00XX: 6 bytes for 1.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these control characters are what is counted.
  const controls = /[\u0000-\u0007\u000b\u000e-\u001f]/g;
  while (controls.exec(text)) extra += 5;
  if (ascii) return utf8Bytes(text) + extra;
  // A lone surrogate becomes \udXXX: 6 bytes where UTF-8 counts its replacement as 3.
  const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
  while (lone.exec(text)) extra += 3;
  return utf8Bytes(text) + extra;
}

/** Extra bytes an ASCII byte takes in a JSON string: `\n` and the like 1, other control characters 5. */
function escapeExtra(byte: number): number {
  if (byte >= 0x20) return byte === 0x22 || byte === 0x5c ? 1 : 0;
  return byte === 0x0a || byte === 0x0d || byte === 0x09 || byte === 0x08 || byte === 0x0c ? 1 : 5;
}

/**
 * What `jsonStringBytes` adds to the length of ASCII bytes (quotes aside), counted on the bytes:
 * four at a time, a word looked at closely only when one of its bytes is below 0x20 (a streamed
 * log is mostly words without one). Quotes and backslashes are rare enough to find natively.
 */
export function asciiJsonExtra(bytes: Buffer): number {
  let extra = 0;
  let at = 0;
  const { byteOffset, length } = bytes;
  for (; at < length && (byteOffset + at) % 4 !== 0; at++) if (bytes[at]! < 0x20) extra += escapeExtra(bytes[at]!);
  const words = (length - at) >>> 2;
  if (words > 0) {
    const view = new Uint32Array(bytes.buffer, byteOffset + at, words);
    for (let k = 0; k < words; k++) {
      const word = view[k]!;
      // A byte below 0x20 borrows into its high bit: the classic "has a byte less than n".
      if (((word - 0x20202020) & ~word & 0x80808080) === 0) continue;
      for (let i = at + k * 4, end = i + 4; i < end; i++) if (bytes[i]! < 0x20) extra += escapeExtra(bytes[i]!);
    }
  }
  for (at += words * 4; at < length; at++) if (bytes[at]! < 0x20) extra += escapeExtra(bytes[at]!);
  // The loops above counted control bytes only; quotes and backslashes here.
  for (const byte of [0x22, 0x5c]) for (let i = bytes.indexOf(byte); i !== -1; i = bytes.indexOf(byte, i + 1)) extra++;
  return extra;
}
