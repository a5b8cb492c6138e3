import assert from 'node:assert/strict';
import { join } from 'node:path';
import { replayStructured, replayText } from '../../server/src/core/history/replay';
import { RetentionService } from '../../server/src/core/service';
import type { TranscriptEvent } from '../../shared/events';
import { INTERRUPTED_RESULT } from '../../shared/stubText';
import { folderOf } from '../helpers/folderOf';
import { removeTempDirs, tempDir } from '../helpers/tmp';

const big = Array.from({ length: 2000 }, (_, i) => `entry ${i}`).join('\n');

async function recordedRun(tools?: string[]) {
  const s = new RetentionService(join(tempDir(), '.retained'));
  await s.init();
  if (tools) await s.retainer.append({ runId: 'r', event: { type: 'run_started', tools } });
  await s.retainer.append({ runId: 'r', event: { type: 'user', text: 'read it' } });
  await s.retainer.append({
    runId: 'r',
    event: {
      type: 'assistant',
      text: 'reading',
      toolCalls: [
        { id: 'c1', name: 'read_file', arguments: { path: 'a' } },
        { id: 'c2', name: 'bash', arguments: { cmd: 'ls' } },
      ],
    },
  });
  const live = await s.retainer.retain({ runId: 'r', callId: 'c1', tool: 'read_file', text: big });
  await s.retainer.retain({ runId: 'r', callId: 'c2', tool: 'bash', text: 'a\nb', isError: true });
  await s.retainer.append({ runId: 'r', event: { type: 'turn_ended', stopReason: 'end_turn' } });
  return { s, live };
}

describe('replay', () => {
  after(removeTempDirs);

  it('structured: pairs every tool_use with its tool_result, and the stub is byte-equal to the live one', async () => {
    const { s, live } = await recordedRun();
    const replay = await s.history.replay({ runId: 'r', shape: 'structured' });
    assert.ok(replay.shape === 'structured');
    assert.deepEqual(
      replay.messages.map((m) => m.role),
      ['user', 'assistant', 'user'],
    );
    const results = replay.messages[2]!.content;
    assert.deepEqual(results[0], { type: 'tool_result', tool_use_id: 'c1', content: live.content });
    assert.deepEqual(results[1], { type: 'tool_result', tool_use_id: 'c2', content: 'a\nb', is_error: true });
    assert.equal(replay.stopReason, 'end_turn');
  });

  it('text-fold: the same stub in one string, with tool names learned from the calls', async () => {
    const { s, live } = await recordedRun();
    const replay = await s.history.replay({ runId: 'r', shape: 'text' });
    assert.ok(replay.shape === 'text');
    assert.ok(replay.text.includes(`Tool result read_file (c1):\n${live.content}`));
    assert.ok(replay.text.includes('Tool result bash (c2) [error]:\na\nb'));
  });

  it('says plainly that the value was deleted when its file is gone: no stub pointing at nothing, no full text unasked', async () => {
    const { s, live } = await recordedRun();
    await s.delete({ runId: 'r', valueId: live.valueId });
    const replay = await s.history.replay({ runId: 'r', shape: 'structured' });
    assert.ok(replay.shape === 'structured');
    assert.equal(
      (replay.messages[2]!.content[0] as { content: string }).content,
      `[retained #c1] read_file result: ${Buffer.byteLength(big)} bytes, 2000 lines; its value was deleted from the store, so it can no longer be read. Run the tool again if you need it.`,
    );
  });

  it('gives no stubs to a run that does not offer peek_value', async () => {
    const events: TranscriptEvent[] = [
      { type: 'run_started', tools: ['read_file'] },
      {
        type: 'tool_call_finished',
        callId: 'c1',
        tool: 'read_file',
        result: big,
        valueId: 'c1',
        preview: { previewHeadLines: 2, previewTailLines: 2 },
      },
    ];
    const text = replayText({ events, existingValues: new Set(['c1']) });
    assert.ok(text.endsWith(big));
  });

  it('answers a call left without a result as interrupted, keeping completed pairs and the stop reason', () => {
    const events: TranscriptEvent[] = [
      { type: 'user', text: 'go' },
      {
        type: 'assistant',
        toolCalls: [
          { id: 'a', name: 't', arguments: {} },
          { id: 'b', name: 't', arguments: {} },
        ],
      },
      { type: 'tool_call_finished', callId: 'a', tool: 't', result: 'done' },
      { type: 'turn_ended', stopReason: 'interrupted' },
    ];
    const { messages, stopReason } = replayStructured({ events, existingValues: new Set() });
    assert.deepEqual(messages[2]!.content, [
      { type: 'tool_result', tool_use_id: 'a', content: 'done' },
      { type: 'tool_result', tool_use_id: 'b', content: INTERRUPTED_RESULT, is_error: true },
    ]);
    assert.equal(stopReason, 'interrupted');
  });

  it('gives a result whose call was never recorded a call of its own', () => {
    const events: TranscriptEvent[] = [
      { type: 'tool_call_finished', callId: 'x', tool: 'grep', result: 'hit', arguments: { q: 'a' } },
    ];
    const { messages } = replayStructured({ events, existingValues: new Set() });
    assert.deepEqual(messages, [
      { role: 'assistant', content: [{ type: 'tool_use', id: 'x', name: 'grep', input: { q: 'a' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', content: 'hit' }] },
    ]);
  });

  it('is deterministic across service restarts', async () => {
    const { s } = await recordedRun();
    const again = new RetentionService(folderOf(s.store).root, { settings: { previewHeadLines: 1 } });
    assert.deepEqual(
      await again.history.replay({ runId: 'r', shape: 'structured' }),
      await s.history.replay({ runId: 'r', shape: 'structured' }),
    );
  });
});
