/** Real Claude Code and Codex transcripts (../shared/fixtures/transcripts) imported as runs. */
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { validateHistory } from '../../server/src/core/historyValidator';
import { importTranscript } from '../../server/src/core/importer';
import { PROVIDER_SHAPES } from '../../server/src/core/providers';
import { RetentionService } from '../../server/src/core/retention';
import { removeTempDirs, tempDir } from '../helpers/tmp';

const FIXTURES = resolve(__dirname, '../../../shared/fixtures/transcripts');

async function freshService() {
  const s = new RetentionService(join(tempDir(), '.retained'));
  await s.init();
  return s;
}

const cases = [
  { file: 'claude-code_spotter_subagent_agent-a2898e3.jsonl', format: 'claude-code', toolCalls: 33, retained: 3 },
  { file: 'claude-code_spotter_main_with_task_subagent.jsonl', format: 'claude-code', toolCalls: 16 },
  { file: 'claude-code_spotter_tool_heavy.jsonl', format: 'claude-code', toolCalls: 6 },
  { file: 'codex_rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl', format: 'codex', toolCalls: 39 },
] as const;

describe('importing real transcripts', () => {
  before(() => {
    if (!existsSync(FIXTURES)) throw new Error(`the transcript fixtures are not at ${FIXTURES}: the workplace's shared/ folder must sit beside the project`);
  });
  after(removeTempDirs);

  for (const c of cases) {
    it(`${c.file}: ${c.toolCalls} tool calls, each paired, every provider shape valid`, async () => {
      const s = await freshService();
      const result = await importTranscript(s, join(FIXTURES, c.file));
      assert.equal(result.format, c.format);
      assert.equal(result.toolCalls, c.toolCalls);
      if ('retained' in c) assert.equal(result.retained, c.retained);
      const { events } = await s.transcript(result.runId);
      const calls = events.flatMap((e) => (e.type === 'assistant' ? (e.toolCalls ?? []).map((t) => t.id) : []));
      const results = events.flatMap((e) => (e.type === 'tool_call_finished' ? [e.callId] : []));
      assert.equal(new Set(calls).size, calls.length, 'split assistant lines merged: no call twice');
      assert.deepEqual([...results].sort(), [...calls].sort(), 'every call has its full result');
      for (const shape of PROVIDER_SHAPES) {
        const replay = await s.replay(result.runId, shape);
        assert.ok('messages' in replay);
        assert.deepEqual(validateHistory(shape, replay.messages), [], shape);
      }
    });
  }

  it('keeps Codex reasoning items with their encrypted content for the Responses API', async () => {
    const s = await freshService();
    const result = await importTranscript(s, join(FIXTURES, cases[3].file));
    const replay = await s.replay(result.runId, 'openai-responses');
    assert.ok(replay.shape === 'openai-responses');
    const reasoning = replay.messages.filter((i) => i.type === 'reasoning');
    assert.ok(reasoning.length >= 30, `${reasoning.length} reasoning items`);
    assert.ok(reasoning.every((i) => i.type === 'reasoning' && i.encrypted_content.length > 0));
  });

  it('drops Codex event_msg lines that repeat response items', async () => {
    const s = await freshService();
    const result = await importTranscript(s, join(FIXTURES, cases[3].file));
    const { events } = await s.transcript(result.runId);
    const users = events.flatMap((e) => (e.type === 'user' ? [e.text] : []));
    assert.equal(users.length, 2, 'the environment context and the request, from response_item lines');
    assert.equal(users.filter((t) => t.startsWith('finish up the users work')).length, 1, 'the request once, not again from its event_msg copy');
  });

  it('says what is wrong with a bad path, format or file, and refuses to import a run twice', async () => {
    const s = await freshService();
    await assert.rejects(importTranscript(s, '/nonexistent.jsonl'), /path could not be read/);
    await assert.rejects(importTranscript(s, join(FIXTURES, cases[2].file), 'cursor'), /format must be one of claude-code, codex/);
    const junk = join(tempDir(), 'junk.jsonl');
    writeFileSync(junk, '{"hello":1}\nnot json\n');
    await assert.rejects(importTranscript(s, junk), /neither a Claude Code nor a Codex transcript/);
    await importTranscript(s, join(FIXTURES, cases[2].file), undefined, 'once');
    await assert.rejects(importTranscript(s, join(FIXTURES, cases[2].file), undefined, 'once'), /run once exists already/);
  });
});
