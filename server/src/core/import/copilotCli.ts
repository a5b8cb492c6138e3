/**
 * GitHub Copilot CLI sessions (`~/.copilot/session-state/<session>/events.jsonl`) as runs. Each
 * line is an event `{type, data, id, timestamp, parentId}`: `user.message` (its
 * `transformedContent` is the text the model got), `assistant.message` (text and
 * `toolRequests`), `tool.execution_complete` (`result.content`, what the model got); the rest
 * (turns, usage, hooks, the system prompt) is counted. A resumed session goes on in the same
 * file. The results of one response are sent in the order of its calls, whatever order they
 * finished in. A result Copilot CLI cut was saved to a temporary file for the session's length
 * only: its full output is gone.
 */

import type { TranscriptEvent } from '../../../../shared/events';
import { Yielder } from '../yielder';
import {
  type Conversion,
  conversationOf,
  countKind,
  type ProviderUsage,
  promptUsage,
  type ResponseBlock,
  responseEvents,
} from './conversion';
import type { Json } from './records';

/** Copilot CLI's notice for an output it saved to a temporary file. */
const SAVED = /^Output too large to read at once \(/;

export function isCopilotCliEvent(record: Json): boolean {
  return (
    typeof record.type === 'string' &&
    /^(session|user|assistant|tool|system|hook)\./.test(record.type) &&
    typeof record.data === 'object' &&
    record.data !== null
  );
}

/** A record as the import holds it: the kinds the conversion reads, whole; any other is only counted. */
export function copilotCliRecord(record: Json): Json | undefined {
  return [
    'session.start',
    'user.message',
    'assistant.turn_start',
    'session.usage_record',
    'assistant.message',
    'tool.execution_complete',
  ].includes(String(record.type))
    ? record
    : undefined;
}

export async function convertCopilotCli(records: readonly Json[], path: string): Promise<Conversion> {
  const yielder = new Yielder();
  const skipped: Record<string, number> = {};
  const notes: string[] = [];
  const events: TranscriptEvent[] = [];
  const names = new Map<string, string>();
  let session: string | undefined;
  let version: string | undefined;
  let model: string | undefined;
  let start: string | undefined;
  let responses = 0;
  let lost = 0;
  /** The calls of the last response, in order, and their results as they finish. */
  let order: string[] = [];
  const finished = new Map<string, TranscriptEvent>();
  const flushResults = () => {
    for (const id of order) {
      const result = finished.get(id);
      if (result) events.push(result);
      finished.delete(id);
    }
    // A result of a call no response made (a file cut short) still comes in.
    events.push(...finished.values());
    finished.clear();
    order = [];
  };
  /** The provider's count of the model call being answered (its usage record comes before its message). */
  let counted: ProviderUsage | undefined;
  for (const r of records) {
    await yielder.maybe();
    const data = (r.data ?? {}) as Json;
    const ts = typeof r.timestamp === 'string' ? r.timestamp : undefined;
    const stamp = ts ? { ts } : {};
    switch (r.type) {
      case 'session.start':
        session ??= typeof data.sessionId === 'string' ? data.sessionId : undefined;
        version ??= typeof data.copilotVersion === 'string' ? data.copilotVersion : undefined;
        start ??= typeof data.startTime === 'string' ? data.startTime : ts;
        break;
      case 'user.message': {
        flushResults();
        const text = typeof data.transformedContent === 'string' ? data.transformedContent : String(data.content ?? '');
        events.push({ type: 'user', text, ...stamp });
        break;
      }
      case 'assistant.message': {
        flushResults();
        if (typeof data.model === 'string') model ??= data.model;
        const blocks: ResponseBlock[] = [];
        if (typeof data.reasoningText === 'string' && data.reasoningText !== '')
          blocks.push({ type: 'thinking', thinking: { text: data.reasoningText } });
        if (typeof data.content === 'string' && data.content !== '') blocks.push({ type: 'text', text: data.content });
        for (const call of Array.isArray(data.toolRequests) ? (data.toolRequests as Json[]) : []) {
          if (typeof call?.toolCallId !== 'string') continue;
          const name = typeof call.name === 'string' ? call.name : 'tool';
          names.set(call.toolCallId, name);
          order.push(call.toolCallId);
          blocks.push({ type: 'tool_use', call: { id: call.toolCallId, name, arguments: call.arguments ?? {} } });
        }
        if (blocks.length) events.push(...responseEvents(blocks, `copilot-cli-response-${++responses}`, ts, counted));
        counted = undefined;
        break;
      }
      case 'assistant.turn_start':
        counted = undefined;
        break;
      case 'session.usage_record': {
        // The count of the model call whose message comes next: inputTokens holds the cache's reads and writes.
        const u = (data.usage ?? {}) as Json;
        const read = Number.isSafeInteger(u.cacheReadTokens) ? (u.cacheReadTokens as number) : 0;
        const write = Number.isSafeInteger(u.cacheWriteTokens) ? (u.cacheWriteTokens as number) : 0;
        counted = promptUsage(u.inputTokens, read, u.outputTokens, write);
        break;
      }
      case 'tool.execution_complete': {
        const id = typeof data.toolCallId === 'string' ? data.toolCallId : undefined;
        if (!id || finished.has(id)) break;
        const result = (data.result ?? {}) as Json;
        const error = (data.error ?? {}) as Json;
        const text =
          typeof result.content === 'string'
            ? result.content
            : typeof error.message === 'string'
              ? error.message
              : JSON.stringify(data.result ?? data.error ?? null);
        const cut = SAVED.test(text);
        if (cut) lost++;
        finished.set(id, {
          type: 'tool_call_finished',
          callId: id,
          tool: names.get(id) ?? (typeof data.toolName === 'string' ? data.toolName : 'tool'),
          result: text,
          ...(data.success === false ? { isError: true } : {}),
          ...(cut
            ? {
                lost: 'Copilot CLI saved the full output to a temporary file for the session only: what the model got is kept',
              }
            : {}),
          ...stamp,
        });
        break;
      }
      default:
        countKind(skipped, String(r.type));
    }
  }
  flushResults();
  if (lost)
    notes.push(
      `${lost} output${lost > 1 ? 's' : ''} Copilot CLI cut (a notice and 500 characters) ${lost > 1 ? 'were' : 'was'} kept whole only in a temporary file, gone with the session: run with \`retained setup copilot-cli\` to keep them`,
    );
  return conversationOf(
    'copilot-cli',
    path,
    { tools: names.values(), model, session, version, ts: start },
    events,
    skipped,
    notes,
  );
}
