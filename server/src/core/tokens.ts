/**
 * Token estimates from what is actually sent, with a real BPE tokenizer (pure JavaScript,
 * bundled): OpenAI's o200k_base. Other providers' tokenizers differ by a few percent; the
 * method is named in every result so the figures are never mistaken for billing.
 */
import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { utf8Bytes } from './text';

export const TOKENIZER = 'o200k_base (gpt-tokenizer), counted on each message as JSON';

const cache = new Map<string, number>();
const CACHE_MAX_ENTRIES = 50_000;

/** Tokens in `text`; repeated texts (the same message in many requests) are counted once. */
export function countTokens(text: string): number {
  const cached = cache.get(text);
  if (cached !== undefined) return cached;
  const count = countO200k(text);
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
