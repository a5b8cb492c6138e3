/**
 * Replay: the model-facing history rebuilt from a transcript. A pure function of the events,
 * which value files exist, and nothing else, so a resume sends exactly what the live turns
 * sent: a retained result comes back as the same stub, byte for byte, but only while its
 * value file exists (otherwise the full text goes in: never a stub that points at nothing).
 */
import { stubFor } from './stub';
import type { StopReason, ToolCall, ToolCallFinishedEvent, TranscriptEvent } from './transcript';

export const PEEK_TOOL = 'peek_value';

export type Block =
  | { type: 'thinking'; thinking: string; signature?: string; encryptedContent?: string }
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: string; is_error?: boolean };

export interface Message {
  role: 'user' | 'assistant';
  content: Block[];
}

export interface ReplayInput {
  events: readonly TranscriptEvent[];
  /** Value ids whose files exist in the run's values folder now. */
  existingValues: ReadonlySet<string>;
}

export interface StructuredReplay {
  messages: Message[];
  /** The last turn's stop reason, when it ended. */
  stopReason?: StopReason;
}

export const INTERRUPTED_RESULT = '[interrupted: the call was cut off before it produced a result]';

/** A run offers peek_value unless its run_started event lists tools without it. */
export function offersPeek(events: readonly TranscriptEvent[]): boolean {
  const started = events.find((e) => e.type === 'run_started');
  return started?.type === 'run_started' ? started.tools.includes(PEEK_TOOL) : true;
}

/** Stubs already made, by event: a stub is a pure function of its event, and events are never changed. */
const stubCache = new WeakMap<ToolCallFinishedEvent, string>();

/** What the model got for one result: its stub when retained (and still on disk), else the text. */
export function modelContent(event: ToolCallFinishedEvent, offersStubs: boolean, existingValues: ReadonlySet<string>): string {
  if (!offersStubs || !event.valueId || !event.preview || !existingValues.has(event.valueId)) return event.result;
  let stub = stubCache.get(event);
  if (stub === undefined) {
    stub = stubFor({ valueId: event.valueId, tool: event.tool, text: event.result, isError: event.isError }, event.preview);
    stubCache.set(event, stub);
  }
  return stub;
}

/** Messages with every tool_use answered by its tool_result at the start of the next user message. */
export function replayStructured({ events, existingValues }: ReplayInput): StructuredReplay {
  const stubs = offersPeek(events);
  const messages: Message[] = [];
  let stopReason: StopReason | undefined;
  /** Calls of the latest assistant message still waiting for their results, in call order. */
  let open: ToolCall[] = [];
  let results = new Map<string, Block>();

  const closeOpenCalls = () => {
    if (open.length === 0 && results.size === 0) return;
    const blocks: Block[] = open.map(
      (call) => results.get(call.id) ?? { type: 'tool_result', tool_use_id: call.id, content: INTERRUPTED_RESULT, is_error: true },
    );
    messages.push({ role: 'user', content: blocks });
    open = [];
    results = new Map();
  };

  for (const event of events) {
    switch (event.type) {
      case 'run_started':
        break;
      case 'user':
        closeOpenCalls();
        appendBlocks(messages, 'user', [{ type: 'text', text: event.text }]);
        stopReason = undefined;
        break;
      case 'assistant': {
        closeOpenCalls();
        const blocks: Block[] = [];
        for (const t of event.thinking ?? []) {
          blocks.push({ type: 'thinking', thinking: t.text, ...(t.signature ? { signature: t.signature } : {}), ...(t.encryptedContent ? { encryptedContent: t.encryptedContent } : {}) });
        }
        if (event.text) blocks.push({ type: 'text', text: event.text });
        for (const call of event.toolCalls ?? []) blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: call.arguments ?? {} });
        if (blocks.some((b) => b.type !== 'thinking')) appendBlocks(messages, 'assistant', blocks);
        open = [...(event.toolCalls ?? [])];
        break;
      }
      case 'tool_call_finished': {
        const block: Block = {
          type: 'tool_result',
          tool_use_id: event.callId,
          content: modelContent(event, stubs, existingValues),
          ...(event.isError ? { is_error: true } : {}),
        };
        if (open.some((c) => c.id === event.callId)) {
          results.set(event.callId, block);
        } else {
          // A result whose call no assistant event recorded: give it its own call, so it stays paired.
          closeOpenCalls();
          messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: event.callId, name: event.tool, input: event.arguments ?? {} }] });
          messages.push({ role: 'user', content: [block] });
        }
        break;
      }
      case 'turn_ended':
        closeOpenCalls();
        stopReason = event.stopReason;
        break;
    }
  }
  closeOpenCalls();
  return { messages, stopReason };
}

/** Adjacent messages of one role merge, as providers require alternating roles. */
function appendBlocks(messages: Message[], role: Message['role'], blocks: Block[]): void {
  const last = messages[messages.length - 1];
  if (last && last.role === role) last.content.push(...blocks);
  else messages.push({ role, content: blocks });
}

/** The same history folded into one string, for agents that send a single prompt. */
export function replayText(input: ReplayInput): string {
  const { messages, stopReason } = replayStructured(input);
  const parts: string[] = [];
  const names = new Map<string, string>();
  for (const message of messages) {
    for (const block of message.content) {
      if (block.type === 'thinking') continue; // reasoning is for the provider that made it, not a prompt
      if (block.type === 'text') parts.push(`${message.role === 'user' ? 'User' : 'Assistant'}: ${block.text}`);
      else if (block.type === 'tool_use') {
        names.set(block.id, block.name);
        parts.push(`Tool call ${block.name} (${block.id}): ${JSON.stringify(block.input)}`);
      } else {
        const name = names.get(block.tool_use_id) ?? 'tool';
        parts.push(`Tool result ${name} (${block.tool_use_id})${block.is_error ? ' [error]' : ''}:\n${block.content}`);
      }
    }
  }
  if (stopReason && stopReason !== 'end_turn') parts.push(`[turn ${stopReason}]`);
  return parts.join('\n\n');
}
