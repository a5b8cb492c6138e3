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
import { basename } from 'node:path';
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
import type { Yielder } from '../yielder';
import { type ProviderUsage, type ResponseBlock, responseEvents } from './conversion';
import type { Json } from './records';

export type WireBlock = Json & { type?: unknown };
export interface WireMessage {
  role: string;
  content: string | WireBlock[];
  /** Fields the agent put on the message besides these (Claude Code's `output_config`). */
  [field: string]: unknown;
}

/** Canonical JSON: sorted keys, no cache_control (caching is not content). Written in one walk, no copies. */
export function canonical(value: unknown): string {
  return canon(value) ?? 'null';
}
function canon(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i ? ',' : '') + (canon(value[i]) ?? 'null');
    return `${out}]`;
  }
  const keys = Object.keys(value).sort();
  let out = '{';
  let first = true;
  for (const key of keys) {
    if (key === 'cache_control') continue;
    const item = canon((value as Json)[key]);
    if (item === undefined) continue;
    out += `${first ? '' : ','}${JSON.stringify(key)}:${item}`;
    first = false;
  }
  return `${out}}`;
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

/**
 * A request's messages: the first `length` of an array that a chain of requests shares, each
 * keeping its base's messages and adding its own (so n requests of a session hold n messages,
 * not n histories). A request that keeps fewer than its base has, or branches off a base another
 * request grew already, gets a copy of what it keeps.
 */
export class Messages {
  private constructor(
    private readonly array: WireMessage[],
    readonly length: number,
  ) {}

  static of(list: readonly WireMessage[]): Messages {
    return new Messages([...list], list.length);
  }

  /** The first `keep` of these, followed by `more`. */
  keeping(keep: number, more: readonly WireMessage[]): Messages {
    const kept = Math.min(keep, this.length);
    const grows = kept === this.length && this.array.length === this.length;
    const array = grows ? this.array : this.array.slice(0, kept);
    array.push(...more);
    return new Messages(array, kept + more.length);
  }

  at(i: number): WireMessage {
    return this.array[i]!;
  }

  /** How many leading messages two lists share, as the same objects. */
  shared(other: Messages | undefined): number {
    if (!other) return 0;
    const end = Math.min(this.length, other.length);
    if (other.array === this.array) return end;
    let i = 0;
    while (i < end && this.array[i] === other.array[i]) i++;
    return i;
  }

  /** How many assistant messages come before message `i` (kept per array, counted once). */
  assistantsBefore(i: number): number {
    let counts = ordinals.get(this.array);
    if (!counts) {
      counts = [0];
      ordinals.set(this.array, counts);
    }
    while (counts.length <= i) {
      const n = counts.length - 1;
      counts.push(counts[n]! + (this.array[n]!.role === 'assistant' ? 1 : 0));
    }
    return counts[i]!;
  }
}
const ordinals = new WeakMap<WireMessage[], number[]>();

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
  /** Hashes of the replayed messages that can no longer change (all but the last), of the history `settledOf`. */
  private settled: string[] = [];
  private settledOf: readonly Message[] | undefined;

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
   * The hashes of messages that can no longer change are kept from one call to the next.
   */
  history(): HistoryHashes {
    const messages = this.replayer.messages;
    if (messages !== this.settledOf) {
      // A compaction or a rewind: a new history.
      this.settledOf = messages;
      this.settled = [];
    }
    const pending = this.replayer.pending();
    const settled = pending ? messages.length : Math.max(0, messages.length - 1);
    while (this.settled.length < settled) this.settled.push(normalHash(toWire(messages[this.settled.length]!)));
    const rest: string[] = [];
    let last: WireMessage | undefined;
    if (settled < messages.length) {
      last = toWire(messages[messages.length - 1]!);
      rest.push(normalHash(last));
    }
    if (pending) {
      last = toWire(pending);
      rest.push(normalHash(last));
    }
    if (!last && messages.length) last = toWire(messages[messages.length - 1]!);
    const kept = this.settled;
    return {
      length: kept.length + rest.length,
      hashAt: (i) => (i < kept.length ? kept[i]! : rest[i - kept.length]!),
      last,
    };
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

  response(blocks: readonly WireBlock[], response: string, ts: string | undefined, usage?: ProviderUsage): void {
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
    this.push(...responseEvents(converted, response, ts, usage));
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
    // By its name only: the path the file names is never followed.
    if (saved) this.outputs.set(callId, basename(saved));
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

/** The history a request is compared with: its messages' hashes, and its last message. */
export interface HistoryHashes {
  length: number;
  hashAt(i: number): string;
  last: WireMessage | undefined;
}

/**
 * What a request adds to the history the events replay: the new blocks of its last message and
 * the messages after it; undefined when the request does not continue that history. The first
 * `known` messages are known to be the history's (the previous request's own, checked then).
 */
function added(
  history: HistoryHashes,
  request: Messages,
  known: number,
): { blocks: WireBlock[]; role: string; from: number } | undefined {
  const { length, last } = history;
  if (request.length < length) return undefined;
  for (let i = known; i < length - 1; i++) if (history.hashAt(i) !== normalHash(request.at(i))) return undefined;
  if (!last) return { blocks: [], role: '', from: 0 };
  const at = request.at(length - 1);
  if (history.hashAt(length - 1) === normalHash(at)) return { blocks: [], role: last.role, from: length };
  const mine = blocksOf(last);
  const theirs = blocksOf(at);
  if (at.role !== last.role || theirs.length < mine.length) return undefined;
  if (canonical(theirs.slice(0, mine.length)) !== canonical(mine)) return undefined;
  // Fields of the message itself (not its blocks) must agree too.
  const { content: _a, ...mineRest } = last;
  const { content: _b, ...theirsRest } = at;
  if (canonical(mineRest) !== canonical(theirsRest)) return undefined;
  return { blocks: theirs.slice(mine.length), role: last.role, from: length };
}

export interface SentRequest {
  messages: Messages;
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
 * Makes events of the requests, checking that the replay gives each one back. A request it does
 * not give back is marked on its model_call (`rebuilt`, with why); returns how many were exact.
 */
export async function followRequests<R extends SentRequest>(
  writer: EventWriter,
  requests: readonly R[],
  yielder: Yielder,
  follow: Follow<R>,
): Promise<{ exact: number }> {
  let previous: R | undefined;
  /** The last request the replay gave back exactly: its messages are the history's. */
  let matched: Messages | undefined;
  let exact = 0;
  let shape: string | undefined;
  for (const [k, request] of requests.entries()) {
    await yielder.maybe();
    const { messages } = request;
    const known = messages.shared(matched);
    const more = added(writer.history(), messages, Math.max(0, known - 1));
    const write = (from: number) => {
      for (let i = from; i < messages.length; i++)
        writer.message(messages.at(i), request.ts, { ordinal: messages.assistantsBefore(i) });
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
    const check = writer.history();
    // Messages it shares with the last request given back are unchanged, unless the history restarted.
    const from = more ? Math.max(0, known - 1) : 0;
    const differs = firstDifference(check, messages, from);
    const problem =
      request.unresolved ??
      (check.length !== messages.length || differs < messages.length
        ? `request ${k + 1} could not be rebuilt from its messages (message ${differs + 1} differs)`
        : undefined);
    if (!problem) {
      exact++;
      matched = messages;
    } else matched = undefined;
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

/** The index of the first message where the history and the request differ (their shorter length when none). */
function firstDifference(history: HistoryHashes, messages: Messages, from: number): number {
  let i = from;
  while (i < history.length && i < messages.length && history.hashAt(i) === normalHash(messages.at(i))) i++;
  return i;
}
