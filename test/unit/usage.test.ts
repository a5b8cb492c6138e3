/**
 * `retained/usage`: each model call's tokens by part, its simulated prompt-cache reads and
 * writes, its cost; on sessions recorded from real agents (test/fixtures/), on real third-party
 * Claude Code sessions that keep the provider's own counts (test/fixtures/transcripts/), and on
 * runs built to show a cache read and a cache break.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { RetentionService } from '../../server/src/core/service';
import { FolderStore } from '../../server/src/core/store/folderStore';
import { PRICES } from '../../shared/pricing';
import { retainedIndex } from '../../shared/stubText';
import { type ModelCallUsage, USAGE_PARTS } from '../../shared/usage';
import { sessionFile } from '../helpers/asSent';
import { removeTempDirs, tempDir } from '../helpers/tmp';

const FIXTURES = resolve(__dirname, '../fixtures');

async function service() {
  const s = new RetentionService(join(tempDir(), '.retained'), { indexImports: false });
  await s.init();
  return s;
}

const big = (n: number, tag: string) => `${Array.from({ length: n }, (_, i) => `${tag} ${i + 1}`).join('\n')}\n`;

describe('retained/usage', () => {
  after(removeTempDirs);

  for (const scenario of readdirSync(join(FIXTURES, 'claude-code')).sort())
    it(`the parts of every model call add up to its total, and to the inspector's figure: Claude Code, ${scenario}`, async () => {
      const s = await service();
      const { runId } = await s.importer.import({ path: sessionFile(join(FIXTURES, 'claude-code', scenario)) });
      for (const view of ['sent', 'retained'] as const) {
        const usage = await s.inspection.usage({ runId, view });
        const { outline } = await s.inspection.inspect({ runId, view, limit: 0 });
        assert.equal(usage.modelCalls.length, outline.modelCalls.length);
        for (const [k, call] of usage.modelCalls.entries()) {
          const sum = USAGE_PARTS.reduce((n, part) => n + call.parts[part], 0);
          assert.equal(sum, call.total, `model call ${call.modelCall}: parts add up`);
          assert.equal(call.cache.read + call.cache.write + call.cache.uncached, call.total);
          // The system prompt and tools are counted apart here, together there: within a few tokens.
          const figure = outline.modelCalls[k]!.tokensSent;
          assert.ok(Math.abs(call.total - figure) <= Math.max(8, figure * 0.01), `${call.total} vs ${figure}`);
        }
      }
      // The baseline: every result in full, the inspector's "in full" figure.
      const full = await s.inspection.usage({ runId, view: 'retained', full: true });
      const { outline } = await s.inspection.inspect({ runId, view: 'retained', limit: 0 });
      for (const [k, call] of full.modelCalls.entries()) {
        const figure = outline.modelCalls[k]!.tokensFull;
        assert.ok(Math.abs(call.total - figure) <= Math.max(8, figure * 0.01), `full: ${call.total} vs ${figure}`);
      }
    });

  it('the baseline, as the server tells it: an imported run as its agent sent it, a run recorded here with every result in full', async () => {
    const s = await service();
    const { runId: imported } = await s.importer.import({
      path: sessionFile(join(FIXTURES, 'claude-code', 'compact')),
    });
    assert.deepEqual(
      await s.inspection.usage({ runId: imported, baseline: true }),
      await s.inspection.usage({ runId: imported, view: 'sent' }),
    );
    const runId = 'here';
    await s.retainer.append({ runId, event: { type: 'run_started', tools: ['sh', 'peek_value'] } });
    await s.retainer.append({ runId, event: { type: 'user', text: 'Build it.' } });
    await s.retainer.append({
      runId,
      event: { type: 'assistant', toolCalls: [{ id: 'c1', name: 'sh', arguments: {} }] },
    });
    await s.retainer.retain({ runId, callId: 'c1', tool: 'sh', text: big(3000, 'cc') });
    await s.retainer.append({ runId, event: { type: 'assistant', text: 'Built.' } });
    const baseline = await s.inspection.usage({ runId, baseline: true });
    assert.deepEqual(baseline, await s.inspection.usage({ runId, full: true }));
    assert.ok(baseline.totals.total > (await s.inspection.usage({ runId })).totals.total, 'the full results cost more');
    await assert.rejects(s.inspection.usage({ runId, baseline: true, full: true }), /params\.baseline/);
  });

  it('the next model call, not made yet, is sent with the system prompt and tools the last one was: after a compaction too', async () => {
    for (const scenario of ['compact', 'compact-auto']) {
      const s = await service();
      const { runId } = await s.importer.import({ path: sessionFile(join(FIXTURES, 'claude-code', scenario)) });
      const { modelCalls } = await s.inspection.usage({ runId, view: 'sent' });
      const [last, next] = modelCalls.slice(-2) as [ModelCallUsage, ModelCallUsage];
      assert.notEqual(next.breakReason, 'shape', `${scenario}: nothing changed the system prompt or the tools`);
      assert.ok(next.parts.tools > 0 && next.parts.systemPrompt > 0, `${scenario}: ${JSON.stringify(next.parts)}`);
      assert.ok(next.cache.read >= next.parts.tools + next.parts.systemPrompt, `${scenario}: its prefix is read`);
      assert.ok(last.parts.tools > 0, scenario);
    }
  });

  it('on real Claude Code sessions with the provider counts, the estimate of what each call added stays within the stated bound', async () => {
    const sessions = readdirSync(join(FIXTURES, 'transcripts')).filter((f) => f.startsWith('claude-code_spotter_'));
    assert.ok(sessions.length >= 3);
    for (const file of sessions) {
      const s = await service();
      const { runId } = await s.importer.import({ path: join(FIXTURES, 'transcripts', file) });
      const usage = await s.inspection.usage({ runId });
      const error = usage.providerError;
      assert.ok(error && error.calls >= 3, `${file}: the provider's counts are read`);
      // o200k is not Claude's tokenizer: the bound measured on these sessions, with room (README).
      assert.ok(error.median <= 0.3, `${file}: median ${error.median}`);
      assert.ok(error.max <= 0.6, `${file}: max ${error.max}`);
      // What the files do not hold (Claude Code's system prompt and tools) is said, not hidden.
      assert.ok(error.unrecorded > 10_000, `${file}: ${error.unrecorded} tokens not in the file`);
      assert.ok(usage.totals.usd! > 0 && usage.price, `${file}: priced as ${usage.model}`);
    }
  });

  it('a server just started answers from the run index what an earlier one counted: the same figures, nothing counted again', async () => {
    const root = join(tempDir(), '.retained');
    const first = new RetentionService(root, { indexImports: false });
    await first.init();
    const runId = 'counted';
    await first.retainer.append({ runId, event: { type: 'run_started', tools: ['sh', 'peek_value'] } });
    await first.retainer.append({ runId, event: { type: 'user', text: 'Build it.' } });
    await first.retainer.append({
      runId,
      event: { type: 'assistant', toolCalls: [{ id: 'c1', name: 'sh', arguments: { cmd: 'make' } }] },
    });
    await first.retainer.retain({ runId, callId: 'c1', tool: 'sh', text: big(3000, 'cc') });
    await first.retainer.append({ runId, event: { type: 'assistant', text: 'Built.' } });
    const counted = await first.inspection.usage({ runId });
    await first.inspection.indexes.flush(runId);
    first.dispose();
    // The index holds the counts (its body hashed): change one, as only a reader of it would see.
    const path = new FolderStore(root).runIndexPath(runId);
    const text = readFileSync(path, 'utf8');
    const index = JSON.parse(text.slice(text.indexOf('\n') + 1));
    const [key] = Object.keys(index.usage);
    assert.ok(key, 'the index keeps what usage counted');
    index.usage[key].sent.parts[USAGE_PARTS.indexOf('user')][1] += 1000;
    // Without the answer it also keeps (storeConformance.test.ts holds that one): the counts answer.
    assert.equal(Object.keys(index.answers).length, 1);
    index.answers = {};
    const body = JSON.stringify(index);
    writeFileSync(path, `${createHash('sha256').update(body).digest('hex')}\n${body}`);
    const second = new RetentionService(root, { indexImports: false });
    await second.init();
    const read = await second.inspection.usage({ runId });
    assert.equal(read.modelCalls[0]!.parts.user, counted.modelCalls[0]!.parts.user + 1000, 'read from the index');
    assert.equal(read.modelCalls[0]!.total, counted.modelCalls[0]!.total + 1000);
    // A run changed since is counted again: the index no longer matches it.
    await second.retainer.append({ runId, event: { type: 'user', text: 'And now?' } });
    const recounted = await second.inspection.usage({ runId });
    assert.equal(recounted.modelCalls[0]!.parts.user, counted.modelCalls[0]!.parts.user);
    second.dispose();
  });

  it('keeps the counts of the four views asked for last, whatever policies requests name; a shape hashed "__proto__" counts', async () => {
    const s = await service();
    const runId = 'many';
    await s.retainer.append({ runId, event: { type: 'run_started', tools: ['sh', 'peek_value'] } });
    await s.retainer.append({ runId, event: { type: 'request_shape', hash: '__proto__', system: 'You are careful.' } });
    await s.retainer.append({ runId, event: { type: 'user', text: 'Build it.' } });
    await s.retainer.append({ runId, event: { type: 'model_call', shape: '__proto__' } });
    await s.retainer.append({ runId, event: { type: 'assistant', text: 'Built.' } });
    const { modelCalls } = await s.inspection.usage({ runId });
    assert.ok(modelCalls[0]!.parts.systemPrompt > 0, 'the system prompt of the shape named "__proto__"');
    for (let keepRounds = 1; keepRounds <= 10; keepRounds++)
      await s.inspection.usage({ runId, view: 'retained', policy: { keepRounds } });
    await s.inspection.indexes.flush(runId);
    const text = readFileSync(new FolderStore(s.address).runIndexPath(runId), 'utf8');
    const index = JSON.parse(text.slice(text.indexOf('\n') + 1));
    assert.equal(Object.keys(index.usage).length, 4);
    assert.ok(
      Object.keys(index.usage).some((k) => k.includes('"keepRounds":10')),
      'the last asked is kept',
    );
    s.dispose();
  });

  it('consecutive requests that share their whole prefix read all of the previous request from the cache', async () => {
    const s = await service();
    const runId = 'cached';
    await s.retainer.append({
      runId,
      event: { type: 'run_started', tools: ['sh', 'peek_value'], model: 'claude-sonnet-4-5' },
    });
    await s.retainer.append({ runId, event: { type: 'user', text: 'Build it.' } });
    for (let i = 0; i < 4; i++) {
      await s.retainer.append({
        runId,
        event: {
          type: 'assistant',
          text: `Step ${i}.`,
          toolCalls: [{ id: `c${i}`, name: 'sh', arguments: { cmd: `make ${i}` } }],
        },
      });
      await s.retainer.retain({ runId, callId: `c${i}`, tool: 'sh', text: `ok ${i}\n` });
    }
    const usage = await s.inspection.usage({ runId });
    const calls = usage.modelCalls;
    assert.equal(calls[0]!.breakReason, 'first');
    assert.equal(calls[0]!.cache.read, 0);
    for (let k = 1; k < calls.length; k++) {
      assert.equal(calls[k]!.cache.read, calls[k - 1]!.total, `call ${k + 1} reads call ${k}'s whole request`);
      assert.equal(calls[k]!.breakAt, undefined);
    }
    // Priced as the Messages API bills it: reads at 0.1×, writes at 1.25× input, output at its rate.
    const price = PRICES['claude-sonnet-4']!;
    const c = calls[1]!;
    assert.ok(
      Math.abs(
        c.usd! - (c.cache.read * price.cacheRead + c.cache.write * price.cacheWrite + c.output * price.output) / 1e6,
      ) < 1e-12,
    );
  });

  it('a compaction: what its summary replaced, and the retained values among it, each still readable', async () => {
    const s = await service();
    const runId = 'compacted';
    await s.retainer.append({ runId, event: { type: 'run_started', tools: ['sh', 'peek_value'] } });
    await s.retainer.append({ runId, event: { type: 'user', text: 'Build it.' } });
    await s.retainer.append({
      runId,
      event: { type: 'assistant', toolCalls: [{ id: 'big1', name: 'sh', arguments: { cmd: 'make' } }] },
    });
    await s.retainer.retain({ runId, callId: 'big1', tool: 'sh', text: big(5000, 'build') });
    await s.retainer.append({ runId, event: { type: 'assistant', text: 'It fails at the end.' } });
    await s.retainer.append({ runId, event: { type: 'compaction', summary: 'The build failed; its log is #big1.' } });
    // The index a hook handed the model after it (an agent's own injected text is not one).
    await s.retainer.append({ runId, event: { type: 'user', text: 'A reminder.', injected: true } });
    const index = retainedIndex(await s.values.indexed(runId), runId);
    await s.retainer.append({ runId, event: { type: 'user', text: index, injected: true } });
    await s.retainer.append({ runId, event: { type: 'user', text: 'Fix it.' } });
    await s.retainer.append({ runId, event: { type: 'assistant', text: 'Done.' } });
    const usage = await s.inspection.usage({ runId });
    assert.equal(usage.compactions.length, 1);
    const [c] = usage.compactions;
    assert.equal(c!.at, 5);
    assert.equal(c!.handed, 7);
    assert.deepEqual(c!.dropped.from, 0);
    assert.equal(c!.dropped.events, 5);
    assert.ok(c!.dropped.tokens > c!.summaryTokens && c!.summaryTokens > 0);
    assert.deepEqual(
      c!.values.map((v) => v.valueId),
      ['big1'],
    );
    const after = usage.modelCalls[c!.modelCall - 1]!;
    assert.equal(after.breakReason, 'compaction');
    assert.match((await s.values.peek({ valueId: 'big1', start: 5000 })).text, /^5000: build 5000$/);
  });

  it('prices from retained.pricing, over the table, by the longest prefix of the model name', async () => {
    const s = await service();
    const runId = 'priced';
    await s.retainer.append({ runId, event: { type: 'run_started', tools: ['sh'], model: 'acme-large-2' } });
    await s.retainer.append({ runId, event: { type: 'user', text: 'Hello.' } });
    await s.retainer.append({ runId, event: { type: 'assistant', text: 'Hi.' } });
    assert.equal((await s.inspection.usage({ runId })).totals.usd, undefined, 'a model the table lacks: tokens only');
    s.updateSettings({
      pricing: {
        acme: { input: 1, output: 2, cacheRead: 0.1, cacheWrite: 1.5 },
        'ACME-large': { input: 10, output: 20, cacheRead: 1, cacheWrite: 15 },
      },
    });
    const usage = await s.inspection.usage({ runId });
    assert.deepEqual(usage.price, { input: 10, output: 20, cacheRead: 1, cacheWrite: 15, asOf: '2026-12' });
    const [call] = usage.modelCalls;
    assert.ok(Math.abs(usage.totals.usd! - (call!.cache.write * 15 + call!.output * 20) / 1e6) < 1e-12);
    assert.throws(
      () => s.updateSettings({ pricing: { acme: { input: -1, output: 2, cacheRead: 0, cacheWrite: 0 } } }),
      /pricing\.acme\.input/,
    );
  });

  it('a reference the history policy writes at event k breaks the cached prefix at k', async () => {
    const s = await service();
    const runId = 'policy';
    await s.retainer.append({ runId, event: { type: 'run_started', tools: ['sh', 'peek_value'] } });
    await s.retainer.append({ runId, event: { type: 'user', text: 'Read them all.' } });
    const resultAt: number[] = [];
    for (let i = 0; i < 3; i++) {
      await s.retainer.append({
        runId,
        event: { type: 'assistant', toolCalls: [{ id: `r${i}`, name: 'sh', arguments: { cmd: `cat ${i}` } }] },
      });
      // Over the policy's inline size, under the retention threshold: a body the policy turns into a reference.
      await s.retainer.retain({ runId, callId: `r${i}`, tool: 'sh', text: big(300, `file${i}`) });
      resultAt.push(3 + i * 2);
    }
    const plain = await s.inspection.usage({ runId });
    assert.ok(plain.modelCalls.slice(1).every((c) => c.breakAt === undefined));
    const usage = await s.inspection.usage({ runId, view: 'retained', policy: { keepRounds: 1, inlineMaxBytes: 256 } });
    const broken = usage.modelCalls.filter((c) => c.breakReason === 'reference');
    assert.ok(broken.length > 0, JSON.stringify(usage.modelCalls.map((c) => [c.breakAt, c.breakReason])));
    // The first result becomes a reference when its round is no longer the newest: the prefix breaks at its event.
    assert.equal(broken[0]!.breakAt, resultAt[0]);
    assert.ok(broken[0]!.parts.references > 0);
    assert.ok(broken[0]!.cache.read < usage.modelCalls[broken[0]!.modelCall - 2]!.total);
  });
});
