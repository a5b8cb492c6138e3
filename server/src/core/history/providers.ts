/**
 * Provider shapes: the neutral replay messages turned into what an agent actually sends,
 * ready to go. Anthropic Messages (`tool_use` / `tool_result` blocks), OpenAI Chat Completions
 * (`tool_calls` + `role: "tool"`), and OpenAI Responses (`function_call` /
 * `function_call_output` items). Pure functions; `pairing.ts` checks how calls and results pair.
 */

import { blockText } from '../../../../shared/blocks';
import type {
  AnthropicBlock,
  AnthropicMessage,
  Block,
  ChatMessage,
  Message,
  ResponsesItem,
} from '../../../../shared/history';
import { resultText } from './replay';

/** The text of a message's text blocks and, as their stated text, its provider blocks (OpenAI has no such blocks). */
function textOf(message: Message): string {
  return message.content
    .flatMap((b) => (b.type === 'text' ? [b.text] : b.type === 'provider' ? [blockText(b.block)] : []))
    .join('\n');
}

/** A custom (free-form) tool's input as a JSON object, for the shapes that only know JSON arguments. */
function jsonInput(block: Extract<Block, { type: 'tool_use' }>): unknown {
  return block.custom ? { input: block.input } : (block.input ?? {});
}

/**
 * Anthropic wants thinking blocks back unmodified, with their signatures, ahead of the tool use
 * they led to (it ignores those of earlier turns, so all are sent, as Claude Code does); a block
 * without a signature cannot be sent at all, a redacted one goes back as its data. Blocks of its
 * own kinds (images, a tool_reference) go as they came; `role: "system"` messages as they are,
 * with the fields the agent put on a message.
 */
export function toAnthropic(messages: readonly Message[]): AnthropicMessage[] {
  return messages.map((m) => ({
    role: m.role,
    content: m.content.flatMap((b): AnthropicBlock[] => {
      if (b.type === 'thinking') {
        if (b.redacted !== undefined) return [{ type: 'redacted_thinking', data: b.redacted }];
        return b.signature ? [{ type: 'thinking', thinking: b.thinking, signature: b.signature }] : [];
      }
      if (b.type === 'tool_use') return [{ type: 'tool_use', id: b.id, name: b.name, input: jsonInput(b) }];
      if (b.type === 'provider') return [b.block];
      return [{ ...b }];
    }),
    ...m.fields,
  }));
}

export function toOpenAIChat(messages: readonly Message[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const message of messages) {
    if (message.role === 'system') {
      out.push({ role: 'system', content: textOf(message) });
      continue;
    }
    if (message.role === 'assistant') {
      const text = message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
      const calls = message.content.flatMap((b) =>
        b.type === 'tool_use'
          ? [
              {
                id: b.id,
                type: 'function' as const,
                function: { name: b.name, arguments: JSON.stringify(jsonInput(b)) },
              },
            ]
          : [],
      );
      out.push({
        role: 'assistant',
        content: text === '' ? null : text,
        ...(calls.length ? { tool_calls: calls } : {}),
      });
      continue;
    }
    // Results answer the previous assistant message, so they come first, as `tool` messages.
    for (const b of message.content)
      if (b.type === 'tool_result') out.push({ role: 'tool', tool_call_id: b.tool_use_id, content: resultText(b) });
    const text = textOf(message);
    if (text !== '') out.push({ role: 'user', content: text });
  }
  return out;
}

export function toOpenAIResponses(messages: readonly Message[]): ResponsesItem[] {
  const out: ResponsesItem[] = [];
  const custom = new Set<string>();
  for (const message of messages) {
    for (const b of message.content) {
      if (b.type === 'thinking') {
        // Reasoning items go back with their encrypted content; without it there is nothing to send.
        if (b.encryptedContent)
          out.push({
            type: 'reasoning',
            encrypted_content: b.encryptedContent,
            summary: b.thinking ? [{ type: 'summary_text', text: b.thinking }] : [],
          });
      } else if (b.type === 'text' || b.type === 'provider') {
        const text = b.type === 'text' ? b.text : blockText(b.block);
        out.push(
          message.role === 'assistant'
            ? { type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] }
            : { type: 'message', role: message.role, content: [{ type: 'input_text', text }] },
        );
      } else if (b.type === 'tool_use') {
        if (b.custom && typeof b.input === 'string') {
          custom.add(b.id);
          out.push({ type: 'custom_tool_call', call_id: b.id, name: b.name, input: b.input });
        } else
          out.push({ type: 'function_call', call_id: b.id, name: b.name, arguments: JSON.stringify(jsonInput(b)) });
      } else {
        out.push({
          type: custom.has(b.tool_use_id) ? 'custom_tool_call_output' : 'function_call_output',
          call_id: b.tool_use_id,
          output: resultText(b),
        });
      }
    }
  }
  return out;
}
