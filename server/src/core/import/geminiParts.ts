/**
 * Gemini API contents (`{role, parts}`: text, thought, functionCall, functionResponse) as
 * events, for the agents that keep their chats in that form: Gemini CLI and its descendant Qwen
 * Code. Every call is answered once: a response to a call already answered (Gemini CLI sends
 * some twice after a resume) is counted, not kept twice.
 */

import type { TranscriptEvent } from '../../../../shared/events';
import { type ProviderUsage, promptUsage, type ResponseBlock, responseEvents } from './conversion';
import type { Json } from './records';

/** The full output of a call when the agent kept one beside what the model got. */
export interface FullOutput {
  /** The whole text, kept in the chat itself. */
  text?: string;
  /** Or a file, relative to the conversion's `outputsDir`. */
  file?: string;
}

/** A call's full output, given what the model got from it. */
export type FullFor = (callId: string, sent: string) => FullOutput | undefined;

const stamp = (ts: string | undefined) => (ts ? { ts } : {});

/** The text the model got from a functionResponse's `response`: its output, or its error. */
export function responseText(response: unknown): { text: string; isError: boolean } {
  if (typeof response === 'string') return { text: response, isError: false };
  const r = (response ?? {}) as Json;
  if (typeof r.output === 'string') return { text: r.output, isError: false };
  if (typeof r.error === 'string') return { text: r.error, isError: true };
  if (typeof r.llmContent === 'string') return { text: r.llmContent, isError: false };
  return { text: JSON.stringify(response ?? null), isError: false };
}

export class PartsWriter {
  readonly events: TranscriptEvent[] = [];
  /** Each call's tool, by call id. */
  readonly names = new Map<string, string>();
  readonly answered = new Set<string>();
  /** Full outputs kept in files, by call id (relative to the conversion's `outputsDir`). */
  readonly outputs = new Map<string, string>();
  /** Responses to a call already answered. */
  repeated = 0;
  private responses = 0;

  /** After a compaction the history starts again: a call answered before may be answered again in it. */
  restart(): void {
    this.answered.clear();
  }

  /** A user turn's text parts; its functionResponse parts are results. */
  user(
    parts: readonly Json[],
    ts: string | undefined,
    { injected = false, full }: { injected?: boolean; full?: FullFor } = {},
  ): void {
    for (const part of parts) {
      if (part.functionResponse && typeof part.functionResponse === 'object')
        this.result(part.functionResponse as Json, ts, full);
      else if (typeof part.text === 'string')
        this.events.push({ type: 'user', text: part.text, ...(injected ? { injected: true } : {}), ...stamp(ts) });
    }
  }

  /** A model turn: its thoughts, text and calls, as one response. */
  model(
    parts: readonly Json[],
    ts: string | undefined,
    thoughts: readonly string[] = [],
    usage?: ProviderUsage | undefined,
  ): void {
    const blocks: ResponseBlock[] = thoughts.map((text) => ({ type: 'thinking', thinking: { text } }));
    for (const part of parts) {
      if (part.functionCall && typeof part.functionCall === 'object') {
        const call = part.functionCall as Json;
        const name = typeof call.name === 'string' ? call.name : 'tool';
        const id = typeof call.id === 'string' && call.id ? call.id : `${name}-${this.names.size + 1}`;
        this.names.set(id, name);
        blocks.push({ type: 'tool_use', call: { id, name, arguments: call.args ?? {} } });
      } else if (typeof part.text === 'string') {
        if (part.thought === true) blocks.push({ type: 'thinking', thinking: { text: part.text } });
        else if (part.text !== '') blocks.push({ type: 'text', text: part.text });
      }
    }
    if (blocks.length) this.events.push(...responseEvents(blocks, `gemini-response-${++this.responses}`, ts, usage));
  }

  /** One call's result: what the model got, and the full output when the agent kept it elsewhere. */
  result(response: Json, ts: string | undefined, full?: FullFor): void {
    const callId = typeof response.id === 'string' ? response.id : undefined;
    const name = typeof response.name === 'string' ? response.name : 'tool';
    const id = callId ?? [...this.names].find(([id, n]) => n === name && !this.answered.has(id))?.[0];
    if (!id) return;
    if (this.answered.has(id)) {
      this.repeated++;
      return;
    }
    this.answered.add(id);
    const { text, isError } = responseText(response.response);
    const whole = full?.(id, text);
    if (whole?.text === undefined && whole?.file !== undefined) this.outputs.set(id, whole.file);
    this.events.push({
      type: 'tool_call_finished',
      callId: id,
      tool: this.names.get(id) ?? name,
      result: whole?.text ?? text,
      ...(whole?.text !== undefined || whole?.file !== undefined ? { sent: text } : {}),
      ...(isError ? { isError: true } : {}),
      ...stamp(ts),
    });
  }
}

/**
 * Gemini CLI's count of a model message (`tokens`): `input` is the prompt with the cached tokens
 * among it, `tool` the tool-use prompt beside it; thoughts are billed as output.
 */
export function geminiUsage(tokens: unknown): ProviderUsage | undefined {
  if (!tokens || typeof tokens !== 'object') return undefined;
  const t = tokens as Json;
  const n = (v: unknown) => (Number.isSafeInteger(v) && (v as number) >= 0 ? (v as number) : 0);
  return promptUsage(
    n(t.input) + n(t.tool),
    t.cached,
    Number.isSafeInteger(t.output) ? n(t.output) + n(t.thoughts) : undefined,
  );
}

/**
 * Qwen Code's `usageMetadata`: the prompt with the cached tokens among it; the output is the
 * total less the prompt (candidates hold the reasoning for some providers and not for others).
 */
export function qwenUsage(metadata: unknown): ProviderUsage | undefined {
  if (!metadata || typeof metadata !== 'object') return undefined;
  const m = metadata as Json;
  const prompt = m.promptTokenCount;
  const total = m.totalTokenCount;
  const output =
    Number.isSafeInteger(total) &&
    Number.isSafeInteger(prompt) &&
    (total as number) >= (prompt as number) &&
    (total as number) > 0
      ? (total as number) - (prompt as number)
      : m.candidatesTokenCount;
  return promptUsage(prompt, m.cachedContentTokenCount, output);
}
