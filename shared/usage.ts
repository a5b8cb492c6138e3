/**
 * The shapes of `retained/usage` (the core computes them: server/src/core/history/usage.ts):
 * each model call's tokens by part, its cache reads and writes, and its cost.
 */
import type { Counted, Price } from './pricing';

/** What a request's tokens are, part by part; a model call's parts add up to its total. */
export const USAGE_PARTS = [
  // What the provider counted and the file does not hold (a system prompt, tools): the provider's total less the rest.
  'unrecorded',
  'systemPrompt',
  'tools',
  'system',
  'user',
  'assistant',
  'thinking',
  'toolInputs',
  'toolResults',
  'stubs',
  'references',
] as const;
export type UsagePart = (typeof USAGE_PARTS)[number];
export type Parts = Record<UsagePart, number>;

export interface ModelCallUsage {
  modelCall: number;
  /** Events before this index were sent. */
  cut: number;
  parts: Parts;
  total: number;
  /**
   * `provider`: the call's figures are the provider's own counts (its tokens, cache, output and
   * cost); `estimate`: counted here from the transcript (a view the agent did not send, or a file
   * with no counts), on the provider's basis where it has one (its unrecorded part, its output).
   */
  basis: 'provider' | 'estimate';
  /**
   * Tokens read from the cache and written to it (of them, `write1h` with the 1-hour lifetime),
   * and `uncached`, input that is neither. Estimated: the read is the prefix shared with the
   * previous request and the rest is written.
   */
  cache: { read: number; write: number; write1h: number; uncached: number };
  /** The first event not in the cached prefix, where the previous request's prefix stopped matching; absent when all of it matched. */
  breakAt?: number;
  /** Why the prefix broke there. */
  breakReason?: 'first' | 'compaction' | 'shape' | 'reference';
  /** Estimated tokens of the response this call produced. */
  output: number;
  /** In US dollars, when the run's model is priced. */
  usd?: number;
  /**
   * The provider's own count of this call, where the agent's file keeps it. `error`: how far the
   * estimate of what this call added to the previous one's input is from what the provider's
   * counts say it added (a fraction; absent for the first call, or after a compaction). What the
   * file does not hold (the system prompt and tools of an agent that does not record them) is
   * the same in both calls, so it drops out.
   */
  provider?: Counted & { error?: number };
}

export interface RunUsage {
  modelCalls: ModelCallUsage[];
  totals: {
    parts: Parts;
    total: number;
    cache: ModelCallUsage['cache'];
    output: number;
    usd?: number;
    /** Of the calls made, how many have the provider's figures (basis `provider`). */
    counted: number;
  };
  /** A session's subagents, each a row of its own (their runs: `<run>-agent-…`), when it had any. */
  subagents?: SubagentUsage[];
  /** The session's figures with its subagents' summed in (what the provider billed for all of it). */
  session?: Omit<SubagentUsage, 'runId'>;
  model?: string;
  /** The prices applied, and when the table was checked. */
  price?: Price & { asOf: string };
  tokenizer: string;
  /** Each compaction: what its summary replaced, and the retained values among it (each still one peek away). */
  compactions: CompactionUsage[];
  /**
   * Over the calls the provider counted: how many, the estimate's error on what each added
   * (median and largest, absolute fractions), and the median of what the provider counted and
   * the estimate did not (tokens the file does not record: a system prompt, tool definitions).
   */
  providerError?: { calls: number; median: number; max: number; unrecorded: number };
}

export interface CompactionUsage {
  /** The compaction's event. */
  at: number;
  /** The first model call sent the new history. */
  modelCall: number;
  /** The events of the history it replaced, and their tokens as they were last sent. */
  dropped: { from: number; events: number; tokens: number };
  /** The summary's tokens, as the next calls send it. */
  summaryTokens: number;
  values: { valueId: string; tool: string; bytes: number }[];
  /** The event that handed the model the index of what was retained, after this compaction, if one did. */
  handed?: number;
}

export interface SubagentUsage {
  runId: string;
  modelCalls: number;
  total: number;
  output: number;
  /** Of its calls, how many have the provider's counts. */
  counted: number;
  usd?: number;
}

/** Each part in words, as the inspector and the reports name it. */
export const USAGE_PART_WORDS: Record<UsagePart, string> = {
  unrecorded: 'not in the file (system prompt, tools)',
  systemPrompt: 'system prompt',
  tools: 'tool definitions',
  system: 'system messages and reminders',
  user: 'user text',
  assistant: 'assistant text',
  thinking: 'thinking',
  toolInputs: 'tool inputs',
  toolResults: 'tool results in full',
  stubs: 'stubs',
  references: 'references',
};

/** Why a cached prefix broke, in words. */
export const BREAK_WORDS = {
  first: 'the first call: nothing cached before it',
  compaction: 'a compaction started a new history',
  shape: 'the system prompt or the tools changed',
  reference: 'the history policy put a reference in place of an earlier body',
} as const;
