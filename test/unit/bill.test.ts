/**
 * Figures true to the bill. For every session in test/fixtures/ whose file keeps the provider's
 * own count of each model call, the counts are read here from the file itself (a reader of each
 * agent's format written for this test, not the importers), and the run's figures are held to
 * them: every call the provider counted is a call of the run, its input is the provider's, and
 * the cost is the cost of those counts at the table's prices, to the cent. The check is shown to
 * fail on planted mistakes (a 1-hour write priced as a 5-minute one, a dropped call). Also: a
 * compaction whose link names a record the file does not have loses no call before it, and the
 * agent's own cost records (Claude Code's `cost-state`) agree with the run's cost.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { RetentionService } from '../../server/src/core/service';
import { type Counted, costOf, PRICES, priceOf } from '../../shared/pricing';
import type { RunUsage } from '../../shared/usage';
import { sessionFile } from '../helpers/asSent';
import { removeTempDirs, tempDir } from '../helpers/tmp';

const FIXTURES = resolve(__dirname, '../fixtures');
type Json = Record<string, unknown>;

const lines = (path: string): Json[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as Json];
      } catch {
        return [];
      }
    });
const n = (v: unknown) => (typeof v === 'number' ? v : 0);
const fromPrompt = (prompt: number, read: number, write: number, output: number): Counted => ({
  input: prompt - read - write,
  cacheRead: read,
  cacheWrite: write,
  output,
});

/** Each agent's own counts, in the order of its calls, read straight from its file. */
const READERS: Record<string, (path: string) => Counted[]> = {
  'claude-code': (path) => {
    const last = new Map<string, Json>();
    for (const r of lines(path)) {
      const m = r.message as Json | undefined;
      // `<synthetic>`: a message Claude Code wrote itself (an interrupt's), no model call.
      if (r.type === 'assistant' && m?.usage && typeof m.id === 'string' && m.model !== '<synthetic>') {
        last.delete(m.id);
        last.set(m.id, m.usage as Json);
      }
    }
    // Each response's last line (its count grows as it streams), in the order the responses began.
    const order: string[] = [];
    for (const r of lines(path)) {
      const id = (r.message as Json | undefined)?.id;
      if (r.type === 'assistant' && typeof id === 'string' && last.has(id) && !order.includes(id)) order.push(id);
    }
    return order.map((id) => {
      const u = last.get(id)!;
      const long = n((u.cache_creation as Json | undefined)?.ephemeral_1h_input_tokens);
      return {
        input: n(u.input_tokens),
        cacheRead: n(u.cache_read_input_tokens),
        cacheWrite: n(u.cache_creation_input_tokens),
        ...(long ? { cacheWrite1h: long } : {}),
        output: n(u.output_tokens),
      };
    });
  },
  codex: (path) => {
    let total = 'null';
    const out: Counted[] = [];
    for (const r of lines(path)) {
      const p = r.payload as Json | undefined;
      if (r.type !== 'event_msg' || p?.type !== 'token_count') continue;
      const info = p.info as Json | null;
      const now = JSON.stringify(info?.total_token_usage ?? null);
      const u = info?.last_token_usage as Json | undefined;
      if (u && now !== total && n(u.total_tokens) > 0)
        out.push(
          fromPrompt(n(u.input_tokens), n(u.cached_input_tokens), n(u.cache_write_input_tokens), n(u.output_tokens)),
        );
      total = now;
    }
    return out;
  },
  'gemini-cli': (path) => {
    const byId = new Map<string, Json>();
    for (const r of lines(path)) if (r.type === 'gemini' && typeof r.id === 'string' && r.tokens) byId.set(r.id, r);
    return [...byId.values()].map((r) => {
      const t = r.tokens as Json;
      return fromPrompt(n(t.input) + n(t.tool), n(t.cached), 0, n(t.output) + n(t.thoughts));
    });
  },
  'qwen-code': (path) =>
    lines(path)
      .filter((r) => r.type === 'assistant' && r.usageMetadata)
      .map((r) => {
        const u = r.usageMetadata as Json;
        return fromPrompt(
          n(u.promptTokenCount),
          n(u.cachedContentTokenCount),
          0,
          n(u.totalTokenCount) - n(u.promptTokenCount),
        );
      }),
  'copilot-cli': (path) =>
    lines(path)
      .filter((r) => r.type === 'session.usage_record')
      .map((r) => {
        const u = (r.data as Json).usage as Json;
        return fromPrompt(n(u.inputTokens), n(u.cacheReadTokens), n(u.cacheWriteTokens), n(u.outputTokens));
      }),
  cline: (path) =>
    ((JSON.parse(readFileSync(path, 'utf8')) as Json).messages as Json[])
      .filter((m) => m.role === 'assistant' && m.metrics)
      .map((m) => {
        const u = m.metrics as Json;
        return fromPrompt(n(u.inputTokens), n(u.cacheReadTokens), n(u.cacheWriteTokens), n(u.outputTokens));
      }),
};

/** The sessions of each agent in test/fixtures/ (recorded here, and third-party ones). */
function sessions(): { agent: string; name: string; path: string }[] {
  const found: { agent: string; name: string; path: string }[] = [];
  const walk = (dir: string, test: (file: string) => boolean): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(dir, e.name), test) : test(join(dir, e.name)) ? [join(dir, e.name)] : [],
    );
  for (const scenario of readdirSync(join(FIXTURES, 'claude-code')))
    found.push({ agent: 'claude-code', name: scenario, path: sessionFile(join(FIXTURES, 'claude-code', scenario)) });
  for (const file of readdirSync(join(FIXTURES, 'transcripts')))
    if (file.startsWith('claude-code_spotter_'))
      found.push({ agent: 'claude-code', name: file, path: join(FIXTURES, 'transcripts', file) });
    else if (file.startsWith('codex_rollout'))
      found.push({ agent: 'codex', name: file, path: join(FIXTURES, 'transcripts', file) });
  const kinds: [string, (f: string) => boolean][] = [
    ['codex', (f) => f.endsWith('rollout.jsonl')],
    ['gemini-cli', (f) => /\/chats\/session-[^/]+\.jsonl$/.test(f)],
    ['qwen-code', (f) => /\/projects\/[^/]+\/chats\/[^/]+\.jsonl$/.test(f)],
    ['copilot-cli', (f) => f.endsWith('/events.jsonl')],
    ['cline', (f) => f.endsWith('.messages.json')],
  ];
  for (const [agent, test] of kinds)
    for (const scenario of readdirSync(join(FIXTURES, agent)))
      for (const path of walk(join(FIXTURES, agent, scenario), test)) found.push({ agent, name: scenario, path });
  return found;
}

async function service() {
  const s = new RetentionService(join(tempDir(), '.retained'), { indexImports: false });
  await s.init();
  return s;
}

/**
 * What is wrong with a run's figures against the provider's counts: every counted call there, in
 * order, its input the provider's; each call's cost and the run's the cost of those counts.
 */
function problems(usage: RunUsage, expected: readonly Counted[]): string[] {
  const wrong: string[] = [];
  const made = usage.modelCalls.slice(0, -1);
  const counted = made.filter((c) => c.basis === 'provider');
  // A run that joined a live run of the session has calls the file did not count before its own.
  const theirs = expected.slice(expected.length - counted.length);
  if (counted.length !== expected.length && !made.some((c) => c.basis === 'estimate'))
    wrong.push(`${counted.length} calls with the provider's counts, the file has ${expected.length}`);
  if (counted.length > expected.length) wrong.push(`${counted.length} counted calls, the file has ${expected.length}`);
  if (counted.length === 0 && expected.length > 0) wrong.push('no call has the provider counts');
  const price = priceOf(usage.model, PRICES);
  counted.forEach((call, k) => {
    const want = theirs[k];
    if (!want) return;
    const input = want.input + want.cacheRead + want.cacheWrite;
    if (call.total !== input) wrong.push(`call ${call.modelCall}: ${call.total} input tokens, the provider ${input}`);
    if (call.output !== want.output)
      wrong.push(`call ${call.modelCall}: output ${call.output}, the provider ${want.output}`);
    if (price && Math.abs((call.usd ?? Number.NaN) - costOf(want, price)) > 1e-9)
      wrong.push(`call ${call.modelCall}: $${call.usd}, the counts cost $${costOf(want, price)}`);
  });
  if (price && counted.length === made.length && expected.length === made.length) {
    const bill = expected.reduce((sum, c) => sum + costOf(c, price), 0);
    if (Math.abs((usage.totals.usd ?? Number.NaN) - bill) >= 0.005)
      wrong.push(`the run costs $${usage.totals.usd}, the counts $${bill.toFixed(4)}`);
  }
  return wrong;
}

describe('figures true to the bill', function () {
  this.timeout(120_000);
  after(removeTempDirs);

  const all = sessions();
  it('finds the sessions of every agent that records the provider counts', () => {
    const agents = new Set(all.filter((s) => READERS[s.agent]!(s.path).length > 0).map((s) => s.agent));
    assert.deepEqual([...agents].sort(), ['claude-code', 'cline', 'codex', 'copilot-cli', 'gemini-cli', 'qwen-code']);
  });

  for (const { agent, name, path } of all)
    it(`${agent} ${name}: each call's input and the cost are the provider's counts`, async () => {
      const expected = READERS[agent]!(path);
      if (expected.length === 0) return;
      const s = await service();
      const { runId } = await s.importer.import({ path });
      const usage = await s.inspection.usage({ runId });
      assert.deepEqual(problems(usage, expected), []);
      // The parts split the provider's total: what the file lacks is a part of its own, never dropped.
      for (const call of usage.modelCalls.filter((c) => c.basis === 'provider'))
        assert.equal(
          Object.values(call.parts).reduce((a, b) => a + b, 0),
          call.total,
          `call ${call.modelCall}: its parts add up to the provider's total`,
        );
      s.dispose();
    });

  it('fails on planted mistakes: a 1-hour write priced as a 5-minute one, a dropped call', async () => {
    const path = join(FIXTURES, 'transcripts', 'claude-code_spotter_tool_heavy.jsonl');
    const expected = READERS['claude-code']!(path);
    assert.ok(
      expected.some((c) => (c.cacheWrite1h ?? 0) > 0),
      'the session writes its cache for an hour',
    );
    const s = await service();
    const { runId } = await s.importer.import({ path });
    const usage = await s.inspection.usage({ runId });
    assert.deepEqual(problems(usage, expected), []);
    // Priced as if every write lived 5 minutes (what the table did before): the bill is not met.
    const price = priceOf(usage.model)!;
    s.updateSettings({ pricing: { [usage.model!]: { ...price, cacheWrite1h: price.cacheWrite } } });
    const cheap = await s.inspection.usage({ runId });
    assert.ok(cheap.totals.usd! < usage.totals.usd!);
    assert.notDeepEqual(
      problems({ ...cheap, model: usage.model! }, expected).filter((p) => p.includes('$')),
      [],
    );
    // A call dropped (as a compaction that cut half a session did): the count is not met.
    const dropped = { ...usage, modelCalls: [...usage.modelCalls.slice(0, 1), ...usage.modelCalls.slice(2)] };
    assert.notDeepEqual(problems(dropped, expected), []);
    s.dispose();
  });

  it("Claude Code's own cost records (cost-state) agree with the run's cost, to the cent", async () => {
    let checked = 0;
    for (const { agent, name, path } of all) {
      if (agent !== 'claude-code') continue;
      const states = lines(path).filter((r) => r.type === 'cost-state');
      const state = states[states.length - 1];
      if (!state) continue;
      const s = await service();
      // Its subagents too: Claude Code's record is of the whole session (the session's figure sums them in).
      const { runId } = await s.importer.import({ path });
      const usage = await s.inspection.usage({ runId });
      const ours = usage.session?.usd ?? usage.totals.usd!;
      const models = state.modelUsage as Record<string, Json>;
      const own = Object.values(models).reduce((sum, m) => sum + n(m.costUSD), 0);
      // To the cent. Not closer: Claude Code's record also holds calls no line of the file counts
      // (a compaction's own summary request), which these sessions' fractions of a cent hide.
      assert.ok(Math.abs(ours - own) < 0.005, `${name}: $${ours} here, $${own} by Claude Code`);
      checked++;
      s.dispose();
    }
    assert.ok(checked >= 10, `${checked} sessions with cost records`);
  });

  it("a session's subagents are rows of their own, summed into the session's figures", async () => {
    const dir = join(FIXTURES, 'claude-code', 'subagent');
    const main = sessionFile(dir);
    const agents = join(main.replace(/\.jsonl$/, ''), 'subagents');
    const [file] = readdirSync(agents).filter((f) => f.endsWith('.jsonl'));
    const s = await service();
    const { runId, subagents } = await s.importer.import({ path: main });
    assert.equal(subagents.length, 1);
    const usage = await s.inspection.usage({ runId });
    const price = priceOf(usage.model)!;
    const theirs = READERS['claude-code']!(join(agents, file!));
    assert.ok(theirs.length > 0);
    assert.deepEqual(
      usage.subagents?.map((a) => [a.runId, a.modelCalls, a.counted]),
      [[subagents[0]!.runId, theirs.length, theirs.length]],
    );
    const bill = theirs.reduce((sum, c) => sum + costOf(c, price), 0);
    assert.ok(Math.abs(usage.subagents![0]!.usd! - bill) < 1e-9);
    assert.equal(usage.session?.modelCalls, usage.modelCalls.length - 1 + theirs.length);
    assert.ok(Math.abs(usage.session!.usd! - (usage.totals.usd! + bill)) < 1e-9);
    // Asked for alone, the run is its own figures only.
    const alone = await s.inspection.usage({ runId, subagents: false });
    assert.equal(alone.session, undefined);
    s.dispose();
  });

  it('a compaction whose link names a record the file does not have keeps every call before it, with a note', async () => {
    const session = 'c0ffee00-0000-4000-8000-000000000001';
    let previous: string | null = null;
    let k = 0;
    const file: Json[] = [];
    const line = (fields: Json) => {
      const uuid = `u-${++k}`;
      file.push({
        parentUuid: previous,
        isSidechain: false,
        sessionId: session,
        version: '2.1.39',
        uuid,
        timestamp: `2026-12-01T10:00:${String(k).padStart(2, '0')}Z`,
        ...fields,
      });
      previous = uuid;
      return uuid;
    };
    const usage = (input: number, read: number, write: number, long: number, output: number) => ({
      input_tokens: input,
      cache_read_input_tokens: read,
      cache_creation_input_tokens: write,
      cache_creation: { ephemeral_5m_input_tokens: write - long, ephemeral_1h_input_tokens: long },
      output_tokens: output,
    });
    const assistant = (id: string, content: Json[], u: Json) =>
      line({ type: 'assistant', message: { id, role: 'assistant', model: 'claude-opus-4-6', content, usage: u } });
    const result = (id: string, text: string) =>
      line({
        type: 'user',
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: text }] },
      });
    // A Bash call: its response (with the provider's count) and its result.
    const bash = (n: number, command: string, output: string, u: Json) => {
      assistant(`msg_${n}`, [{ type: 'tool_use', id: `toolu_${n}`, name: 'Bash', input: { command } }], u);
      result(`toolu_${n}`, output);
    };
    line({ type: 'user', message: { role: 'user', content: 'build it' } });
    bash(1, 'make', 'built\n', usage(3, 0, 21000, 21000, 40));
    bash(2, 'make test', 'ok\n', usage(1, 21000, 300, 300, 50));
    assistant('msg_3', [{ type: 'text', text: 'Built and tested.' }], usage(1, 21300, 200, 200, 20));
    // The boundary names as its logical parent a record the file does not have.
    previous = null;
    const boundary = line({
      type: 'system',
      subtype: 'compact_boundary',
      logicalParentUuid: 'not-in-this-file',
      compactMetadata: { trigger: 'manual' },
    });
    line({
      type: 'user',
      isCompactSummary: true,
      message: { role: 'user', content: 'Summary: built and tested.' },
      parentUuid: boundary,
    });
    line({ type: 'user', message: { role: 'user', content: 'now lint' } });
    bash(4, 'make lint', 'clean\n', usage(2, 15000, 900, 900, 30));
    assistant('msg_5', [{ type: 'text', text: 'Clean.' }], usage(1, 15900, 100, 100, 10));
    const path = join(tempDir(), `${session}.jsonl`);
    writeFileSync(path, `${file.map((l) => JSON.stringify(l)).join('\n')}\n`);

    const s = await service();
    const imported = await s.importer.import({ path });
    const { events } = await s.transcript({ runId: imported.runId });
    const calls = events.flatMap((e) => (e.type === 'tool_call_finished' ? [e.callId] : []));
    assert.deepEqual(calls, ['toolu_1', 'toolu_2', 'toolu_4'], 'every call, before the compaction too');
    assert.ok(events.some((e) => e.type === 'compaction'));
    assert.ok(
      imported.notes.some((note) => /names a record the file does not have/.test(note)),
      JSON.stringify(imported.notes),
    );
    const usageOfRun = await s.inspection.usage({ runId: imported.runId });
    assert.deepEqual(problems(usageOfRun, READERS['claude-code']!(path)), []);
    assert.equal(usageOfRun.totals.counted, 5);
    s.dispose();
  });
});
