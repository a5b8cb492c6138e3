/**
 * Gemini CLI chats (`~/.gemini/tmp/<project>/chats/session-*.jsonl`) as runs. The file is a log
 * of changes to one chat: a header (`sessionId`, `startTime`), then messages, each written again
 * under its `id` when it changes (a model message gets its `toolCalls` after they ran), and
 * `$set` records that set the chat's fields (`messages` whole, on a resume). The conversation is
 * the messages as the last record left them. A call's full output is its `resultDisplay`, or the
 * file Gemini CLI saved under `tool-outputs/` when it cut what the model got.
 */

import { basename, dirname, join } from 'node:path';
import type { TranscriptEvent } from '../../../../shared/events';
import { Yielder } from '../yielder';
import { type Conversion, countKind, importedStart } from './conversion';
import { type FullFor, geminiUsage, PartsWriter } from './geminiParts';
import type { Json } from './records';

/** The header Gemini CLI writes when a session starts or resumes. */
const isHeader = (r: Json) => typeof r.sessionId === 'string' && 'startTime' in r && !('type' in r);

/** Gemini CLI's notice for an output it cut, which opens what the model got, naming the file it saved. */
const SAVED = /^Output too large\. Showing first [\d,]+ and last [\d,]+ characters\. For full output see: (\S+)\n/;

export function isGeminiChat(record: Json): boolean {
  return isHeader(record) || (typeof record.$set === 'object' && record.$set !== null) || record.type === 'gemini';
}

const partsOf = (content: unknown): Json[] =>
  typeof content === 'string'
    ? [{ text: content }]
    : Array.isArray(content)
      ? content.filter((p): p is Json => typeof p === 'object' && p !== null)
      : [];

export async function convertGemini(records: readonly Json[], path: string): Promise<Conversion> {
  const yielder = new Yielder();
  const skipped: Record<string, number> = {};
  const notes: string[] = [];
  let session: string | undefined;
  let start: string | undefined;
  // The chat as the records leave it: messages by id, in order.
  let messages = new Map<string, Json>();
  let dropped = 0;
  // A resume writes every message again, stamped with its own time: each keeps the time it was first written.
  const firstSeen = new Map<string, string>();
  for (const r of records) {
    await yielder.maybe();
    if (isHeader(r)) {
      session ??= r.sessionId as string;
      start ??= typeof r.startTime === 'string' ? r.startTime : undefined;
    } else if (typeof r.$rewindTo === 'string') {
      // A rewind: that message and every one after it leave the chat.
      const ids = [...messages.keys()];
      const at = ids.indexOf(r.$rewindTo);
      for (const id of at < 0 ? ids : ids.slice(at)) messages.delete(id);
      dropped += at < 0 ? ids.length : ids.length - at;
    } else if (r.$set && typeof r.$set === 'object') {
      const set = r.$set as Json;
      if (!Array.isArray(set.messages)) continue;
      const next = new Map<string, Json>();
      for (const m of set.messages as Json[]) if (m && typeof m.id === 'string') next.set(m.id, m);
      for (const id of messages.keys()) if (!next.has(id)) dropped++;
      messages = next;
    } else if (typeof r.id === 'string' && typeof r.type === 'string') {
      messages.set(r.id, r);
      if (typeof r.timestamp === 'string' && !firstSeen.has(r.id)) firstSeen.set(r.id, r.timestamp);
    } else countKind(skipped, typeof r.type === 'string' ? r.type : 'unknown');
  }
  if (dropped)
    notes.push(
      `${dropped} message${dropped > 1 ? 's were' : ' was'} taken out of the chat later (a rewind or a compression): the run holds the chat as Gemini CLI left it`,
    );

  // Every call's record, for its full output.
  const calls = new Map<string, Json>();
  for (const m of messages.values())
    if (Array.isArray(m.toolCalls))
      for (const c of m.toolCalls as Json[]) if (typeof c?.id === 'string') calls.set(c.id, c);
  // Saved outputs are read only for a chat where Gemini CLI keeps them (`…/<project>/chats/`).
  const inChats = basename(dirname(path)) === 'chats';
  const full: FullFor = (callId, sent) => {
    const call = calls.get(callId);
    if (typeof call?.resultDisplay === 'string' && call.resultDisplay.length > sent.length)
      return { text: call.resultDisplay };
    const saved = SAVED.exec(sent)?.[1];
    // By name only, in this session's own folder of this chat's tool-outputs: the path in the file is not followed.
    return saved && session && inChats && basename(dirname(saved)) === `session-${session}`
      ? { file: join(`session-${session}`, basename(saved)) }
      : undefined;
  };

  const writer = new PartsWriter();
  let model: string | undefined;
  /** The calls of the last model message, answered from its own record if no user message does. */
  let pending: Json[] = [];
  const answerPending = () => {
    for (const call of pending)
      if (!writer.answered.has(String(call.id)))
        for (const part of partsOf(call.result))
          if (part.functionResponse) writer.result(part.functionResponse as Json, str(call.timestamp), full);
    pending = [];
  };
  let first = true;
  for (const m of messages.values()) {
    await yielder.maybe();
    const ts = firstSeen.get(String(m.id)) ?? str(m.timestamp);
    if (m.type === 'user') {
      const parts = partsOf(m.content);
      const context = first && parts.some((p) => typeof p.text === 'string' && p.text.startsWith('<session_context>'));
      if (!parts.some((p) => p.functionResponse)) answerPending();
      writer.user(parts, ts, { injected: context, full });
      answerPending();
    } else if (m.type === 'gemini') {
      answerPending();
      if (typeof m.model === 'string') model ??= m.model;
      const toolCalls = Array.isArray(m.toolCalls) ? (m.toolCalls as Json[]) : [];
      const parts = partsOf(m.content);
      // Written whole (on a resume) the message holds its calls; otherwise they are in toolCalls.
      if (!parts.some((p) => p.functionCall))
        for (const c of toolCalls) parts.push({ functionCall: { id: c.id, name: c.name, args: c.args } });
      const thoughts = Array.isArray(m.thoughts)
        ? (m.thoughts as Json[]).flatMap((t) => {
            const text = [str(t?.subject), str(t?.description)].filter(Boolean).join(': ');
            return text ? [text] : [];
          })
        : [];
      writer.model(parts, ts, thoughts, geminiUsage(m.tokens));
      pending = toolCalls;
    } else countKind(skipped, `message/${String(m.type)}`);
    first = false;
  }
  answerPending();
  if (writer.repeated)
    notes.push(
      `Gemini CLI sent ${writer.repeated} result${writer.repeated > 1 ? 's' : ''} twice (after a resume, its history holds a call's recorded result and the message that answered it): the run keeps each once`,
    );
  const events: TranscriptEvent[] = [
    importedStart('gemini-cli', path, {
      tools: writer.names.values(),
      model,
      session,
      fidelity: 'conversation',
      ts: start,
    }),
    ...writer.events,
  ];
  return {
    format: 'gemini-cli',
    events,
    fidelity: 'conversation',
    outputs: writer.outputs,
    outputsDir: join(dirname(dirname(path)), 'tool-outputs'),
    ...(session ? { name: session } : {}),
    skipped,
    notes,
  };
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
