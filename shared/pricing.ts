/**
 * What a model's tokens cost, in US dollars per million tokens: uncached input, output, and
 * prompt caching's reads and writes, a write by its lifetime (5 minutes or 1 hour). List prices
 * as the providers publish them: Anthropic writes at 1.25× the input price for 5 minutes and 2×
 * for an hour, reads at 0.1× (less for some newer models); OpenAI and Gemini have no write
 * premium and read at their cached discount. The Claude models are priced as Claude Code 2.1.332
 * prices them (its own cost records agree to the cent). They change: a user overrides any row
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

/** Anthropic's usual multiples of the input price: a 5-minute write 1.25×, a 1-hour one 2×, a read `read`× (0.1 for most). */
const anthropic = (input: number, output: number, read = input * 0.1): Price => ({
  input,
  output,
  cacheRead: read,
  cacheWrite: input * 1.25,
  cacheWrite1h: input * 2,
});

/**
 * By model name prefix; the longest prefix that a model's name starts with applies. The Claude
 * rows are Claude Code 2.1.332's own table (its baked-in model catalog), so an imported session's
 * cost is the one Claude Code records; not modelled: its fast mode, the US-inference 1.1×, and
 * Haiku 5.5's prices over 100,000 prompt tokens.
 */
export const PRICES: Readonly<Record<string, Price>> = {
  'claude-opus-5-5': anthropic(4, 20, 0.2),
  'claude-opus-5': anthropic(5, 25),
  'claude-sonnet-5-5': anthropic(2, 10, 0.1),
  'claude-sonnet-5': anthropic(2, 10),
  'claude-haiku-5-5': anthropic(0.1, 0.5),
  'claude-fable-5-2': anthropic(8, 40),
  'claude-fable-5-1': anthropic(10, 50, 0.25),
  'claude-fable-5': anthropic(10, 50),
  'claude-mythos-5-2': anthropic(8, 40),
  'claude-mythos-5-1': anthropic(10, 50, 0.25),
  'claude-mythos-5': anthropic(10, 50),
  'claude-opus-4-5': anthropic(5, 25),
  'claude-opus-4-6': anthropic(5, 25),
  'claude-opus-4-7': anthropic(5, 25),
  'claude-opus-4-8': anthropic(5, 25),
  'claude-opus-4': anthropic(15, 75),
  'claude-sonnet-4': anthropic(3, 15),
  'claude-3-7-sonnet': anthropic(3, 15),
  'claude-3-5-sonnet': anthropic(3, 15),
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
  let name = model.toLowerCase().replace(/^(anthropic|openai|google)\//, '');
  // Claude names as Claude Code matches them: `claude-opus-4.5` is `claude-opus-4-5`, `[1m]` the same model.
  if (name.startsWith('claude-')) name = name.replace(/\[[12]m\]/g, '').replace(/\./g, '-');
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
