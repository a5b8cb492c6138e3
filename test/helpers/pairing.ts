import type { AnthropicMessage, ChatMessage, ProviderShape, ResponsesItem } from '../../shared/history';
/**
 * Each provider's pairing rules for a model-facing history, encoded once, so every projection
 * in the tests (and any caller that wants to) can be checked before it is sent:
 * - Anthropic: every `tool_use` is answered by a `tool_result` with its id at the start of the
 *   very next message, a user message; no `tool_result` without its `tool_use`; system messages
 *   hold only text; no text block is empty or whitespace only ("text content blocks must
 *   contain non-whitespace text", the API answers). (Consecutive messages of one role are allowed: the API joins them, and
 *   agents send them, Copilot two user messages, Claude Code a system message between turns.)
 * - OpenAI Chat: every `tool_calls` id is answered by a `role: "tool"` message right after the
 *   assistant message; no tool message without its call.
 * - OpenAI Responses: every `function_call` (or `custom_tool_call`) has a later output with its
 *   `call_id`; no output without its call; call ids unique.
 * Returns the problems found, each naming the message index; empty when the history is valid.
 */

export function validateHistory(shape: ProviderShape, history: readonly unknown[]): string[] {
  switch (shape) {
    case 'anthropic':
      return validateAnthropic(history as AnthropicMessage[]);
    case 'openai-chat':
      return validateChat(history as ChatMessage[]);
    case 'openai-responses':
      return validateResponses(history as ResponsesItem[]);
  }
}

/** Text blocks with nothing but whitespace, at the top of a message or inside a tool_result. */
function blankTexts(message: AnthropicMessage): number {
  let blank = 0;
  for (const b of message.content) {
    const inner = b.type === 'tool_result' && Array.isArray(b.content) ? b.content : [b];
    for (const t of inner) if (t.type === 'text' && typeof t.text === 'string' && t.text.trim() === '') blank++;
  }
  return blank;
}

function validateAnthropic(messages: readonly AnthropicMessage[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  messages.forEach((message, i) => {
    const blank = blankTexts(message);
    if (blank) problems.push(`messages[${i}]: ${blank} text block${blank > 1 ? 's' : ''} of whitespace only`);
    if (message.role === 'system') {
      // A system message may sit between turns (Claude Code sends them), never inside a call's pairing.
      if (message.content.some((b) => b.type !== 'text'))
        problems.push(`messages[${i}]: a system message holds only text`);
      return;
    }
    if (message.content.length === 0) problems.push(`messages[${i}]: empty content`);
    if (message.role === 'assistant') {
      const uses = message.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []));
      for (const id of uses) {
        if (seen.has(id)) problems.push(`messages[${i}]: tool_use id ${id} used twice`);
        seen.add(id);
      }
      if (message.content.some((b) => b.type === 'tool_result'))
        problems.push(`messages[${i}]: tool_result in an assistant message`);
      if (uses.length === 0) return;
      const next = messages[i + 1];
      if (next?.role !== 'user') {
        problems.push(`messages[${i}]: tool_use ${uses.join(', ')} not answered by a following user message`);
        return;
      }
      const leading = [];
      for (const b of next.content) {
        if (b.type !== 'tool_result') break;
        leading.push(b.tool_use_id);
      }
      for (const id of uses)
        if (!leading.includes(id))
          problems.push(`messages[${i}]: tool_use ${id} has no tool_result at the start of messages[${i + 1}]`);
      for (const id of leading)
        if (!uses.includes(id))
          problems.push(`messages[${i + 1}]: tool_result ${id} answers no tool_use of messages[${i}]`);
    } else {
      const previous = messages[i - 1];
      const calls =
        previous?.role === 'assistant' ? previous.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])) : [];
      message.content.forEach((b, j) => {
        if (b.type === 'tool_use' || b.type === 'thinking')
          problems.push(`messages[${i}]: ${b.type} in a user message`);
        if (b.type !== 'tool_result') return;
        if (!calls.includes(b.tool_use_id))
          problems.push(`messages[${i}]: tool_result ${b.tool_use_id} answers no tool_use of the previous message`);
        if (message.content.slice(0, j).some((x) => x.type !== 'tool_result'))
          problems.push(`messages[${i}]: tool_result ${b.tool_use_id} comes after other content`);
      });
    }
  });
  return problems;
}

function validateChat(messages: readonly ChatMessage[]): string[] {
  const problems: string[] = [];
  let open: string[] = [];
  messages.forEach((message, i) => {
    if (message.role === 'tool') {
      if (!open.includes(message.tool_call_id))
        problems.push(`messages[${i}]: tool message ${message.tool_call_id} answers no open tool call`);
      open = open.filter((id) => id !== message.tool_call_id);
      return;
    }
    if (open.length > 0)
      problems.push(`messages[${i}]: tool calls ${open.join(', ')} not answered before this ${message.role} message`);
    open = message.role === 'assistant' ? (message.tool_calls ?? []).map((c) => c.id) : [];
    if (message.role === 'assistant' && message.content === null && !message.tool_calls?.length)
      problems.push(`messages[${i}]: assistant message with neither content nor tool_calls`);
  });
  if (open.length > 0) problems.push(`end: tool calls ${open.join(', ')} not answered`);
  return problems;
}

function validateResponses(items: readonly ResponsesItem[]): string[] {
  const problems: string[] = [];
  const calls = new Set<string>();
  const answered = new Set<string>();
  items.forEach((item, i) => {
    if (item.type === 'function_call' || item.type === 'custom_tool_call') {
      if (calls.has(item.call_id)) problems.push(`input[${i}]: call_id ${item.call_id} used twice`);
      calls.add(item.call_id);
    } else if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output') {
      if (!calls.has(item.call_id)) problems.push(`input[${i}]: ${item.type} ${item.call_id} has no call before it`);
      else if (answered.has(item.call_id)) problems.push(`input[${i}]: call_id ${item.call_id} answered twice`);
      else answered.add(item.call_id);
    }
  });
  for (const id of calls) if (!answered.has(id)) problems.push(`end: call ${id} has no output`);
  return problems;
}
