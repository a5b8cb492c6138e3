/**
 * "As the agent sent it", whole, on every session recorded from a real agent against a scripted
 * model (test/fixtures/claude-code/*): each request body the agent sent equals the request the
 * import rebuilds from the session's own files (system prompt, tools, fields, cache marks and
 * messages), but for what its format's `notRecorded` (shared/agents.ts) says such files do not
 * record.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { RetentionService } from '../../server/src/core/service';
import {
  assertEveryRequestRebuilt,
  assertSound,
  codexComparable,
  loggedRequests,
  rebuiltBodies,
  rebuiltCodexBodies,
  sessionFile,
} from '../helpers/asSent';
import { validateHistory } from '../helpers/pairing';
import { removeTempDirs, tempDir } from '../helpers/tmp';

const RECORDED = resolve(__dirname, '../fixtures/claude-code');
const CODEX = resolve(__dirname, '../fixtures/codex');

describe('as the agent sent it: every logged request, whole', () => {
  after(removeTempDirs);
  for (const scenario of readdirSync(RECORDED).sort()) {
    it(`Claude Code, ${scenario}`, async () => {
      const dir = join(RECORDED, scenario);
      const s = new RetentionService(join(tempDir(), '.retained'));
      await s.init();
      const result = await s.importer.import({ path: sessionFile(dir) });
      assert.equal(result.fidelity, 'exact', result.notes.join('; '));
      for (const sub of result.subagents) assert.equal(sub.fidelity, 'exact', sub.notes.join('; '));
      for (const run of [result, ...result.subagents]) await assertSound(s, run);
      assertEveryRequestRebuilt(loggedRequests(dir), await rebuiltBodies(s, result));
    });
  }
  for (const scenario of readdirSync(CODEX).sort()) {
    it(`Codex, ${scenario}: each request's input items, model and cache key`, async () => {
      const dir = join(CODEX, scenario);
      const s = new RetentionService(join(tempDir(), '.retained'));
      await s.init();
      const result = await s.importer.import({ path: join(dir, 'rollout.jsonl') });
      assert.equal(result.fidelity, 'exact', result.notes.join('; '));
      await assertSound(s, result);
      const logged = loggedRequests(dir).map((r) => codexComparable(r.body));
      const rebuilt = await rebuiltCodexBodies(s, result.runId);
      assert.equal(rebuilt.length, logged.length, 'one model call per request');
      for (const [k, body] of rebuilt.entries()) assert.deepEqual(body, logged[k], `model call ${k + 1}`);
    });
  }
});

/** The tool_result the last logged request sent for `callId`, as text (blocks joined). */
function sentResult(dir: string, callId: string): string | undefined {
  for (const request of loggedRequests(dir).reverse())
    for (const message of request.body.messages ?? [])
      for (const block of Array.isArray(message.content) ? message.content : []) {
        const b = block as { type?: string; tool_use_id?: string; content?: unknown };
        if (b.type !== 'tool_result' || b.tool_use_id !== callId) continue;
        if (typeof b.content === 'string') return b.content;
        const blocks = b.content as { type: string; text?: string }[];
        return blocks.every((x) => x.type === 'text') ? blocks.map((x) => x.text).join('\n') : JSON.stringify(blocks);
      }
  return undefined;
}

describe('what a real Claude Code sent the model with Retained Outputs (recorded with its hook and MCP server)', () => {
  const dir = (name: string) => join(RECORDED, name);
  const value = (scenario: string, valueId: string) => {
    const runs = join(RECORDED, scenario, 'store', 'runs');
    const folder = readdirSync(runs).find((f) => f.endsWith('.values'))!;
    return readFileSync(join(runs, folder, `${valueId}.txt`), 'utf8');
  };

  it('a Read: the stub in Read numbering, every number the file line it shows (the header is line 0)', () => {
    const sent = sentResult(dir('hook-read-grep-glob'), 'toolu_gr1');
    assert.ok(sent);
    const lines = sent.split('\n');
    assert.match(lines[0]!, /^0\t\[retained #toolu_gr1\] Read result: 96000 bytes, 3000 lines, kept out of context$/);
    const file = value('hook-read-grep-glob', 'toolu_gr1').split('\n');
    for (const line of lines.slice(1, -1)) {
      const [, n, text] = /^(\d+)\t(.*)$/.exec(line) ?? [];
      assert.equal(text, file[Number(n) - 1], `line ${n} is the file's line ${n}`);
    }
    assert.match(
      lines.at(-1)!,
      /^7\t… lines 7-3000 not shown\. Read them with mcp__retained__peek_value: \{"id":"toolu_gr1","start":7,"end":406\}/,
    );
    assert.ok(!/^\d+\t\d+: /m.test(sent), 'no second gutter');
  });

  it('a Bash output: the stub with the error line as a landmark; Grep and Glob stay as Claude Code cut them (250 entries, under the threshold)', () => {
    const bash = sentResult(dir('hook-read-grep-glob'), 'toolu_gb5');
    assert.match(
      bash ?? '',
      /^\[retained #toolu_gb5\] Bash result: \d+ bytes, 20000 lines[\s\S]*Landmarks: error at line 10001\./,
    );
    for (const id of ['toolu_gg2', 'toolu_gf3', 'toolu_gl4']) {
      const sent = sentResult(dir('hook-read-grep-glob'), id) ?? '';
      assert.ok(sent.length > 0 && sent.length < 20_480 && !sent.includes('[retained #'), `${id} went as it was`);
    }
  });

  it('ToolSearch loads peek_value (a tool_reference), then the model peeks by query and by landmark and gets the numbered lines', () => {
    const d = dir('hook-toolsearch-peek');
    assert.match(sentResult(d, 'toolu_hs2') ?? '', /"type":"tool_reference","tool_name":"mcp__retained__peek_value"/);
    assert.match(
      sentResult(d, 'toolu_hp3') ?? '',
      /^10000: 10000\n10001: error: checksum mismatch in block 10001\n10002: 10002\n/,
    );
    assert.match(sentResult(d, 'toolu_hp4') ?? '', /10001: error: checksum mismatch in block 10001/);
  });
});

describe('what an exact import leaves out, and what a replay never sends', () => {
  after(removeTempDirs);

  it('counts every record kind it does not use, attachments included (hook_success too)', async () => {
    const dir = join(RECORDED, 'hook-toolsearch-peek');
    const s = new RetentionService(join(tempDir(), '.retained'));
    const result = await s.importer.import({ path: sessionFile(dir) });
    assert.equal(result.fidelity, 'exact');
    const lines = readFileSync(sessionFile(dir), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const attachments = lines.filter((r) => r.type === 'attachment');
    const counted = Object.entries(result.skipped)
      .filter(([kind]) => kind.startsWith('attachment/'))
      .reduce((n, [, count]) => n + count, 0);
    assert.equal(counted, attachments.length);
    assert.equal(result.skipped['attachment/hook_success'], 1);
  });

  it('older Claude Code sessions (no request records): the text blocks of whitespace only their files keep are not sent, in either view', async () => {
    const transcripts = resolve(__dirname, '../fixtures/transcripts');
    for (const file of readdirSync(transcripts).filter((f) => f.startsWith('claude-code_'))) {
      const raw = readFileSync(join(transcripts, file), 'utf8');
      const s = new RetentionService(join(tempDir(), '.retained'));
      const result = await s.importer.import({ path: join(transcripts, file), subagents: false });
      for (const view of ['sent', 'retained'] as const) {
        const replay = await s.history.replay({ runId: result.runId, shape: 'anthropic', view });
        assert.ok(replay.shape === 'anthropic');
        assert.deepEqual(
          validateHistory('anthropic', replay.messages).filter((p) => p.includes('whitespace')),
          [],
          `${file}, ${view}`,
        );
      }
      if (file.includes('tool_heavy')) assert.match(raw, /"text":"\\n\\n"/, 'the file does hold one');
    }
  });

  it('the validator knows the rule: a blank text block is a request the Messages API refuses', () => {
    const problems = validateHistory('anthropic', [
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'assistant', content: [{ type: 'text', text: '\n\n' }] },
    ]);
    assert.deepEqual(problems, ['messages[1]: 1 text block of whitespace only']);
  });
});
