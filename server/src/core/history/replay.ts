/**
 * Replay: the model-facing history rebuilt from a transcript. A pure function of the events,
 * which value files exist, and the view asked for, so a resume sends exactly what the live
 * model calls sent: a retained result comes back as the same stub, byte for byte, but only while
 * its value file exists (otherwise the full text goes in: never a stub that points at nothing).
 *
 * Two views of one run:
 * - `sent`: what the agent sent the model. For a run recorded through Retained Outputs, its
 *   stubs; for an imported run, the agent's own text (Claude Code's persisted-output preview,
 *   Codex's truncation), never a stub.
 * - `retained`: the same history with Retained Outputs in the loop: every retained result as its
 *   stub. For a recorded run this is the same as `sent`; for an imported run it is a simulation.
 */

import { blockText, contentText } from '../../../../shared/blocks';
import type { StopReason, ToolCall, ToolCallFinishedEvent, TranscriptEvent } from '../../../../shared/events';
import type { Block, Message, ResultContent, View } from '../../../../shared/history';
import { offersPeek } from '../../../../shared/peekTool';
import { deletedNotice, INTERRUPTED_RESULT } from '../../../../shared/stubText';
import { stubFor } from '../text/stub';

export interface ReplayInput {
  events: readonly TranscriptEvent[];
  /** Value ids whose files exist in the run's values folder now. */
  existingValues: ReadonlySet<string>;
  /** Default `retained`. */
  view?: View;
  /** Every result in full (for figures; see ContentRule.full). */
  full?: boolean;
}

export interface StructuredReplay {
  messages: Message[];
  /** The last response's stop reason, when it ended. */
  stopReason?: StopReason;
  /**
   * Where each block came from, parallel to `messages[i].content`: the index of its event, and
   * `synthetic` for the interrupted results replay made up for calls that never finished.
   */
  owners: BlockOwner[][];
  /** The histories compactions replaced, oldest first: what earlier requests were sent. */
  compacted: Segment[];
}

export interface BlockOwner {
  event: number;
  synthetic?: true;
}

/** A history with the owners of its blocks. */
export interface Segment {
  messages: Message[];
  owners: BlockOwner[][];
}

/** True for a run imported from an agent's session file: the agent never got our stubs. */
export function isImported(events: readonly TranscriptEvent[]): boolean {
  const first = events[0];
  return first?.type === 'run_started' && first.source !== undefined;
}

/** How results reach the model in one replay: derived once from the run and the view. */
export interface ContentRule {
  /** Stubs for retained results whose value file exists. */
  stubs: boolean;
  /** The agent's own text (`sent`) where it differs from the result. */
  agentText: boolean;
  /** Every result in full, for figures: a result kept in a value is '' here, its size in the event. */
  full: boolean;
  existingValues: ReadonlySet<string>;
}

export function contentRule(
  events: readonly TranscriptEvent[],
  existingValues: ReadonlySet<string>,
  view: View = 'retained',
  full = false,
): ContentRule {
  if (isImported(events))
    return view === 'sent'
      ? { stubs: false, agentText: true, full, existingValues }
      : { stubs: true, agentText: false, full, existingValues };
  return { stubs: offersPeek(events), agentText: false, full, existingValues };
}

/** Stubs made from an older event's result, by event (events are never changed). */
const stubCache = new WeakMap<ToolCallFinishedEvent, string>();

/** The stub of a retained result: recorded in the event, or made once from an older event's result. */
export function stubOf(event: ToolCallFinishedEvent): string | undefined {
  if (event.stub !== undefined) return event.stub;
  if (!event.valueId || !event.preview || event.result === undefined) return undefined;
  let stub = stubCache.get(event);
  if (stub === undefined) {
    stub = stubFor(
      { valueId: event.valueId, tool: event.tool, text: event.result, isError: event.isError },
      event.preview,
    );
    stubCache.set(event, stub);
  }
  return stub;
}

/**
 * What the model got for one result under `rule`: the agent's own text (an imported run as
 * sent), the stub of a retained result, or the result. A retained result whose value was
 * deleted is said to be gone, plainly: neither a stub pointing at nothing nor the full text
 * coming back unasked.
 */
export function modelContent(event: ToolCallFinishedEvent, rule: ContentRule): ResultContent {
  // A result of blocks (an image, a loaded tool) that no value holds goes as its blocks, in every view.
  const whole = !event.valueId && Array.isArray(event.sent) ? event.sent : (event.result ?? '');
  if (rule.full) return whole;
  if (rule.agentText && event.sent !== undefined) return event.sent;
  if (event.valueId) {
    if (!rule.stubs) return event.result ?? stubOf(event) ?? '';
    if (rule.existingValues.has(event.valueId)) return stubOf(event) ?? event.result ?? '';
    return deletedNotice(event.valueId, event.tool, event.isError, event.bytes, event.lines);
  }
  return whole;
}

type ResultBlock = Extract<Block, { type: 'tool_result' }>;

/** The text of a tool_result block's content. */
export function resultText(block: ResultBlock): string {
  return contentText(block.content);
}

/**
 * Messages with every tool_use answered by its tool_result in the next user message. Results
 * go in the order they were recorded (as agents send parallel results, in the order they
 * finished); a call left without one gets an interrupted result after them.
 */
export function replayStructured({ events, existingValues, view, full }: ReplayInput): StructuredReplay {
  const replayer = new Replayer(contentRule(events, existingValues, view, full));
  events.forEach((event, index) => {
    replayer.add(event, index);
  });
  return replayer.finish();
}

/**
 * Replay one event at a time: what replayStructured does, for a caller that checks the history
 * as it grows (an import compares it with each request the agent sent, without replaying the
 * events again for each).
 */
export class Replayer {
  private readonly history = new History();
  private stopReason: StopReason | undefined;
  /** Calls of the latest response still waiting for their results, in call order, with their events. */
  private open: { call: ToolCall; event: number }[] = [];
  private results: { block: ResultBlock; event: number }[] = [];
  /** The provider id of the latest response, so its later events join its message. */
  private response: string | undefined;

  constructor(private readonly rule: ContentRule) {}

  /** The history so far, results still open left out (a live array: do not change it). */
  get messages(): readonly Message[] {
    return this.history.messages;
  }

  /** The results of the latest response that came so far, as the message they will make; interrupted ones aside. */
  pending(): Message | undefined {
    return this.results.length ? { role: 'user', content: this.results.map((r) => r.block) } : undefined;
  }

  add(event: TranscriptEvent, index: number): void {
    const { history } = this;
    if (event.type !== 'assistant') this.response = undefined;
    switch (event.type) {
      case 'run_started':
      case 'request_shape':
      case 'model_call':
        break;
      case 'user': {
        this.closeOpenCalls();
        this.stopReason = undefined;
        const block: Block | undefined = event.block
          ? event.block.type === 'text'
            ? { type: 'text', text: event.block.text }
            : { type: 'provider', block: event.block }
          : this.sendable(event.text)
            ? { type: 'text', text: event.text }
            : undefined;
        if (!block) break;
        if (event.split) history.push('user', [block], [{ event: index }]);
        else history.append('user', [block], index);
        break;
      }
      case 'system': {
        this.closeOpenCalls();
        // A blank system message (Claude Code sends some) has no blocks: the API refuses empty text.
        const text = event.text !== '' && this.sendable(event.text);
        history.push(
          'system',
          text ? [{ type: 'text', text: event.text }] : [],
          text ? [{ event: index }] : [],
          event.fields,
        );
        break;
      }
      case 'compaction':
        this.closeOpenCalls();
        history.clear();
        if (event.summary !== undefined)
          history.push('user', [{ type: 'text', text: event.summary }], [{ event: index }]);
        this.stopReason = undefined;
        break;
      case 'assistant': {
        const continues = event.response !== undefined && event.response === this.response;
        if (!continues) this.closeOpenCalls();
        this.response = event.response;
        const blocks: Block[] = [];
        for (const t of event.thinking ?? []) {
          blocks.push({
            type: 'thinking',
            thinking: t.text,
            ...(t.signature ? { signature: t.signature } : {}),
            ...(t.encryptedContent ? { encryptedContent: t.encryptedContent } : {}),
            ...(t.redacted !== undefined ? { redacted: t.redacted } : {}),
          });
        }
        if (event.text && this.sendable(event.text)) blocks.push({ type: 'text', text: event.text });
        for (const call of event.toolCalls ?? []) blocks.push(toolUse(call));
        // Reasoning alone makes no message: it is sent with the answer it led to.
        if (continues || blocks.some((b) => b.type !== 'thinking')) history.append('assistant', blocks, index);
        const calls = (event.toolCalls ?? []).map((call) => ({ call, event: index }));
        this.open = continues ? [...this.open, ...calls] : calls;
        break;
      }
      case 'tool_call_finished': {
        const block: ResultBlock = {
          type: 'tool_result',
          tool_use_id: event.callId,
          content: modelContent(event, this.rule),
          // An agent's explicit `is_error: false` is part of what it sent; ours names errors only.
          ...(event.isError !== undefined && (event.isError || this.rule.agentText) ? { is_error: event.isError } : {}),
        };
        const answered = this.results.some((r) => r.block.tool_use_id === event.callId);
        if (this.open.some((o) => o.call.id === event.callId) && !answered) {
          this.results.push({ block, event: index });
        } else {
          // A result whose call no assistant event recorded: give it its own call, so it stays paired.
          this.closeOpenCalls();
          history.push(
            'assistant',
            [{ type: 'tool_use', id: event.callId, name: event.tool, input: event.arguments ?? {} }],
            [{ event: index }],
          );
          history.push('user', [block], [{ event: index }]);
        }
        break;
      }
      case 'turn_ended':
        this.closeOpenCalls();
        this.stopReason = event.stopReason;
        break;
    }
  }

  /** The history of every event added: calls left without a result are answered as interrupted. */
  finish(): StructuredReplay {
    this.closeOpenCalls();
    const { history, stopReason } = this;
    return {
      messages: history.messages,
      owners: history.owners,
      compacted: history.compacted,
      ...(stopReason ? { stopReason } : {}),
    };
  }

  /**
   * Whether a text goes as a block. The Messages API refuses a text block of whitespace only,
   * so a replay of ours never sends one; an agent's own requests are replayed as it sent them.
   */
  private sendable(text: string): boolean {
    return this.rule.agentText || text.trim() !== '';
  }

  private closeOpenCalls(): void {
    const { open, results } = this;
    if (open.length === 0 && results.length === 0) return;
    const answered = new Set(results.map((r) => r.block.tool_use_id));
    const blocks: Block[] = results.map((r) => r.block);
    const owners: BlockOwner[] = results.map((r) => ({ event: r.event }));
    for (const { call, event } of open) {
      if (answered.has(call.id)) continue;
      blocks.push({ type: 'tool_result', tool_use_id: call.id, content: INTERRUPTED_RESULT, is_error: true });
      owners.push({ event, synthetic: true });
    }
    this.history.push('user', blocks, owners);
    this.open = [];
    this.results = [];
  }
}

/** Messages with the event each block came from, kept in step. */
class History {
  messages: Message[] = [];
  owners: BlockOwner[][] = [];
  readonly compacted: Segment[] = [];

  push(role: Message['role'], blocks: Block[], owners: BlockOwner[], fields?: Record<string, unknown>): void {
    this.messages.push({ role, content: blocks, ...(fields ? { fields } : {}) });
    this.owners.push(owners);
  }

  /** Adds blocks of one event; adjacent user or assistant messages merge, as providers require alternating roles. */
  append(role: 'user' | 'assistant', blocks: Block[], event: number): void {
    const last = this.messages[this.messages.length - 1];
    const owners = blocks.map(() => ({ event }));
    if (last && last.role === role) {
      last.content.push(...blocks);
      this.owners[this.owners.length - 1]!.push(...owners);
    } else this.push(role, blocks, owners);
  }

  /** A compaction: the history so far is set aside and a new one starts. */
  clear(): void {
    this.compacted.push({ messages: this.messages, owners: this.owners });
    this.messages = [];
    this.owners = [];
  }
}

function toolUse(call: ToolCall): Block {
  return {
    type: 'tool_use',
    id: call.id,
    name: call.name,
    input: call.arguments ?? {},
    ...(call.custom ? { custom: true as const } : {}),
  };
}

/** The same history folded into one string, for agents that send a single prompt. */
export function replayText(input: ReplayInput): string {
  const { messages, stopReason } = replayStructured(input);
  const parts: string[] = [];
  const names = new Map<string, string>();
  for (const message of messages) {
    for (const block of message.content) {
      if (block.type === 'thinking') continue; // reasoning is for the provider that made it, not a prompt
      const who = message.role === 'user' ? 'User' : message.role === 'system' ? 'System' : 'Assistant';
      if (block.type === 'text') parts.push(`${who}: ${block.text}`);
      else if (block.type === 'provider') parts.push(`${who}: ${blockText(block.block)}`);
      else if (block.type === 'tool_use') {
        names.set(block.id, block.name);
        parts.push(`Tool call ${block.name} (${block.id}): ${JSON.stringify(block.input)}`);
      } else {
        const name = names.get(block.tool_use_id) ?? 'tool';
        parts.push(
          `Tool result ${name} (${block.tool_use_id})${block.is_error ? ' [error]' : ''}:\n${resultText(block)}`,
        );
      }
    }
  }
  if (stopReason && stopReason !== 'end_turn') parts.push(`[turn ${stopReason}]`);
  return parts.join('\n\n');
}
