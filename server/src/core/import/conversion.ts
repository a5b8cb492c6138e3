/**
 * What converting an agent's session yields, whatever the agent: the run's events in our
 * vocabulary, how faithfully its requests could be rebuilt, and an honest count of what was
 * left out. Pure data; `importer.ts` writes it into the store.
 */

import type { ImportFormat } from '../../../../shared/agents';
import type { RunSource, Thinking, ToolCall, TranscriptEvent } from '../../../../shared/events';
import type { Json } from './records';

export interface Conversion {
  format: ImportFormat;
  /** From `run_started` on. Results carry the text the agent had; see `outputs` for the rest. */
  events: TranscriptEvent[];
  fidelity: RunSource['fidelity'];
  /**
   * Results whose full output the agent kept in a file, by call id: its name in `outputsDir` (a
   * plain path: never one the agent's file names), read in by the importer, or marked lost.
   */
  outputs: Map<string, string>;
  /** The folder the agent keeps full outputs in, when not the session's own `tool-results/` (Gemini CLI's `tool-outputs/`, Qwen Code's `tmp/`). */
  outputsDir?: string;
  /** The run's name when the import is given none (the session's id); else the file's name. */
  name?: string;
  /** Records that are not part of the conversation, counted by kind (`type/subtype`). */
  skipped: Record<string, number>;
  /** Why the rebuild is less than exact, and anything else a user should know. */
  notes: string[];
  /**
   * Results the agent cut before it recorded them (by call id), and what to say of those the
   * run does not hold whole: an import that joins the live run of the session says it only of
   * the ones its hook did not keep.
   */
  cut?: { calls: string[]; note: string };
}

/** The session id and agent version a record names, if any. */
export function sessionInfo(
  records: readonly Json[],
  sessionKey: string,
  versionKey: string,
): Pick<RunSource, 'session' | 'version'> {
  const info: Pick<RunSource, 'session' | 'version'> = {};
  for (const r of records) {
    if (info.session === undefined && typeof r[sessionKey] === 'string') info.session = r[sessionKey] as string;
    if (info.version === undefined && typeof r[versionKey] === 'string') info.version = r[versionKey] as string;
    if (info.session !== undefined && info.version !== undefined) break;
  }
  return info;
}

/** An imported run's first event: the agent (named by its format), its tools and model, and the file it came from. */
export function importedStart(
  format: ImportFormat,
  path: string,
  run: {
    tools: Iterable<string>;
    model?: string | undefined;
    session?: string | undefined;
    version?: string | undefined;
    fidelity: RunSource['fidelity'];
    ts?: string | undefined;
  },
): TranscriptEvent {
  return {
    type: 'run_started',
    tools: [...new Set(run.tools)],
    agent: format,
    ...(run.model ? { model: run.model } : {}),
    source: {
      format,
      path,
      ...(run.session ? { session: run.session } : {}),
      ...(run.version ? { version: run.version } : {}),
      fidelity: run.fidelity,
    },
    ...(run.ts ? { ts: run.ts } : {}),
  };
}

/** How much of the first prompt names a run. */
const TITLE_CHARS = 80;

/** The session's first typed prompt, on one line and cut: what the run is called in a list. */
export function titleOf(events: readonly TranscriptEvent[]): string | undefined {
  for (const event of events) {
    if (event.type !== 'user' || event.injected) continue;
    const line = event.text.replace(/\s+/g, ' ').trim();
    // Not typed: a notice an agent writes as the user's ("[Request interrupted by user]"), a command record (<command-name>).
    if (!line || /^\[[^\]]*\]$/.test(line) || /^<[\w-]+>/.test(line)) continue;
    return line.length > TITLE_CHARS ? `${line.slice(0, TITLE_CHARS - 1).trimEnd()}…` : line;
  }
  return undefined;
}

export function countKind(skipped: Record<string, number>, kind: string): void {
  skipped[kind] = (skipped[kind] ?? 0) + 1;
}

/** One block of an assistant response, in the order the provider returned them. */
/** The provider's count of one model call, as an assistant event keeps it. */
export type ProviderUsage = NonNullable<Extract<TranscriptEvent, { type: 'assistant' }>['usage']>;

/** Anthropic's `usage` object as a ProviderUsage, when it is one. */
export function anthropicUsage(usage: unknown): ProviderUsage | undefined {
  if (!usage || typeof usage !== 'object') return undefined;
  const u = usage as Record<string, unknown>;
  const count = (v: unknown) => (Number.isSafeInteger(v) && (v as number) >= 0 ? (v as number) : undefined);
  const input = count(u.input_tokens);
  const output = count(u.output_tokens);
  if (input === undefined || output === undefined) return undefined;
  const cacheWrite = count(u.cache_creation_input_tokens) ?? 0;
  const creation = u.cache_creation && typeof u.cache_creation === 'object' ? (u.cache_creation as Json) : {};
  // Of the writes, the 1-hour ones (billed at 2× input); the rest are 5-minute ones.
  const long = Math.min(cacheWrite, count(creation.ephemeral_1h_input_tokens) ?? 0);
  return {
    input,
    cacheRead: count(u.cache_read_input_tokens) ?? 0,
    cacheWrite,
    ...(long > 0 ? { cacheWrite1h: long } : {}),
    output,
  };
}

/**
 * Counts of a provider that reports its prompt whole, cached tokens among it (OpenAI, Gemini):
 * the uncached rest as input. Undefined unless `prompt` and `output` are counts.
 */
export function promptUsage(
  prompt: unknown,
  cached: unknown,
  output: unknown,
  cacheWrite: unknown = 0,
): ProviderUsage | undefined {
  const count = (v: unknown) => (Number.isSafeInteger(v) && (v as number) >= 0 ? (v as number) : undefined);
  const all = count(prompt);
  const out = count(output);
  if (all === undefined || out === undefined) return undefined;
  const read = Math.min(all, count(cached) ?? 0);
  const write = Math.min(all - read, count(cacheWrite) ?? 0);
  return { input: all - read - write, cacheRead: read, cacheWrite: write, output: out };
}

export type ResponseBlock =
  | { type: 'thinking'; thinking: Thinking }
  | { type: 'text'; text: string }
  | { type: 'tool_use'; call: ToolCall };

/**
 * A response's blocks as assistant events. One event holds thinking, then one text, then tool
 * calls; a response whose blocks come in another order (text, thinking, text) becomes several
 * events that share its response id, which replay joins into one message again.
 */
export function responseEvents(
  blocks: readonly ResponseBlock[],
  response: string,
  ts: string | undefined,
  usage?: ProviderUsage,
): TranscriptEvent[] {
  const events: TranscriptEvent[] = [];
  let thinking: Thinking[] = [];
  let text: string | undefined;
  let calls: ToolCall[] = [];
  const flush = () => {
    if (thinking.length === 0 && text === undefined && calls.length === 0) return;
    events.push({
      type: 'assistant',
      ...(thinking.length ? { thinking } : {}),
      ...(text !== undefined ? { text } : {}),
      ...(calls.length ? { toolCalls: calls } : {}),
      response,
      ...(usage && events.length === 0 ? { usage } : {}),
      ...(ts ? { ts } : {}),
    });
    thinking = [];
    text = undefined;
    calls = [];
  };
  for (const block of blocks) {
    if (block.type === 'thinking') {
      if (text !== undefined || calls.length) flush();
      thinking.push(block.thinking);
    } else if (block.type === 'text') {
      if (text !== undefined || calls.length) flush();
      text = block.text;
    } else calls.push(block.call);
  }
  flush();
  return events;
}

/**
 * The conversion of a session whose file keeps only the conversation (Cline, Copilot CLI): its
 * requests are rebuilt from it, not exactly, and no full output is kept beside it.
 */
export function conversationOf(
  format: ImportFormat,
  path: string,
  run: Omit<Parameters<typeof importedStart>[2], 'fidelity'>,
  events: TranscriptEvent[],
  skipped: Record<string, number>,
  notes: string[],
): Conversion {
  return {
    format,
    events: [importedStart(format, path, { ...run, fidelity: 'conversation' }), ...events],
    fidelity: 'conversation',
    outputs: new Map(),
    ...(run.session ? { name: run.session } : {}),
    skipped,
    notes,
  };
}
