/**
 * Requests as an agent sent them, turned into events: the machinery every format whose file
 * records its requests shares. Messages are in Anthropic's wire form (role, content blocks);
 * each request's messages are compared with the replay of the events so far, and what it adds
 * becomes events, so the replay gives back every request. A request that does not continue the
 * history (a compaction, a rewind) restarts it.
 */
import { createHash } from 'node:crypto';
import type { CompactionEvent, TextBlocks, ToolCall, TranscriptEvent } from '../../../../shared/events';
import { toAnthropic } from '../history/providers';
import { replayStructured } from '../history/replay';
import { type ResponseBlock, responseEvents } from './conversion';
import type { Json } from './records';

export type WireBlock = Json & { type?: unknown };
export interface WireMessage {
  role: string;
  content: string | WireBlock[];
}

/** Canonical JSON: sorted keys, no cache_control (caching is not content). */
export function canonical(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Json = {};
  for (const key of Object.keys(value).sort()) if (key !== 'cache_control') out[key] = sortKeys((value as Json)[key]);
  return out;
}

/** SHA-256 of a message's canonical JSON (Claude Code's message hash). */
export function messageHash(message: unknown): string {
  return createHash('sha256').update(canonical(message)).digest('hex');
}

/** A message with string content as one text block, so the two forms (the same to the API) compare equal. */
export function blocksOf(message: WireMessage): WireBlock[] {
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}

export function sameMessage(a: WireMessage, b: WireMessage): boolean {
  return a.role === b.role && canonical(blocksOf(a)) === canonical(blocksOf(b));
}

/** What the events need to know that the messages alone do not say, from the agent's file. */
export interface SessionFacts {
  /** True for text the user typed (else it is text the agent added: a reminder, a record). */
  isTyped(text: string): boolean;
  toolName(callId: string): string | undefined;
  /** When a call's result came, if the file says. */
  resultTime(callId: string): string | undefined;
  /**
   * The id of the response a message is, else undefined. `ordinal` is how many assistant
   * messages come before it in its request (for an agent that resends its whole history).
   */
  responseIdOf(message: WireMessage, ordinal: number): string | undefined;
  /** Where the agent kept a result's full output, when `sent` says it did. */
  savedOutput(sent: string): string | undefined;
}

/** Events for messages as sent, in our vocabulary. */
export class EventWriter {
  readonly events: TranscriptEvent[] = [];
  /** Full outputs kept beside the session, by call id (see Conversion.outputs). */
  readonly outputs = new Map<string, string>();
  readonly notes: string[] = [];

  constructor(private readonly facts: SessionFacts) {}

  /** Events for one message; `continues` when its blocks join the message before (a request added them to it). */
  message(message: WireMessage, ts: string | undefined, options: { continues?: boolean; ordinal?: number } = {}): void {
    const { continues = false, ordinal = 0 } = options;
    if (message.role === 'assistant') {
      this.response(
        blocksOf(message),
        this.facts.responseIdOf(message, ordinal) ?? `hash-${messageHash(message).slice(0, 16)}`,
        ts,
      );
      return;
    }
    const stamp = ts ? { ts } : {};
    if (message.role === 'system' && blocksOf(message).length === 0) {
      this.events.push({ type: 'system', text: '', ...stamp });
      return;
    }
    for (const [i, block] of blocksOf(message).entries()) {
      if (block.type === 'text' && typeof block.text === 'string') {
        if (message.role === 'system') this.events.push({ type: 'system', text: block.text, ...stamp });
        else {
          // A user message that begins with text is a message of its own, even after another user message.
          const split = i === 0 && !continues;
          this.events.push({
            type: 'user',
            text: block.text,
            ...(this.facts.isTyped(block.text) ? {} : { injected: true }),
            ...(split ? { split } : {}),
            ...stamp,
          });
        }
      } else if (block.type === 'tool_result' && message.role === 'user') {
        this.result(block, ts);
      } else {
        this.notes.push(
          `a ${message.role} ${String(block.type)} block is shown as text: only text, tool calls and results are imported`,
        );
        this.events.push({ type: 'user', text: `[${String(block.type)}]`, injected: true, ...stamp });
      }
    }
  }

  response(blocks: readonly WireBlock[], response: string, ts: string | undefined): void {
    const converted: ResponseBlock[] = [];
    for (const b of blocks) {
      if (b.type === 'thinking' && typeof b.thinking === 'string') {
        converted.push({
          type: 'thinking',
          thinking: {
            text: b.thinking,
            ...(typeof b.signature === 'string' && b.signature ? { signature: b.signature } : {}),
          },
        });
      } else if (b.type === 'text' && typeof b.text === 'string') converted.push({ type: 'text', text: b.text });
      else if (b.type === 'tool_use' && typeof b.id === 'string' && typeof b.name === 'string')
        converted.push({
          type: 'tool_use',
          call: { id: b.id, name: b.name, arguments: b.input ?? {} } satisfies ToolCall,
        });
      else this.notes.push(`a ${String(b.type)} block of a response is left out`);
    }
    this.events.push(...responseEvents(converted, response, ts));
  }

  result(block: WireBlock, ts: string | undefined): void {
    const callId = String(block.tool_use_id);
    const content = block.content;
    const sent: string | TextBlocks =
      typeof content === 'string'
        ? content
        : Array.isArray(content)
          ? (content as WireBlock[]).map((b) => ({
              type: 'text' as const,
              text: b.type === 'text' && typeof b.text === 'string' ? b.text : `[${String(b.type)}]`,
            }))
          : '';
    const text = typeof sent === 'string' ? sent : sent.map((b) => b.text).join('\n');
    const saved = typeof sent === 'string' ? this.facts.savedOutput(sent) : undefined;
    if (saved) this.outputs.set(callId, saved);
    const isError = block.is_error;
    const time = this.facts.resultTime(callId) ?? ts;
    this.events.push({
      type: 'tool_call_finished',
      callId,
      tool: this.facts.toolName(callId) ?? 'tool',
      result: text,
      ...(typeof isError === 'boolean' ? { isError } : {}),
      ...(saved || typeof sent !== 'string' ? { sent } : {}),
      ...(time ? { ts: time } : {}),
    });
  }
}

/**
 * The replay of the events so far, as Anthropic messages: what the next request would hold.
 * Calls still waiting for their results get none (replay would mark them interrupted).
 */
export function replayed(events: readonly TranscriptEvent[]): WireMessage[] {
  const { messages, owners } = replayStructured({ events, existingValues: new Set(), view: 'sent' });
  const last = messages.length - 1;
  if (last >= 0 && owners[last]!.some((o) => o.synthetic)) {
    const kept = messages[last]!.content.filter((_, j) => !owners[last]![j]!.synthetic);
    if (kept.length) messages[last] = { ...messages[last]!, content: kept };
    else messages.pop();
  }
  return toAnthropic(messages) as WireMessage[];
}

/**
 * The content a request adds to what the events already replay: the new blocks of the last
 * message and the messages after it; undefined when the request does not continue the history.
 */
function added(
  history: readonly WireMessage[],
  request: readonly WireMessage[],
): { blocks: WireBlock[]; role: string; messages: WireMessage[] } | undefined {
  if (request.length < history.length) return undefined;
  for (let i = 0; i < history.length - 1; i++) if (!sameMessage(history[i]!, request[i]!)) return undefined;
  const last = history[history.length - 1];
  if (!last) return { blocks: [], role: '', messages: [...request] };
  const mine = blocksOf(last);
  const theirs = blocksOf(request[history.length - 1]!);
  if (request[history.length - 1]!.role !== last.role || theirs.length < mine.length) return undefined;
  if (canonical(theirs.slice(0, mine.length)) !== canonical(mine)) return undefined;
  return { blocks: theirs.slice(mine.length), role: last.role, messages: request.slice(history.length) };
}

/** For each message, how many assistant messages come before it. */
function assistantOrdinals(messages: readonly WireMessage[]): number[] {
  let seen = 0;
  return messages.map((m) => (m.role === 'assistant' ? seen++ : seen));
}

export interface SentRequest {
  messages: WireMessage[];
  ts: string | undefined;
}

export interface Follow<R extends SentRequest> {
  /** The history restarted before `request`: the compaction event, and the summary message it stands for, if any. */
  restart(request: R, previous: R | undefined): { compaction: CompactionEvent; summaryMessage: boolean };
  /** After each request: its response, from wherever the file keeps it. */
  answered(request: R): void;
}

/**
 * Turns requests into events, checking that the replay gives each one back. Returns why it
 * could not, naming the request, or undefined.
 */
export function followRequests<R extends SentRequest>(
  writer: EventWriter,
  requests: readonly R[],
  follow: Follow<R>,
): string | undefined {
  let previous: R | undefined;
  for (const [k, request] of requests.entries()) {
    const more = added(replayed(writer.events), request.messages);
    const ordinals = assistantOrdinals(request.messages);
    const write = (from: number) => {
      for (let i = from; i < request.messages.length; i++)
        writer.message(request.messages[i]!, request.ts, { ordinal: ordinals[i]! });
    };
    if (more) {
      if (more.blocks.length)
        writer.message({ role: more.role, content: more.blocks }, request.ts, { continues: true });
      write(request.messages.length - more.messages.length);
    } else {
      const { compaction, summaryMessage } = follow.restart(request, previous);
      writer.events.push(compaction);
      write(summaryMessage ? 1 : 0);
    }
    const check = replayed(writer.events);
    if (check.length !== request.messages.length || check.some((m, i) => !sameMessage(m, request.messages[i]!)))
      return `request ${k + 1} could not be rebuilt from its messages`;
    writer.events.push({ type: 'model_call', ...(request.ts ? { ts: request.ts } : {}) });
    follow.answered(request);
    previous = request;
  }
  return undefined;
}
