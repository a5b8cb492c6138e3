/**
 * Requests as an agent sent them, turned into events: the machinery every format whose file
 * records its requests shares. Messages are in Anthropic's wire form (role, content blocks, and
 * any field the agent put on a message); each request's messages are compared with the replay of
 * the events so far, and what it adds becomes events, so the replay gives back every request. A
 * request that does not continue the history (a compaction, a rewind) restarts it.
 *
 * Each request is checked on its own: one that the events cannot give back is marked, with the
 * reason, on its `model_call`, and the requests after it are followed as before. The replay grows
 * with the events (it is not replayed again per request), and messages are compared by hashes
 * kept per message, so following n requests costs what their new messages hold, not n histories.
 */
import { createHash } from 'node:crypto';
import type { ContentBlock } from '../../../../shared/blocks';
import { contentText, isTextBlock } from '../../../../shared/blocks';
import type {
  CompactionEvent,
  ModelCallEvent,
  RequestShapeEvent,
  ToolCall,
  TranscriptEvent,
} from '../../../../shared/events';
import type { Message } from '../../../../shared/history';
import { toAnthropic } from '../history/providers';
import { Replayer } from '../history/replay';
import { type ResponseBlock, responseEvents } from './conversion';
import type { Json } from './records';

export type WireBlock = Json & { type?: unknown };
export interface WireMessage {
  role: string;
  content: string | WireBlock[];
  /** Fields the agent put on the message besides these (Claude Code's `output_config`). */
  [field: string]: unknown;
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

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** SHA-256 of a message's canonical JSON (Claude Code's message hash). */
export function messageHash(message: unknown): string {
  return sha256(canonical(message));
}

/** A message with string content as one text block, so the two forms (the same to the API) compare equal. */
export function blocksOf(message: WireMessage): WireBlock[] {
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}

/** The message's other form with the same meaning to the API: one text block as a string, a string as one block. */
export function otherForm(message: WireMessage): WireMessage | undefined {
  if (typeof message.content === 'string') return { ...message, content: blocksOf(message) };
  const [only] = message.content;
  if (message.content.length === 1 && only?.type === 'text' && typeof only.text === 'string' && !only.cache_control)
    return { ...message, content: only.text };
  return undefined;
}

const normalHashes = new WeakMap<object, string>();
/**
 * The hash of a message as the API reads it (content as blocks, cache_control aside, its other
 * fields kept), kept per message object: a message of the file is never changed.
 */
export function normalHash(message: WireMessage): string {
  let hash = normalHashes.get(message);
  if (hash === undefined) {
    hash = sha256(canonical({ ...message, content: blocksOf(message) }));
    normalHashes.set(message, hash);
  }
  return hash;
}

export function sameMessage(a: WireMessage, b: WireMessage): boolean {
  return normalHash(a) === normalHash(b);
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

/** The replay of an imported run as its agent sent it: results as the agent sent them, never stubs. */
const AS_SENT = { stubs: false, agentText: true, full: false, existingValues: new Set<string>() };

/** Events for messages as sent, in our vocabulary; the replay of them grows as they are written. */
export class EventWriter {
  readonly events: TranscriptEvent[] = [];
  /** Full outputs kept beside the session, by call id (see Conversion.outputs). */
  readonly outputs = new Map<string, string>();
  readonly notes: string[] = [];
  private readonly replayer = new Replayer(AS_SENT);
  /** Hashes of replayed messages that can no longer change (all but the last). */
  private readonly hashes = new WeakMap<Message, string>();

  constructor(private readonly facts: SessionFacts) {}

  push(...events: TranscriptEvent[]): void {
    for (const event of events) {
      this.replayer.add(event, this.events.length);
      this.events.push(event);
    }
  }

  /**
   * The history a request would send now, as hashes in wire form (results still open included,
   * interrupted ones not), and the last message itself (the one a request may add blocks to).
   */
  history(): { hashes: string[]; last: WireMessage | undefined } {
    const messages = this.replayer.messages;
    const pending = this.replayer.pending();
    const hashes: string[] = [];
    let last: WireMessage | undefined;
    for (let i = 0; i < messages.length; i++) {
      const settled = i < messages.length - 1 || pending !== undefined;
      let hash = settled ? this.hashes.get(messages[i]!) : undefined;
      if (hash === undefined) {
        const wire = toWire(messages[i]!);
        hash = normalHash(wire);
        if (settled) this.hashes.set(messages[i]!, hash);
        else last = wire;
      }
      hashes.push(hash);
    }
    if (pending) {
      last = toWire(pending);
      hashes.push(normalHash(last));
    }
    if (!last && messages.length) last = toWire(messages[messages.length - 1]!);
    return { hashes, last };
  }

  /** Events for one message; `continues` when its blocks join the message before (a request added them to it). */
  message(message: WireMessage, ts: string | undefined, options: { continues?: boolean; ordinal?: number } = {}): void {
    const { continues = false, ordinal = 0 } = options;
    if (message.role === 'assistant') {
      this.response(
        blocksOf(message),
        this.facts.responseIdOf(message, ordinal) ?? `hash-${normalHash(message).slice(0, 16)}`,
        ts,
      );
      return;
    }
    const stamp = ts ? { ts } : {};
    const { role: _role, content: _content, ...rest } = message;
    const fields = Object.keys(rest).length ? { fields: rest } : {};
    if (message.role === 'system') {
      const blocks = blocksOf(message);
      if (blocks.length === 0) {
        this.push({ type: 'system', text: '', ...fields, ...stamp });
        return;
      }
      for (const [i, block] of blocks.entries()) {
        if (block.type === 'text' && typeof block.text === 'string')
          this.push({ type: 'system', text: block.text, ...(i === 0 ? fields : {}), ...stamp });
        else this.unknown(message.role, block, stamp);
      }
      return;
    }
    for (const [i, block] of blocksOf(message).entries()) {
      // A user message that begins with text is a message of its own, even after another user message.
      const split = i === 0 && !continues ? { split: true } : {};
      if (block.type === 'text' && typeof block.text === 'string') {
        this.push({
          type: 'user',
          text: block.text,
          ...(this.facts.isTyped(block.text) ? {} : { injected: true }),
          ...split,
          ...stamp,
        });
      } else if (block.type === 'tool_result') {
        this.result(block, ts);
      } else if (typeof block.type === 'string' && block.type !== 'tool_use' && block.type !== 'thinking') {
        // An image or a document the user's message held: kept as it was, with its stated text.
        const kept = block as unknown as ContentBlock;
        this.push({ type: 'user', text: contentText([kept]), block: kept, injected: true, ...split, ...stamp });
      } else this.unknown(message.role, block, stamp);
    }
  }

  private unknown(role: string, block: WireBlock, stamp: { ts?: string }): void {
    this.notes.push(`a ${role} ${String(block.type)} block is shown as text: it is not a block such a message holds`);
    this.push({ type: 'user', text: `[${String(block.type)}]`, injected: true, ...stamp });
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
      } else if (b.type === 'redacted_thinking' && typeof b.data === 'string')
        converted.push({ type: 'thinking', thinking: { text: '', redacted: b.data } });
      else if (b.type === 'text' && typeof b.text === 'string') converted.push({ type: 'text', text: b.text });
      else if (b.type === 'tool_use' && typeof b.id === 'string' && typeof b.name === 'string')
        converted.push({
          type: 'tool_use',
          call: { id: b.id, name: b.name, arguments: b.input ?? {} } satisfies ToolCall,
        });
      else this.notes.push(`a ${String(b.type)} block of a response is left out`);
    }
    this.push(...responseEvents(converted, response, ts));
  }

  result(block: WireBlock, ts: string | undefined): void {
    const callId = String(block.tool_use_id);
    const content = block.content;
    // Blocks are kept as sent (a tool_reference, an image); their text is the result.
    const sent: string | ContentBlock[] =
      typeof content === 'string'
        ? content
        : Array.isArray(content)
          ? (content as WireBlock[]).map((b) =>
              isTextBlock(b as ContentBlock) ? { type: 'text', text: String(b.text) } : (b as unknown as ContentBlock),
            )
          : '';
    const text = contentText(sent);
    const saved = typeof sent === 'string' ? this.facts.savedOutput(sent) : undefined;
    if (saved) this.outputs.set(callId, saved);
    const isError = block.is_error;
    const time = this.facts.resultTime(callId) ?? ts;
    this.push({
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

/** A replayed message in wire form. */
function toWire(message: Message): WireMessage {
  return toAnthropic([message])[0] as unknown as WireMessage;
}

/**
 * What a request adds to the history the events replay: the new blocks of its last message and
 * the messages after it; undefined when the request does not continue that history.
 */
function added(
  history: { hashes: readonly string[]; last: WireMessage | undefined },
  request: readonly WireMessage[],
): { blocks: WireBlock[]; role: string; from: number } | undefined {
  const { hashes, last } = history;
  if (request.length < hashes.length) return undefined;
  for (let i = 0; i < hashes.length - 1; i++) if (hashes[i] !== normalHash(request[i]!)) return undefined;
  if (!last) return { blocks: [], role: '', from: 0 };
  const at = request[hashes.length - 1]!;
  if (hashes[hashes.length - 1] === normalHash(at)) return { blocks: [], role: last.role, from: hashes.length };
  const mine = blocksOf(last);
  const theirs = blocksOf(at);
  if (at.role !== last.role || theirs.length < mine.length) return undefined;
  if (canonical(theirs.slice(0, mine.length)) !== canonical(mine)) return undefined;
  // Fields of the message itself (not its blocks) must agree too.
  const { content: _a, ...mineRest } = last;
  const { content: _b, ...theirsRest } = at;
  if (canonical(mineRest) !== canonical(theirsRest)) return undefined;
  return { blocks: theirs.slice(mine.length), role: last.role, from: hashes.length };
}

/** For each message, how many assistant messages come before it. */
function assistantOrdinals(messages: readonly WireMessage[]): number[] {
  let seen = 0;
  return messages.map((m) => (m.role === 'assistant' ? seen++ : seen));
}

export interface SentRequest {
  messages: WireMessage[];
  ts: string | undefined;
  /** The system prompt and tools it sent, when the file records them: written once per change. */
  shape?: RequestShapeEvent;
  /** What its model_call event records of it (fields, cache marks), when the file does. */
  call?: Omit<ModelCallEvent, 'type' | 'ts' | 'shape'>;
  /** Why its messages could not be resolved exactly from the file, when they could not. */
  unresolved?: string;
}

export interface Follow<R extends SentRequest> {
  /** The history restarted before `request`: the compaction event, and the summary message it stands for, if any. */
  restart(request: R, previous: R | undefined): { compaction: CompactionEvent; summaryMessage: boolean };
  /** After each request: its response, from wherever the file keeps it. */
  answered(request: R): void;
}

/**
 * Turns requests into events, checking that the replay gives each one back. A request it does
 * not give back is marked on its model_call (`rebuilt`, with why); returns how many were exact.
 */
export function followRequests<R extends SentRequest>(
  writer: EventWriter,
  requests: readonly R[],
  follow: Follow<R>,
): { exact: number } {
  let previous: R | undefined;
  let exact = 0;
  let shape: string | undefined;
  for (const [k, request] of requests.entries()) {
    const more = added(writer.history(), request.messages);
    const ordinals = assistantOrdinals(request.messages);
    const write = (from: number) => {
      for (let i = from; i < request.messages.length; i++)
        writer.message(request.messages[i]!, request.ts, { ordinal: ordinals[i]! });
    };
    if (more) {
      if (more.blocks.length)
        writer.message({ role: more.role, content: more.blocks }, request.ts, { continues: true });
      write(more.from);
    } else {
      const { compaction, summaryMessage } = follow.restart(request, previous);
      writer.push(compaction);
      write(summaryMessage ? 1 : 0);
    }
    const check = writer.history().hashes;
    const problem =
      request.unresolved ??
      (check.length !== request.messages.length || check.some((h, i) => h !== normalHash(request.messages[i]!))
        ? `request ${k + 1} could not be rebuilt from its messages (message ${firstDifference(check, request.messages) + 1} differs)`
        : undefined);
    if (!problem) exact++;
    if (request.shape && request.shape.hash !== shape) {
      writer.push(request.shape);
      shape = request.shape.hash;
    }
    writer.push({
      type: 'model_call',
      ...(request.ts ? { ts: request.ts } : {}),
      ...(request.shape ? { shape: request.shape.hash } : {}),
      ...request.call,
      ...(problem ? { rebuilt: problem } : {}),
    });
    follow.answered(request);
    previous = request;
  }
  return { exact };
}

function firstDifference(hashes: readonly string[], messages: readonly WireMessage[]): number {
  let i = 0;
  while (i < hashes.length && i < messages.length && hashes[i] === normalHash(messages[i]!)) i++;
  return i;
}
