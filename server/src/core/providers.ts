/**
 * Provider shapes: the neutral replay messages turned into what an agent actually sends,
 * ready to go. Anthropic Messages (`tool_use` / `tool_result` blocks), OpenAI Chat Completions
 * (`tool_calls` + `role: "tool"`), and OpenAI Responses (`function_call` /
 * `function_call_output` items). Pure functions; `historyValidator.ts` checks their pairing.
 */
import type { Message } from './replay';

export type ProviderShape = 'anthropic' | 'openai-chat' | 'openai-responses';
export const PROVIDER_SHAPES: readonly ProviderShape[] = ['anthropic', 'openai-chat', 'openai-responses'];

export type AnthropicMessage = Message;

export type ChatMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export type ResponsesItem =
  | { type: 'message'; role: 'user'; content: { type: 'input_text'; text: string }[] }
  | { type: 'message'; role: 'assistant'; content: { type: 'output_text'; text: string }[] }
  | { type: 'function_call'; call_id: string; name: string; arguments: string }
  | { type: 'function_call_output'; call_id: string; output: string };

export function toAnthropic(messages: readonly Message[]): AnthropicMessage[] {
  return messages.map((m) => ({ role: m.role, content: m.content.map((b) => ({ ...b })) }));
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
      if (b.type === 'text') {
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
