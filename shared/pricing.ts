/**
 * What a model's tokens cost, in US dollars per million tokens: uncached input, output, and
 * prompt caching's reads and writes. List prices as the providers published them in November
 * 2025 (Anthropic: cache writes 1.25× input, reads 0.1×; OpenAI and Gemini: no write premium,
 * cached input at their discount). They change: check them before a decision rests on them.
 */
export interface Price {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** When the table was last checked against the providers' pages. */
export const PRICES_AS_OF = '2025-11';

const anthropic = (input: number, output: number): Price => ({
  input,
  output,
  cacheRead: input * 0.1,
  cacheWrite: input * 1.25,
});

/** By model name prefix; the longest prefix that a model's name starts with applies. */
export const PRICES: Readonly<Record<string, Price>> = {
  'claude-opus-4-5': anthropic(5, 25),
  // Newer than the table checked: taken at Opus 4.5's prices (the output names the prices used).
  'claude-opus-4-6': anthropic(5, 25),
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
