/**
 * What a model's tokens cost, in US dollars per million tokens: uncached input, output, and
 * prompt caching's reads and writes, a write by its lifetime (5 minutes or 1 hour). List prices
 * as the providers publish them: Anthropic writes at 1.25× the input price for 5 minutes and 2×
 * for an hour, reads at 0.1×; OpenAI and Gemini have no write premium and read at their cached
 * discount. The Claude models the agents ship with are priced as Claude Code 2.1.332 prices them
 * (its own cost records agree to the cent). They change: a user overrides any row
 * (`retained.pricing`, `retained usage --prices`), and a model the table does not know is said so.
 */
export interface Price {
  input: number;
  output: number;
  cacheRead: number;
  /** A cache write with the 5-minute lifetime. */
  cacheWrite: number;
  /** A cache write with the 1-hour lifetime; the 5-minute price when absent. */
  cacheWrite1h?: number;
}

/** When the table was last checked against the providers' pages and the agents' own tables. */
export const PRICES_AS_OF = '2026-12';

const anthropic = (input: number, output: number): Price => ({
  input,
  output,
  cacheRead: input * 0.1,
  cacheWrite: input * 1.25,
  cacheWrite1h: input * 2,
});

/** By model name prefix; the longest prefix that a model's name starts with applies. */
export const PRICES: Readonly<Record<string, Price>> = {
  'claude-opus-5': anthropic(4, 20),
  'claude-sonnet-5': anthropic(3, 15),
  'claude-haiku-5': anthropic(1, 5),
  'claude-opus-4-5': anthropic(5, 25),
  'claude-opus-4-6': anthropic(5, 25),
  'claude-opus-4-7': anthropic(5, 25),
  'claude-opus-4-8': anthropic(5, 25),
  'claude-opus-4': anthropic(15, 75),
  'claude-sonnet-4': anthropic(3, 15),
  'claude-3-7-sonnet': anthropic(3, 15),
  'claude-haiku-4': anthropic(1, 5),
  'claude-3-5-haiku': anthropic(0.8, 4),
  'gpt-5-mini': { input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0.25 },
  'gpt-5': { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 1.25 },
  'gpt-4.1': { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 2 },
  'gemini-2.5-pro': { input: 1.25, output: 10, cacheRead: 0.31, cacheWrite: 1.25 },
  'gemini-2.5-flash': { input: 0.3, output: 2.5, cacheRead: 0.075, cacheWrite: 0.3 },
};

/** The price of a model by its name (`claude-sonnet-4-5-20250929`), or undefined when the table has none. */
export function priceOf(model: string | undefined, table: Readonly<Record<string, Price>> = PRICES): Price | undefined {
  if (!model) return undefined;
  const name = model.toLowerCase().replace(/^(anthropic|openai|google)\//, '');
  let best: string | undefined;
  for (const prefix of Object.keys(table))
    if (name.startsWith(prefix) && prefix.length > (best?.length ?? 0)) best = prefix;
  return best === undefined ? undefined : table[best];
}

/** What the provider counted for one model call: uncached input, cache reads, cache writes (of them, `cacheWrite1h` with the 1-hour lifetime), output. */
export interface Counted {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  cacheWrite1h?: number;
  output: number;
}

/** The cost of one call's counts at a price, in US dollars. */
export function costOf(counts: Counted, price: Price): number {
  const long = Math.min(counts.cacheWrite, counts.cacheWrite1h ?? 0);
  return (
    (counts.input * price.input +
      counts.cacheRead * price.cacheRead +
      (counts.cacheWrite - long) * price.cacheWrite +
      long * (price.cacheWrite1h ?? price.cacheWrite) +
      counts.output * price.output) /
    1_000_000
  );
}
