/**
 * Cline CLI 3 sessions (`~/.cline/data/sessions/<session>/<session>.messages.json`) as runs: one
 * JSON document `{sessionId, messages, system_prompt}` whose messages are Anthropic-style
 * content blocks (text, tool_use, tool_result). A result Cline keeps structured (run_commands'
 * `[{query, result, success}]`) is sent to the model as its JSON, and the prompt without the
 * `<user_input>` wrapper Cline stores it in. Cline cuts each result to about 8,000 characters
 * as it sends it, after cutting a command's output to 48,000 when it runs: the file keeps the
 * second, so neither the full output nor the exact text sent is in it.
 */

import type { TranscriptEvent } from '../../../../shared/events';
import { Yielder } from '../yielder';
import {
  type Conversion,
  conversationOf,
  countKind,
  promptUsage,
  type ResponseBlock,
  responseEvents,
} from './conversion';
import type { Json } from './records';

/** How Cline stores a typed prompt (it sends the text inside). */
const USER_INPUT = /^<user_input(?: [^>]*)?>([\s\S]*)<\/user_input>$/;
/** Cline's note in an output it cut when the command ran. */
const CUT = /\[\.\.\. output truncated: \d+ chars total/;

export function isClineSession(data: unknown): boolean {
  const d = data as Json | null;
  return (
    typeof d === 'object' &&
    d !== null &&
    Array.isArray(d.messages) &&
    typeof d.sessionId === 'string' &&
    ('system_prompt' in d || 'origin' in d)
  );
}

const blocksOf = (content: unknown): Json[] =>
  typeof content === 'string'
    ? [{ type: 'text', text: content }]
    : Array.isArray(content)
      ? content.filter((b): b is Json => typeof b === 'object' && b !== null)
      : [];

/** A tool result's content as the model gets it: text as it is, anything else as its JSON. */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  const blocks = Array.isArray(content) ? content : [];
  if (blocks.length > 0 && blocks.every((b) => (b as Json)?.type === 'text' && typeof (b as Json).text === 'string'))
    return blocks.map((b) => (b as Json).text).join('\n');
  return JSON.stringify(content ?? null);
}

export async function convertCline(data: Json, path: string): Promise<Conversion> {
  const yielder = new Yielder();
  const skipped: Record<string, number> = {};
  const notes: string[] = [];
  const events: TranscriptEvent[] = [];
  const names = new Map<string, string>();
  const session = data.sessionId as string;
  const origin = (data.origin ?? {}) as Json;
  let model: string | undefined;
  let responses = 0;
  let cut = 0;
  let first: string | undefined;
  for (const message of data.messages as Json[]) {
    await yielder.maybe();
    const ts =
      typeof message?.ts === 'number' && Number.isFinite(message.ts) ? new Date(message.ts).toISOString() : undefined;
    first ??= ts;
    const stamp = ts ? { ts } : {};
    if (message?.role === 'assistant') {
      const info = (message.modelInfo ?? {}) as Json;
      if (typeof info.id === 'string') model ??= info.id;
      const blocks: ResponseBlock[] = [];
      for (const b of blocksOf(message.content)) {
        if (b.type === 'text' && typeof b.text === 'string' && b.text !== '')
          blocks.push({ type: 'text', text: b.text });
        else if ((b.type === 'thinking' || b.type === 'reasoning') && typeof (b.thinking ?? b.text) === 'string')
          blocks.push({ type: 'thinking', thinking: { text: String(b.thinking ?? b.text) } });
        else if (b.type === 'tool_use' && typeof b.id === 'string') {
          const name = typeof b.name === 'string' ? b.name : 'tool';
          names.set(b.id, name);
          blocks.push({ type: 'tool_use', call: { id: b.id, name, arguments: b.input ?? {} } });
        } else countKind(skipped, `assistant/${String(b.type)}`);
      }
      // Cline's metrics: inputTokens is the whole prompt, the cache's reads and writes among it.
      const m = (message.metrics ?? {}) as Json;
      const counted = promptUsage(m.inputTokens, m.cacheReadTokens, m.outputTokens, m.cacheWriteTokens);
      if (blocks.length) events.push(...responseEvents(blocks, `cline-response-${++responses}`, ts, counted));
    } else if (message?.role === 'user') {
      for (const b of blocksOf(message.content)) {
        if (b.type === 'tool_result' && typeof b.tool_use_id === 'string') {
          const text = resultText(b.content);
          const was = CUT.test(text);
          if (was) cut++;
          events.push({
            type: 'tool_call_finished',
            callId: b.tool_use_id,
            tool: names.get(b.tool_use_id) ?? (typeof b.name === 'string' ? b.name : 'tool'),
            result: text,
            ...(b.is_error === true ? { isError: true } : {}),
            ...(was ? { lost: 'Cline kept only its own cut of this output (its head and tail)' } : {}),
            ...stamp,
          });
        } else if (b.type === 'text' && typeof b.text === 'string') {
          const typed = USER_INPUT.exec(b.text)?.[1];
          events.push({
            type: 'user',
            text: typed ?? b.text,
            ...(typed === undefined && b.text.startsWith('[SYSTEM]') ? { injected: true } : {}),
            split: true,
            ...stamp,
          });
        } else countKind(skipped, `user/${String(b.type)}`);
      }
    } else countKind(skipped, `message/${String(message?.role)}`);
  }
  if (events.some((e) => e.type === 'tool_call_finished'))
    notes.push(
      'Cline sends each result cut to about 8,000 characters; the run holds the result as Cline kept it (a command cut to 48,000 characters when it ran)',
    );
  if (cut)
    notes.push(
      `${cut} output${cut > 1 ? 's' : ''} Cline cut when ${cut > 1 ? 'they' : 'it'} ran: the full output was never kept (with \`retained setup cline\` it is)`,
    );
  const version = typeof origin.version === 'string' ? origin.version : undefined;
  return conversationOf(
    'cline',
    path,
    { tools: names.values(), model, session, version, ts: first },
    events,
    skipped,
    notes,
  );
}
