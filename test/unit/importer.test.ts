/**
 * Importing real agent sessions as runs: Claude Code and Codex files written by other people
 * (test/fixtures/transcripts), and sessions recorded from a real Claude Code 2.1.332 against a
 * scripted model (test/fixtures/claude-code), whose logged request bodies are what Claude Code
 * really sent the model: the "as sent" replay must equal them, request by request.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cutOf, responseStarts } from '../../server/src/core/history/modelCalls';
import { toAnthropic, toOpenAIChat, toOpenAIResponses } from '../../server/src/core/history/providers';
import { replayStructured, resultText } from '../../server/src/core/history/replay';
import { RetentionService } from '../../server/src/core/service';
import { StoredEventSchema, type TranscriptEvent } from '../../shared/events';
import type { View } from '../../shared/history';
import type { ImportParams } from '../../shared/protocol';
import { assertSound } from '../helpers/asSent';
import { folderOf } from '../helpers/folderOf';
import { validateHistory } from '../helpers/pairing';
import { removeTempDirs, tempDir } from '../helpers/tmp';

const TRANSCRIPTS = resolve(__dirname, '../fixtures/transcripts');
const RECORDED = resolve(__dirname, '../fixtures/claude-code');

async function freshService() {
  const s = new RetentionService(join(tempDir(), '.retained'));
  await s.init();
  return s;
}

const importFile = (s: RetentionService, path: string, more: Partial<ImportParams> = {}) =>
  s.importer.import({ path, ...more });

/** The recorded session file of a scenario, and its folder. */
function recorded(scenario: string): string {
  const dir = join(RECORDED, scenario, 'project');
  return join(dir, readdirSync(dir).find((f) => f.endsWith('.jsonl'))!);
}

/** Request k of a run as the replay rebuilds it, in Anthropic's shape. */
function rebuilt(events: readonly TranscriptEvent[], request: number, view: View, existing = new Set<string>()) {
  return toAnthropic(
    replayStructured({ events: events.slice(0, cutOf(events, request)), existingValues: existing, view }).messages,
  );
}

describe('importing agent sessions', () => {
  after(removeTempDirs);

  it('calls a run by its first typed prompt, on one line and cut; an injected reminder is not a prompt; the id stays its name', async () => {
    const s = await freshService();
    const { runId } = await importFile(s, recorded('read-code'));
    const codex = await importFile(
      s,
      join(TRANSCRIPTS, 'codex_rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl'),
    );
    const runs = await s.listRuns();
    const run = runs.find((r) => r.runId === runId)!;
    assert.equal(run.title, 'Scenario read-code: read the worker and the catalogue.');
    assert.equal(run.name, runId);
    const other = runs.find((r) => r.runId === codex.runId)!;
    assert.ok(other.title && other.title.length <= 80 && !/\n|<environment_context>/.test(other.title), other.title);
    // A run recorded here, named by its writer, keeps its name alone.
    await s.retainer.retain({ runId: 'mine', callId: 'c1', tool: 'Bash', text: 'x'.repeat(30_000) });
    assert.equal((await s.listRuns()).find((r) => r.runId === 'mine')!.title, undefined);
  });

  it("a file of lines that is no agent's session is refused naming every agent whose lines it reads", async () => {
    const s = await freshService();
    const file = join(tempDir(), 'notes.jsonl');
    writeFileSync(file, '{"hello": "world"}\n{"n": 2}\n');
    await assert.rejects(
      s.importer.import({ path: file }),
      /not a session of an agent Retained Outputs reads \(Claude Code, Codex, GitHub Copilot CLI, Gemini CLI, Qwen Code\)/,
    );
  });

  describe('sessions others recorded (test/fixtures/transcripts)', () => {
    const cases = [
      { file: 'claude-code_spotter_subagent_agent-a2898e3.jsonl', format: 'claude-code', toolCalls: 33, retained: 3 },
      { file: 'claude-code_spotter_main_with_task_subagent.jsonl', format: 'claude-code', toolCalls: 16 },
      { file: 'claude-code_spotter_tool_heavy.jsonl', format: 'claude-code', toolCalls: 6 },
      {
        file: 'codex_rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl',
        format: 'codex',
        toolCalls: 39,
      },
    ] as const;
    for (const c of cases) {
      it(`${c.file}: ${c.toolCalls} tool calls, each answered once, every provider shape valid in both views`, async () => {
        const s = await freshService();
        const result = await importFile(s, join(TRANSCRIPTS, c.file));
        assert.equal(result.format, c.format);
        assert.equal(result.fidelity, 'conversation', 'older files have no request records');
        assert.equal(result.toolCalls, c.toolCalls);
        if ('retained' in c) assert.equal(result.retained, c.retained);
        await assertSound(s, result);
      });
    }

    it('a Copilot Chat replay under the name it had before: format "copilot" is copilot-chat, in a request and in a transcript', async () => {
      const s = await freshService();
      const file = join(TRANSCRIPTS, 'vscode-copilot_copilot_all_prompts_2026-02-12T22-14-57.chatreplay.json');
      const result = await importFile(s, file, { format: 'copilot' as 'copilot-chat' });
      assert.equal(result.format, 'copilot-chat');
      // A run imported before the rename names its source so; it reads as today's name.
      const old = {
        type: 'run_started',
        seq: 0,
        ts: 't',
        tools: [],
        source: { format: 'copilot', path: file, fidelity: 'exact' },
      };
      const parsed = StoredEventSchema.parse(old);
      assert.equal(parsed.type === 'run_started' && parsed.source?.format, 'copilot-chat');
      assert.throws(() => StoredEventSchema.parse({ ...old, source: { ...old.source, format: 'cursor' } }), /format/);
    });

    it('a VS Code Copilot Chat replay: every request it logged rebuilt from the events, in the chat shape', async () => {
      const s = await freshService();
      const file = join(TRANSCRIPTS, 'vscode-copilot_copilot_all_prompts_2026-02-12T22-14-57.chatreplay.json');
      const result = await importFile(s, file);
      assert.equal(result.format, 'copilot-chat');
      assert.equal(result.fidelity, 'exact');
      assert.equal(
        result.skipped['request/copilotLanguageModelWrapper'],
        6,
        'side requests (titles, summaries) counted, not imported',
      );
      await assertSound(s, result);
      const { events } = await s.transcript({ runId: result.runId });
      // Copilot's own messages in the Chat Completions shape: 0 system, 1 user, 2 assistant, 3 tool.
      type Part = { type: number; text?: string };
      type CopilotMessage = {
        role: number;
        content: Part[];
        toolCalls?: { id: string; function: { name: string; arguments: string } }[];
        toolCallId?: string;
      };
      const text = (m: CopilotMessage) =>
        m.content
          .filter((p) => p.type === 1 && p.text)
          .map((p) => p.text)
          .join('\n');
      const chat = (m: CopilotMessage) =>
        m.role === 3
          ? { role: 'tool', tool_call_id: m.toolCallId, content: text(m) }
          : m.role === 2
            ? {
                role: 'assistant',
                content: text(m) || null,
                ...(m.toolCalls?.length
                  ? {
                      tool_calls: m.toolCalls.map((c) => ({
                        id: c.id,
                        type: 'function',
                        function: {
                          name: c.function.name,
                          arguments: JSON.stringify(JSON.parse(c.function.arguments)),
                        },
                      })),
                    }
                  : {}),
              }
            : { role: m.role === 0 ? 'system' : 'user', content: text(m) };
      const data = JSON.parse(readFileSync(file, 'utf8')) as {
        prompts: { logs: { kind: string; name?: string; requestMessages?: { messages: CopilotMessage[] } }[] }[];
      };
      const logged = data.prompts.flatMap((p) =>
        p.logs.filter((l) => l.kind === 'request' && l.name === 'panel/editAgent'),
      );
      assert.equal(logged.length, 13);
      assert.equal(responseStarts(events).length, 13, 'one model call per logged request');
      logged.forEach((request, k) => {
        const ours = toOpenAIChat(
          replayStructured({ events: events.slice(0, cutOf(events, k + 1)), existingValues: new Set(), view: 'sent' })
            .messages,
        );
        assert.deepEqual(ours, request.requestMessages!.messages.map(chat), `request ${k + 1}`);
      });
    });

    it('keeps the original times, adds no peek_value, and counts every record kind it leaves out', async () => {
      const s = await freshService();
      const result = await importFile(s, join(TRANSCRIPTS, cases[1].file));
      const { events } = await s.transcript({ runId: result.runId });
      const start = events[0]!;
      assert.ok(start.type === 'run_started');
      assert.ok(!start.tools.includes('peek_value'), 'Claude Code never had peek_value');
      assert.equal(start.source?.format, 'claude-code');
      const lines = readFileSync(join(TRANSCRIPTS, cases[1].file), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { timestamp?: string; type: string });
      const times = new Set(lines.map((l) => l.timestamp));
      assert.ok(
        events.every((e) => e.ts === undefined || times.has(e.ts)),
        'every event keeps a time from the file',
      );
      assert.equal(result.skipped['progress/agent_progress'], 19);
      assert.equal(result.skipped['progress/hook_progress'], 25);
      assert.equal(result.skipped['file-history-snapshot'], 3);
      assert.equal(result.skipped['system/stop_hook_summary'], 1);
      const [summary] = await s.listRuns({ runIds: [result.runId] });
      assert.equal(
        summary!.startedAt,
        new Date(lines.find((l) => l.timestamp)!.timestamp!).toISOString(),
        'the run began when the session did',
      );
    });

    it('Codex: custom tool calls stay custom in the Responses shape; an aborted turn is an interrupted stop after its outputs', async () => {
      const s = await freshService();
      const result = await importFile(s, join(TRANSCRIPTS, 'codex_agent-sessions_schema_coverage_small.jsonl'));
      await assertSound(s, result);
      const { events } = await s.transcript({ runId: result.runId });
      const stop = events.findIndex((e) => e.type === 'turn_ended' && e.stopReason === 'interrupted');
      const output = events.findIndex((e) => e.type === 'tool_call_finished' && e.callId === 'call-1');
      assert.ok(
        stop > output && output > 0,
        'turn_aborted is an interrupted stop, after the output Codex recorded for the cut call',
      );
      const compaction = events.findIndex((e) => e.type === 'compaction');
      assert.ok(compaction > stop, 'compacted records restart the history');
      const items = toOpenAIResponses(
        replayStructured({ events: events.slice(0, compaction), existingValues: new Set() }).messages,
      );
      assert.deepEqual(
        items.find((i) => i.type === 'custom_tool_call'),
        { type: 'custom_tool_call', call_id: 'call-1', name: 'shell', input: '{"command":["ls"]}' },
      );
      assert.ok(items.some((i) => i.type === 'custom_tool_call_output' && i.call_id === 'call-1'));
      assert.deepEqual(validateHistory('openai-responses', items), []);
    });

    it('Codex: reasoning keeps its encrypted content; event_msg copies are not imported twice', async () => {
      const s = await freshService();
      const result = await importFile(s, join(TRANSCRIPTS, cases[3].file));
      const replay = await s.history.replay({ runId: result.runId, shape: 'openai-responses' });
      assert.ok(replay.shape === 'openai-responses');
      const reasoning = replay.messages.filter((i) => i.type === 'reasoning');
      assert.ok(
        reasoning.length >= 30 && reasoning.every((i) => i.type === 'reasoning' && i.encrypted_content.length > 0),
      );
      const { events } = await s.transcript({ runId: result.runId });
      const users = events.flatMap((e) => (e.type === 'user' ? [e] : []));
      assert.equal(users.filter((u) => u.text.startsWith('finish up the users work')).length, 1);
      assert.ok(
        users.some((u) => u.injected && u.text.startsWith('<environment_context>')),
        'the environment Codex adds is marked injected',
      );
      // token_count is read now (the provider's counts, bill.test.ts), no longer skipped.
      assert.equal(result.skipped['event_msg/token_count'], undefined);
      assert.ok(events.some((e) => e.type === 'assistant' && e.usage && e.usage.cacheRead > 0));
    });
  });

  describe('sessions recorded from a real Claude Code 2.1.332 (test/fixtures/claude-code)', () => {
    it('parallel calls: one response with all three calls, results in the order they finished', async () => {
      const s = await freshService();
      const result = await importFile(s, recorded('parallel-and-big'));
      const { events } = await s.transcript({ runId: result.runId });
      const first = events.find((e) => e.type === 'assistant' && e.toolCalls);
      assert.ok(first?.type === 'assistant');
      assert.deepEqual(
        first.toolCalls!.map((c) => c.id),
        ['toolu_slowA', 'toolu_fastB', 'toolu_readC'],
      );
      assert.equal(first.thinking?.[0]?.signature, 'c2lnbmF0dXJlLXBhcmFsbGVs', 'thinking kept with its signature');
      const order = events.flatMap((e) => (e.type === 'tool_call_finished' ? [e.callId] : []));
      assert.deepEqual(order.slice(0, 3), ['toolu_readC', 'toolu_fastB', 'toolu_slowA']);
    });

    it('a Bash output over the 50 K characters Claude Code keeps in a file: the full output from tool-results/ is the value, the 2 KB preview is what was sent', async () => {
      const s = await freshService();
      const result = await importFile(s, recorded('parallel-and-big'));
      assert.equal(result.lostOutputs, 0);
      const { events } = await s.transcript({ runId: result.runId });
      const big = events.find((e) => e.type === 'tool_call_finished' && e.callId === 'toolu_bigD');
      assert.ok(big?.type === 'tool_call_finished' && big.valueId);
      const saved = readdirSync(join(recorded('parallel-and-big').replace(/\.jsonl$/, ''), 'tool-results'))[0]!;
      const original = readFileSync(join(recorded('parallel-and-big').replace(/\.jsonl$/, ''), 'tool-results', saved));
      assert.ok(original.length > 100_000);
      assert.equal(
        readFileSync(folderOf(s.store).values.path(result.runId, big.valueId)).compare(original),
        0,
        'the value is the full output, byte for byte',
      );
      assert.ok(typeof big.sent === 'string' && big.sent.startsWith('<persisted-output>') && big.sent.length < 3000);
      // As sent: the preview. With Retained Outputs: our stub, the error in the middle a landmark.
      const existing = new Set([big.valueId]);
      const lastResult = (view: View) => {
        const messages = rebuilt(events, 3, view, existing);
        const block = messages[messages.length - 1]!.content[0]!;
        assert.ok(block.type === 'tool_result');
        return resultText(block);
      };
      assert.ok(lastResult('sent').startsWith('<persisted-output>'));
      const stub = lastResult('retained');
      assert.match(stub, new RegExp(`^\\[retained #toolu_bigD\\] Bash result: ${original.length} bytes, 20000 lines`));
      assert.match(stub, /Landmarks: error at line 10001/);
    });

    it("file reads: each value is named after the file its call read, and a file's code gives no landmarks", async () => {
      const s = await freshService();
      const result = await importFile(s, recorded('read-code'));
      assert.equal(result.retained, 2);
      const values = await s.store.values.list(result.runId);
      assert.deepEqual(values.map((v) => [v.callId, v.subject?.isFile, v.subject?.text.split('/').pop()]).sort(), [
        ['toolu_rc1', true, 'worker.ex'],
        ['toolu_rc2', true, 'catalog.json'],
      ]);
      const { events } = await s.transcript({ runId: result.runId });
      const existing = new Set(values.map((v) => v.valueId));
      const messages = rebuilt(events, 2, 'retained', existing);
      const stubs = messages
        .flatMap((m) => m.content)
        .flatMap((b) => (b.type === 'tool_result' ? [resultText(b)] : []))
        .filter((t) => t.startsWith('[retained #'));
      assert.equal(stubs.length, 2);
      // The Elixir file has `{:error, _} ->` on 150 lines: code, not an error a command printed.
      for (const stub of stubs) assert.doesNotMatch(stub, /Landmarks/, stub.slice(0, 300));
    });

    it('a full output whose file is gone is marked lost, the preview kept', async () => {
      const s = await freshService();
      const copy = tempDir();
      cpSync(join(RECORDED, 'parallel-and-big', 'project'), copy, { recursive: true });
      const file = join(copy, readdirSync(copy).find((f) => f.endsWith('.jsonl'))!);
      rmSync(join(file.replace(/\.jsonl$/, ''), 'tool-results'), { recursive: true });
      const result = await importFile(s, file);
      assert.equal(result.lostOutputs, 1);
      const { events } = await s.transcript({ runId: result.runId });
      const big = events.find((e) => e.type === 'tool_call_finished' && e.callId === 'toolu_bigD');
      assert.ok(big?.type === 'tool_call_finished' && big.lost && big.result?.startsWith('<persisted-output>'));
    });

    it('an import that fails partway (a subagent file that holds no conversation) keeps none of its runs, and can be tried again', async () => {
      const s = await freshService();
      const copy = tempDir();
      cpSync(join(RECORDED, 'subagent', 'project'), copy, { recursive: true });
      const main = join(copy, readdirSync(copy).find((f) => f.endsWith('.jsonl'))!);
      const bad = join(main.replace(/\.jsonl$/, ''), 'subagents', 'agent-zzz.jsonl');
      writeFileSync(bad, '{"type":"summary"}\n');
      await assert.rejects(importFile(s, main), /holds no Claude Code conversation/);
      assert.deepEqual(await s.listRuns(), [], 'nothing of it kept');
      rmSync(bad);
      const again = await importFile(s, main);
      assert.equal(again.subagents.length, 1);
    });

    it("a subagent's saved output is read from the main session's tool-results, where Claude Code saves it", async () => {
      const s = await freshService();
      const copy = tempDir();
      cpSync(join(RECORDED, 'subagent', 'project'), copy, { recursive: true });
      const main = join(copy, readdirSync(copy).find((f) => f.endsWith('.jsonl'))!);
      // A subagent that ran the big-output session: its saved outputs in the main session's folder.
      const big = join(RECORDED, 'parallel-and-big', 'project');
      const bigSession = readdirSync(big).find((f) => f.endsWith('.jsonl'))!;
      cpSync(join(big, bigSession), join(main.replace(/\.jsonl$/, ''), 'subagents', 'agent-big.jsonl'));
      cpSync(
        join(big, bigSession.replace(/\.jsonl$/, ''), 'tool-results'),
        join(main.replace(/\.jsonl$/, ''), 'tool-results'),
        {
          recursive: true,
        },
      );
      const result = await importFile(s, main);
      const sub = result.subagents.find((r) => r.name.endsWith('-agent-big'));
      assert.ok(sub, result.subagents.map((r) => r.name).join(', '));
      assert.equal(sub.lostOutputs, 0, 'the saved output is found');
    });

    it('a compaction: the requests after it send the summary and what the compaction kept, not what it dropped', async () => {
      const s = await freshService();
      const result = await importFile(s, recorded('compact'));
      const { events } = await s.transcript({ runId: result.runId });
      const compaction = events.findIndex((e) => e.type === 'compaction');
      assert.ok(compaction > 0);
      const after = rebuilt(events, 3, 'sent');
      assert.ok(
        !JSON.stringify(after).includes('toolu_beforeE'),
        'the call before the compaction is gone from later requests',
      );
      assert.match(JSON.stringify(after[0]), /This session is being continued/);
      const outline = await s.inspection.inspect({ runId: result.runId });
      assert.ok(
        outline.outline.modelCalls[2]!.bytesSent < outline.outline.modelCalls[1]!.bytesSent + 20_000,
        'the figures follow the compaction',
      );
    });
  });

  describe('the minimal interleaving case of a parallel response', () => {
    it('eight lines: one assistant message with A, B, C and their inputs, then three results, then "done"', async () => {
      const line = (o: object) => JSON.stringify({ sessionId: 's', timestamp: '2026-01-01T00:00:00.000Z', ...o });
      const use = (id: string) =>
        line({
          type: 'assistant',
          uuid: `a${id}`,
          message: {
            id: 'msg_X',
            role: 'assistant',
            content: [{ type: 'tool_use', id, name: 'Read', input: { file_path: `/${id}` } }],
          },
        });
      const result = (id: string) =>
        line({
          type: 'user',
          uuid: `r${id}`,
          message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: `content of ${id}` }] },
        });
      const file = join(tempDir(), 'interleaved.jsonl');
      writeFileSync(
        file,
        [
          line({ type: 'user', uuid: 'u', message: { role: 'user', content: 'go' } }),
          use('A'),
          use('B'),
          result('A'),
          use('C'),
          result('B'),
          result('C'),
          line({
            type: 'assistant',
            uuid: 'y',
            message: { id: 'msg_Y', role: 'assistant', content: [{ type: 'text', text: 'done' }] },
          }),
        ].join('\n'),
      );
      const s = await freshService();
      const imported = await importFile(s, file);
      const replay = await s.history.replay({ runId: imported.runId, shape: 'anthropic', view: 'sent' });
      assert.ok(replay.shape === 'anthropic');
      assert.deepEqual(replay.messages, [
        { role: 'user', content: [{ type: 'text', text: 'go' }] },
        {
          role: 'assistant',
          content: ['A', 'B', 'C'].map((id) => ({
            type: 'tool_use',
            id,
            name: 'Read',
            input: { file_path: `/${id}` },
          })),
        },
        {
          role: 'user',
          content: ['A', 'B', 'C'].map((id) => ({ type: 'tool_result', tool_use_id: id, content: `content of ${id}` })),
        },
        { role: 'assistant', content: [{ type: 'text', text: 'done' }] },
      ]);
      assert.deepEqual(validateHistory('anthropic', replay.messages), []);
    });
  });

  describe('what an import refuses, and how it goes on', () => {
    it('refuses, creating nothing: a format that finds no conversation, a file with none, a bad runId', async () => {
      const s = await freshService();
      const codex = join(TRANSCRIPTS, 'codex_rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl');
      await assert.rejects(
        importFile(s, codex, { format: 'claude-code' }),
        /holds no Claude Code conversation \(is the format right\?\)/,
      );
      const empty = join(tempDir(), 'empty.jsonl');
      writeFileSync(empty, '{"type":"queue-operation","sessionId":"s"}\n');
      await assert.rejects(importFile(s, empty), /holds no Claude Code conversation/);
      await assert.rejects(
        importFile(s, codex, { runId: 7 as unknown as string }),
        /params\.runId must be a string \(got number 7\)/,
      );
      await assert.rejects(importFile(s, codex, { runId: '' }), /params\.runId must not be empty/);
      await assert.rejects(
        importFile(s, codex, { format: 'cursor' as 'codex' }),
        /params\.format must be one of "claude-code", "codex", "copilot-chat", "copilot-cli"/,
      );
      assert.deepEqual(await s.listRuns(), [], 'nothing was created');
    });

    it('cancelled, it keeps nothing: aborted before it starts, and halfway through writing its results', async () => {
      const s = await freshService();
      const codex = join(TRANSCRIPTS, 'codex_rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl');
      await assert.rejects(
        s.importer.import({ path: codex }, AbortSignal.abort()),
        /the import was cancelled; nothing of it was kept/,
      );
      // Aborted at its 21st look (its 18th result being written): what it wrote is removed.
      // The signal is the one thing faked, so that the moment is certain.
      let looks = 0;
      const midway = {
        get aborted() {
          return ++looks > 20;
        },
        throwIfAborted() {
          if (this.aborted) throw new Error('aborted');
        },
      } as AbortSignal;
      await assert.rejects(s.importer.import({ path: codex }, midway), /cancelled; nothing of it was kept/);
      assert.ok(looks > 21, 'it was looked at while writing');
      assert.deepEqual(await s.listRuns(), [], 'nothing was kept');
      assert.deepEqual((await s.importer.import({ path: codex })).toolCalls, 39, 'and it imports afterwards');
    });

    it('reads only regular files: a FIFO and a folder are refused at once', async () => {
      const s = await freshService();
      const fifo = join(tempDir(), 'pipe.jsonl');
      execFileSync('mkfifo', [fifo]);
      await assert.rejects(importFile(s, fifo), /is not a regular file/);
      await assert.rejects(importFile(s, tempDir()), /is not a regular file/);
    });

    it("a byte order mark is fine; a relative path is the workspace's", async () => {
      const workspace = tempDir();
      const s = new RetentionService(tempDir(), { workspace });
      const text = readFileSync(join(TRANSCRIPTS, 'claude-code_spotter_tool_heavy.jsonl'));
      writeFileSync(join(workspace, 'bom.jsonl'), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), text]));
      const result = await s.importer.import({ path: 'bom.jsonl' });
      assert.deepEqual(result.skippedLines, []);
      assert.equal(result.toolCalls, 6);
    });

    it('another session under a taken run id: refused naming the run, or replaced, or imported as a new run', async () => {
      const s = await freshService();
      const file = join(TRANSCRIPTS, 'claude-code_spotter_tool_heavy.jsonl');
      const other = join(TRANSCRIPTS, 'claude-code_spotter_main_with_task_subagent.jsonl');
      const first = await importFile(s, file, { runId: 'tool heavy (copy)' });
      await assert.rejects(
        importFile(s, other, { runId: 'tool heavy (copy)', subagents: false }),
        (err: Error & { runId?: string }) => err.runId === first.runId && /exists already/.test(err.message),
      );
      const replaced = await importFile(s, other, {
        runId: 'tool heavy (copy)',
        ifExists: 'replace',
        subagents: false,
      });
      assert.equal(replaced.runId, first.runId);
      const again = await importFile(s, file, { runId: 'tool heavy (copy)', ifExists: 'new' });
      assert.notEqual(again.runId, first.runId);
      const runs = await s.listRuns();
      assert.deepEqual(runs.map((r) => r.name).sort(), ['tool heavy (copy)', 'tool heavy (copy)-2']);
      assert.ok(existsSync(folderOf(s.store).transcriptPath(again.runId)));
    });

    it('the same session again, with any ifExists: its run refreshed in place, never a second one', async () => {
      const s = await freshService();
      const file = join(TRANSCRIPTS, 'claude-code_spotter_tool_heavy.jsonl');
      const first = await importFile(s, file);
      for (const ifExists of ['error', 'new', 'replace'] as const) {
        const again = await importFile(s, file, { ifExists });
        assert.equal(again.runId, first.runId, ifExists);
        assert.equal(again.events, first.events, `${ifExists}: the same events`);
      }
      assert.equal((await s.listRuns()).length, 1);
    });
  });
});
