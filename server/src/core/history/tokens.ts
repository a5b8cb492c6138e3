/**
 * Token estimates from what is actually sent, with a real BPE tokenizer (pure JavaScript,
 * bundled): OpenAI's o200k_base. Other providers' tokenizers differ by a few percent; the
 * method is named in every result so the figures are never mistaken for billing.
 */
import { utf8Bytes } from '../text';

export const TOKENIZER = 'o200k_base (gpt-tokenizer), counted on each message as JSON';

/**
 * The tokenizer's tables take tens of MB: loaded on the first count, not when the server or the
 * command line starts (most commands never count a token).
 */
let tokenizer: ((text: string) => number) | undefined;
function countO200k(text: string): number {
  tokenizer ??= (require('gpt-tokenizer/encoding/o200k_base') as typeof import('gpt-tokenizer/encoding/o200k_base'))
    .countTokens;
  return tokenizer(text);
}

/**
 * Loads the tokenizer's table now (about 0.3 s and 70 MB), so the first figures a long-lived
 * server computes (an inspector's cold open) do not wait for it. The CLI never calls this.
 */
export function warmTokenizer(): void {
  countO200k('');
}

const cache = new Map<string, number>();
const CACHE_MAX_ENTRIES = 50_000;

/**
 * A run this long with no break in it (160,000 '(' in a result) is counted in pieces: the
 * tokenizer's merge step takes time quadratic in the length of one run, so one hostile line
 * would hold the server for seconds. Ordinary text has no such runs and counts exactly.
 */
const RUNS = /(\S{512}|\s{512})/;

/** Tokens in `text`; repeated texts (the same message in many requests) are counted once. */
export function countTokens(text: string): number {
  const cached = cache.get(text);
  if (cached !== undefined) return cached;
  let count = 0;
  // Most texts are too short to hold such a run: no need to look for one.
  if (text.length < 512) count = countO200k(text);
  else for (const part of text.split(RUNS)) if (part) count += countO200k(part);
  if (cache.size >= CACHE_MAX_ENTRIES) cache.clear();
  cache.set(text, count);
  return count;
}

export interface MessageStats {
  bytes: number;
  tokens: number;
}

export function measureMessages(messages: readonly unknown[]): MessageStats[] {
  return messages.map((message) => {
    const json = JSON.stringify(message);
    return { bytes: utf8Bytes(json), tokens: countTokens(json) };
  });
}

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

/** A body longer than this is tokenized on a sample and scaled: an estimate, said so where shown. */
export const TOKEN_SAMPLE_CHARS = 65_536;

/** What a result costs as a JSON string in a request: its bytes exactly, its tokens (estimated past 64 Ki characters). */
export function bodySizes(text: string): { jsonBytes: number; tokens: number } {
  const jsonBytes = jsonStringBytes(text);
  return {
    jsonBytes,
    tokens: tokensOf(text.slice(0, TOKEN_SAMPLE_CHARS), jsonBytes, text.length <= TOKEN_SAMPLE_CHARS),
  };
}

/** A body's tokens from its first characters: counted when they are all of it, else scaled to its JSON size. */
export function tokensOf(sample: string, jsonBytes: number, whole: boolean): number {
  const json = JSON.stringify(sample);
  if (whole) return countTokens(json);
  return Math.round((countTokens(json) * jsonBytes) / utf8Bytes(json));
}
