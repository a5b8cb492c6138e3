import assert from 'node:assert/strict';
import { toAnthropic, toOpenAIChat, toOpenAIResponses } from '../../server/src/core/history/providers';
import { replayStructured, resultText } from '../../server/src/core/history/replay';
import type { TranscriptEvent } from '../../shared/events';
import { PROVIDER_SHAPES } from '../../shared/history';
import { INTERRUPTED_RESULT } from '../../shared/stubText';
import { validateHistory } from '../helpers/pairing';

const project = { anthropic: toAnthropic, 'openai-chat': toOpenAIChat, 'openai-responses': toOpenAIResponses } as const;

/** A run with parallel calls, an error, a retained result, an orphan result and an interrupted turn. */
const events: TranscriptEvent[] = [
  { type: 'run_started', tools: ['read_file', 'bash', 'peek_value'] },
  { type: 'user', text: 'look around' },
  {
    type: 'assistant',
    text: 'two things at once',
    toolCalls: [
      { id: 'a', name: 'read_file', arguments: { path: 'x' } },
      { id: 'b', name: 'bash', arguments: { cmd: 'false' } },
    ],
  },
  { type: 'tool_call_finished', callId: 'b', tool: 'bash', result: 'exit 1', isError: true },
  {
    type: 'tool_call_finished',
    callId: 'a',
    tool: 'read_file',
    result: 'big\n'.repeat(10),
    valueId: 'a',
    preview: { previewHeadLines: 1, previewTailLines: 1 },
  },
  { type: 'turn_ended', stopReason: 'end_turn' },
  { type: 'user', text: 'and now?' },
  { type: 'tool_call_finished', callId: 'orphan', tool: 'grep', result: 'hit' },
  { type: 'assistant', toolCalls: [{ id: 'c', name: 'bash', arguments: { cmd: 'sleep 100' } }] },
  { type: 'turn_ended', stopReason: 'interrupted' },
];

describe('provider shapes', () => {
  const { messages } = replayStructured({ events, existingValues: new Set(['a']) });

  for (const shape of PROVIDER_SHAPES) {
    it(`${shape}: the projection passes the provider's pairing rules`, () => {
      assert.deepEqual(validateHistory(shape, project[shape](messages)), []);
    });
  }

  it('anthropic: results first in the next user message, in the order they finished, failure identity kept, the stub in place', () => {
    const history = toAnthropic(messages);
    const results = history[2]!.content.flatMap((b) =>
      b.type === 'tool_result' ? [[b.tool_use_id, b.is_error ?? false]] : [],
    );
    assert.deepEqual(results, [
      ['b', true],
      ['a', false],
    ]);
    const a = history[2]!.content[1]!;
    assert.ok(a.type === 'tool_result' && resultText(a).startsWith('[retained #a] read_file result'));
    const last = history[history.length - 1]!;
    assert.deepEqual(last.content, [
      { type: 'tool_result', tool_use_id: 'c', content: INTERRUPTED_RESULT, is_error: true },
    ]);
  });

  it('openai-chat: tool_calls with JSON-string arguments, answered by role "tool" messages right after', () => {
    const history = toOpenAIChat(messages);
    assert.deepEqual(history[1], {
      role: 'assistant',
      content: 'two things at once',
      tool_calls: [
        { id: 'a', type: 'function', function: { name: 'read_file', arguments: '{"path":"x"}' } },
        { id: 'b', type: 'function', function: { name: 'bash', arguments: '{"cmd":"false"}' } },
      ],
    });
    assert.deepEqual(
      history.slice(2, 4).map((m) => m.role === 'tool' && m.tool_call_id),
      ['b', 'a'],
    );
  });

  it('openai-responses: function_call and function_call_output items with matching call_id', () => {
    const items = toOpenAIResponses(messages);
    assert.deepEqual(items[0], {
      type: 'message',
      role: 'user',
      content: [{ type: 'input_text', text: 'look around' }],
    });
    assert.deepEqual(
      items.filter((i) => i.type === 'function_call').map((i) => i.type === 'function_call' && i.call_id),
      ['a', 'b', 'orphan', 'c'],
    );
    assert.deepEqual(
      items.filter((i) => i.type === 'function_call_output').map((i) => i.type === 'function_call_output' && i.call_id),
      ['b', 'a', 'orphan', 'c'],
    );
  });
});

describe('history validator', () => {
  it('rejects an Anthropic tool_use without its result, or a result after text', () => {
    assert.match(
      validateHistory('anthropic', [
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'x', name: 't', input: {} }] },
        { role: 'user', content: [{ type: 'text', text: 'next' }] },
      ]).join('\n'),
      /tool_use x has no tool_result at the start of messages\[2\]/,
    );
    assert.match(
      validateHistory('anthropic', [
        { role: 'assistant', content: [{ type: 'tool_use', id: 'x', name: 't', input: {} }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'first' },
            { type: 'tool_result', tool_use_id: 'x', content: '' },
          ],
        },
      ]).join('\n'),
      /comes after other content/,
    );
  });

  it('rejects OpenAI Chat tool calls left open or answered late', () => {
    assert.match(
      validateHistory('openai-chat', [
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'x', type: 'function', function: { name: 't', arguments: '{}' } }],
        },
        { role: 'user', content: 'hm' },
        { role: 'tool', tool_call_id: 'x', content: '' },
      ]).join('\n'),
      /tool calls x not answered before this user message[\s\S]*answers no open tool call/,
    );
  });

  it('rejects an OpenAI Responses output without its call, and a call without output', () => {
    const problems = validateHistory('openai-responses', [
      { type: 'function_call_output', call_id: 'late', output: '' },
      { type: 'function_call', call_id: 'late', name: 't', arguments: '{}' },
    ]);
    assert.match(problems.join('\n'), /function_call_output late has no call before it/);
    assert.match(problems.join('\n'), /call late has no output/);
  });
});

describe('thinking and reasoning blocks', () => {
  const thinkingEvents: TranscriptEvent[] = [
    { type: 'user', text: 'first' },
    {
      type: 'assistant',
      thinking: [{ text: 'old thought', signature: 'sig-old' }],
      toolCalls: [{ id: 't1', name: 'read', arguments: {} }],
    },
    { type: 'tool_call_finished', callId: 't1', tool: 'read', result: 'r1' },
    { type: 'user', text: 'second' },
    {
      type: 'assistant',
      thinking: [{ text: 'now', signature: 'sig-now', encryptedContent: 'enc-now' }, { text: 'unsigned' }],
      toolCalls: [{ id: 't2', name: 'read', arguments: {} }],
    },
    { type: 'tool_call_finished', callId: 't2', tool: 'read', result: 'r2' },
  ];
  const { messages } = replayStructured({ events: thinkingEvents, existingValues: new Set() });

  it('anthropic: every signed thinking block, unmodified and first (as Claude Code sends them); unsigned thinking left out', () => {
    const history = toAnthropic(messages);
    assert.deepEqual(history[1]!.content, [
      { type: 'thinking', thinking: 'old thought', signature: 'sig-old' },
      { type: 'tool_use', id: 't1', name: 'read', input: {} },
    ]);
    assert.deepEqual(history[3]!.content[0], { type: 'thinking', thinking: 'now', signature: 'sig-now' });
    assert.deepEqual(
      history[3]!.content.map((b) => b.type),
      ['thinking', 'tool_use'],
    );
    assert.deepEqual(validateHistory('anthropic', history), []);
  });

  it('openai-responses: reasoning items with their encrypted content, before the call', () => {
    const items = toOpenAIResponses(messages);
    const at = items.findIndex((i) => i.type === 'reasoning');
    assert.deepEqual(items[at], {
      type: 'reasoning',
      encrypted_content: 'enc-now',
      summary: [{ type: 'summary_text', text: 'now' }],
    });
    assert.equal(items[at + 1]!.type, 'function_call');
    assert.deepEqual(validateHistory('openai-responses', items), []);
  });

  it('openai-chat has no place for them; interleaved thinking (after text, as Claude Code sends it) is valid for Anthropic', () => {
    assert.ok(!JSON.stringify(toOpenAIChat(messages)).includes('sig-now'));
    assert.deepEqual(
      validateHistory('anthropic', [
        { role: 'user', content: [{ type: 'text', text: 'q' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'a' },
            { type: 'thinking', thinking: 't', signature: 's' },
            { type: 'text', text: 'b' },
          ],
        },
      ]),
      [],
    );
  });
});
