/**
 * Provider shapes: the neutral replay messages turned into what an agent actually sends,
 * ready to go. Anthropic Messages (`tool_use` / `tool_result` blocks), OpenAI Chat Completions
 * (`tool_calls` + `role: "tool"`), and OpenAI Responses (`function_call` /
 * `function_call_output` items). Pure functions; `historyValidator.ts` checks their pairing.
 */
import type { Block, Message } from './replay';

/** Index of the first message of the current turn: after the last user message that is not just tool results. */
function currentTurnStart(messages: readonly Message[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === 'user' && m.content.some((b) => b.type === 'text')) return i;
  }
  return 0;
}

export type ProviderShape = 'anthropic' | 'openai-chat' | 'openai-responses';
export const PROVIDER_SHAPES: readonly ProviderShape[] = ['anthropic', 'openai-chat', 'openai-responses'];

export type AnthropicBlock =
  | { type: 'thinking'; thinking: string; signature: string }
  | Exclude<Block, { type: 'thinking' }>;
export interface AnthropicMessage {
  role: Message['role'];
  content: AnthropicBlock[];
}

export type ChatMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export type ResponsesItem =
  | { type: 'message'; role: 'user'; content: { type: 'input_text'; text: string }[] }
  | { type: 'message'; role: 'assistant'; content: { type: 'output_text'; text: string }[] }
  | { type: 'reasoning'; encrypted_content: string; summary: { type: 'summary_text'; text: string }[] }
  | { type: 'function_call'; call_id: string; name: string; arguments: string }
  | { type: 'function_call_output'; call_id: string; output: string };

/**
 * Anthropic wants the current turn's thinking blocks back unmodified, with their signatures,
 * ahead of the tool use they led to; earlier turns' thinking is not needed (the API drops it),
 * and a block without a signature cannot be sent at all.
 */
export function toAnthropic(messages: readonly Message[]): AnthropicMessage[] {
  const turn = currentTurnStart(messages);
  return messages.map((m, i) => ({
    role: m.role,
    content: m.content.flatMap((b): AnthropicBlock[] => {
      if (b.type !== 'thinking') return [{ ...b }];
      return i >= turn && b.signature ? [{ type: 'thinking', thinking: b.thinking, signature: b.signature }] : [];
    }),
  }));
}

export function toOpenAIChat(messages: readonly Message[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const message of messages) {
    if (message.role === 'assistant') {
      const text = message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
      const calls = message.content.flatMap((b) =>
        b.type === 'tool_use' ? [{ id: b.id, type: 'function' as const, function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) } }] : [],
      );
      out.push({ role: 'assistant', content: text === '' ? null : text, ...(calls.length ? { tool_calls: calls } : {}) });
      continue;
    }
    // Results answer the previous assistant message, so they come first, as `tool` messages.
    for (const b of message.content) if (b.type === 'tool_result') out.push({ role: 'tool', tool_call_id: b.tool_use_id, content: b.content });
    const text = message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
    if (text !== '') out.push({ role: 'user', content: text });
  }
  return out;
}

export function toOpenAIResponses(messages: readonly Message[]): ResponsesItem[] {
  const out: ResponsesItem[] = [];
  for (const message of messages) {
    for (const b of message.content) {
      if (b.type === 'thinking') {
        // Reasoning items go back with their encrypted content; without it there is nothing to send.
        if (b.encryptedContent) out.push({ type: 'reasoning', encrypted_content: b.encryptedContent, summary: b.thinking ? [{ type: 'summary_text', text: b.thinking }] : [] });
      } else if (b.type === 'text') {
        out.push(
          message.role === 'user'
            ? { type: 'message', role: 'user', content: [{ type: 'input_text', text: b.text }] }
            : { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: b.text }] },
        );
      } else if (b.type === 'tool_use') {
        out.push({ type: 'function_call', call_id: b.id, name: b.name, arguments: JSON.stringify(b.input ?? {}) });
      } else {
        out.push({ type: 'function_call_output', call_id: b.tool_use_id, output: b.content });
      }
    }
  }
  return out;
}
