/**
 * Token estimates from what is actually sent, with a real BPE tokenizer (pure JavaScript,
 * bundled): OpenAI's o200k_base. Other providers' tokenizers differ by a few percent; the
 * method is named in every result so the figures are never mistaken for billing.
 */

import { utf8Bytes } from './bytes';
import type { ScanFigures, ScanResult } from './scan';
import { jsonStringBytes, TOKEN_SAMPLE_CHARS } from './sizes';

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

/** A scan's figures with their tokens, counted when first read (a result kept verbatim never loads the tables). */
export function withTokens(figures: ScanFigures): ScanResult {
  const { sample, whole, ...rest } = figures;
  let tokens: number | undefined;
  return {
    ...rest,
    get tokens() {
      tokens ??= tokensOf(sample, rest.jsonBytes, whole);
      return tokens;
    },
  };
}
