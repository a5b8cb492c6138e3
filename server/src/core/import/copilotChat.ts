/**
 * VS Code Copilot Chat's "chat replay" export (`*.chatreplay.json`, from "Export Chat Replay")
 * as a run. Its `prompts[].logs[]` hold every model request with the exact messages sent
 * (`role` 0 system, 1 user, 2 assistant, 3 tool; content parts 1 text, 2 opaque data such as
 * thinking, 3 a cache breakpoint), and every tool call with its output. The agent's own requests
 * (`panel/editAgent`) are followed as sent; side requests (titles, summaries) are counted.
 */

import type { TranscriptEvent } from '../../../../shared/events';
import { Yielder } from '../yielder';
import { type Conversion, countKind } from './conversion';
import type { Json } from './records';
import {
  EventWriter,
  followRequests,
  Messages,
  type SentRequest,
  type SessionFacts,
  type WireBlock,
  type WireMessage,
} from './wire';

/** The agent's own requests; others are side calls (titles, summaries). */
const AGENT_REQUEST = 'panel/editAgent';

type Part = { type?: unknown; text?: unknown; value?: unknown };
interface CopilotMessage {
  role?: unknown;
  content?: Part[];
  toolCalls?: { id?: unknown; function?: { name?: unknown; arguments?: unknown } }[];
  toolCallId?: unknown;
}

/** The call id without the `__vscode-<n>` suffix the tool-call logs add. */
const callIdOf = (id: unknown) => String(id).split('__vscode')[0]!;

function parseArguments(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw ?? {};
  try {
    return JSON.parse(raw);
  } catch {
    return { input: raw };
  }
}

/**
 * One Copilot message in Anthropic's wire form. Empty texts and cache breakpoints carry no
 * content; a thinking part keeps its text and encrypted signature; other opaque parts
 * (`stateful_marker`, `phase_data`) are Copilot's own bookkeeping and are left out.
 */
function toWire(message: CopilotMessage, notes: Set<string>): WireMessage {
  const parts = message.content ?? [];
  const texts: WireBlock[] = parts.flatMap((p) =>
    p.type === 1 && typeof p.text === 'string' && p.text !== '' ? [{ type: 'text', text: p.text }] : [],
  );
  for (const p of parts) {
    const kind = (p.value as Json | undefined)?.type;
    if (p.type === 2 && kind !== 'thinking')
      notes.add(`Copilot's ${String(kind)} parts (its own bookkeeping) are left out`);
  }
  switch (message.role) {
    case 0:
      return { role: 'system', content: texts };
    case 2: {
      const thinking: WireBlock[] = parts.flatMap((p) => {
        const value = p.value as Json | undefined;
        const t = value?.type === 'thinking' ? (value.thinking as Json | undefined) : undefined;
        return t && typeof t.text === 'string'
          ? [
              {
                type: 'thinking',
                thinking: t.text,
                ...(typeof t.encrypted === 'string' ? { signature: t.encrypted } : {}),
              },
            ]
          : [];
      });
      const uses: WireBlock[] = (message.toolCalls ?? []).map((c) => ({
        type: 'tool_use',
        id: String(c.id),
        name: String(c.function?.name ?? 'tool'),
        input: parseArguments(c.function?.arguments),
      }));
      return { role: 'assistant', content: [...thinking, ...texts, ...uses] };
    }
    case 3:
      return {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: String(message.toolCallId), content: texts.map((t) => t.text).join('') },
        ],
      };
    default:
      return { role: 'user', content: texts };
  }
}

/** Copilot sends each tool output as a message of its own; the wire form answers a response's calls in one user message. */
function grouped(messages: WireMessage[]): WireMessage[] {
  const out: WireMessage[] = [];
  for (const m of messages) {
    const last = out[out.length - 1];
    const results = (x: WireMessage) => Array.isArray(x.content) && x.content.every((b) => b.type === 'tool_result');
    if (last && results(last) && results(m))
      last.content = [...(last.content as WireBlock[]), ...(m.content as WireBlock[])];
    else out.push({ ...m, content: Array.isArray(m.content) ? [...m.content] : m.content });
  }
  return out;
}

export function isCopilotChatReplay(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Array.isArray((value as Json).prompts);
}

export async function convertCopilotChat(data: Json, path: string): Promise<Conversion> {
  const skipped: Record<string, number> = {};
  const notes = new Set<string>();
  const prompts = (Array.isArray(data.prompts) ? data.prompts : []) as Json[];
  const calls = new Map<string, Json>();
  const requests: (SentRequest & { response: string[] })[] = [];
  let model: string | undefined;
  for (const prompt of prompts) {
    for (const log of (Array.isArray(prompt.logs) ? prompt.logs : []) as Json[]) {
      if (log.kind === 'toolCall') {
        calls.set(callIdOf(log.id), log);
        continue;
      }
      if (log.kind !== 'request' || log.name !== AGENT_REQUEST) {
        countKind(skipped, `${String(log.kind)}/${String(log.name ?? log.type)}`);
        continue;
      }
      const meta = (log.metadata ?? {}) as Json;
      if (typeof meta.model === 'string') model ??= meta.model;
      const messages = ((log.requestMessages as Json | undefined)?.messages ?? []) as CopilotMessage[];
      const response = (log.response as Json | undefined)?.message;
      requests.push({
        messages: Messages.of(grouped(messages.map((m) => toWire(m, notes)))),
        ts: typeof meta.startTime === 'string' ? meta.startTime : undefined,
        response: Array.isArray(response) ? response.map(String) : [],
      });
    }
  }
  const typed = new Set(prompts.flatMap((p) => (typeof p.prompt === 'string' ? [p.prompt] : [])));
  const facts: SessionFacts = {
    // Copilot wraps the prompt in context tags: the block that holds it is the user's.
    isTyped: (text) => [...typed].some((t) => text.includes(t)),
    toolName: (id) => {
      const tool = calls.get(id)?.tool;
      return typeof tool === 'string' ? tool : undefined;
    },
    resultTime: (id) => {
      const time = calls.get(id)?.time;
      return typeof time === 'string' ? time : undefined;
    },
    // Copilot resends its whole history (older messages sometimes changed): the n-th answer is response n.
    responseIdOf: (_message, ordinal) => `copilot-response-${ordinal + 1}`,
    savedOutput: () => undefined,
  };
  const first = requests[0]?.ts ?? (typeof data.exportedAt === 'string' ? data.exportedAt : undefined);
  const start: Extract<TranscriptEvent, { type: 'run_started' }> = {
    type: 'run_started',
    tools: [...new Set([...calls.values()].map((c) => String(c.tool)))],
    agent: 'copilot-chat',
    ...(model ? { model } : {}),
    source: { format: 'copilot-chat', path, fidelity: 'exact' },
    ...(first ? { ts: first } : {}),
  };
  const writer = new EventWriter(facts);
  writer.push(start);
  const { exact } = await followRequests(writer, requests, new Yielder(), {
    // Each prompt's requests carry the conversation so far; one that does not starts it anew.
    restart: () => ({ compaction: { type: 'compaction', reason: 'rewind' }, summaryMessage: false }),
    answered: () => undefined,
  });
  // The last request's answer is the only one no later request carries.
  const last = requests[requests.length - 1];
  if (last) {
    const text = last.response.join('');
    const answered = last.messages.assistantsBefore(last.messages.length);
    if (text) writer.push({ type: 'assistant', text, response: `copilot-response-${answered + 1}` });
  }
  const fidelity = exact === requests.length ? 'exact' : exact > 0 ? 'partial' : 'conversation';
  start.source!.fidelity = fidelity;
  const rebuilt = writer.events.flatMap((e) => (e.type === 'model_call' && e.rebuilt ? [e.rebuilt] : []));
  return {
    format: 'copilot-chat',
    events: writer.events,
    fidelity,
    outputs: new Map(),
    skipped,
    notes: [
      ...(rebuilt.length ? [`${rebuilt.length} of ${requests.length} model calls were rebuilt: ${rebuilt[0]}`] : []),
      ...notes,
      ...writer.notes,
    ],
  };
}
