import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RetentionService, type ServiceOptions } from '../../server/src/core/service';
import { WITHHELD_NOTICE } from '../../server/src/core/withhold/notice';
import { SecretGuard, SecretScan } from '../../server/src/core/withhold/secrets';
import { folderOf } from '../helpers/folderOf';
import { removeTempDirs, tempDir } from '../helpers/tmp';

async function service(options: ServiceOptions = {}) {
  const s = new RetentionService(join(tempDir(), '.retained'), options);
  await s.init();
  return s;
}

const auditOf = (s: RetentionService) =>
  readFileSync(join(folderOf(s.store).root, 'audit.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

const REASON = 'policy: receipts of the deploy tool';

describe('results a guard withholds', () => {
  after(removeTempDirs);

  it('writes each original to its own file, named by batch and index before the id; the model gets the notice and the place only', async () => {
    const s = await service();
    const results = [
      { callId: 'one', tool: 'deploy', text: 'first original\n', reason: REASON },
      { callId: 'one', tool: 'deploy', text: 'second original, same id\n', reason: REASON },
      { callId: `${'x'.repeat(75)}a`, tool: 'deploy', text: 'alike A\n' },
      { callId: `${'x'.repeat(75)}b`, tool: 'deploy', text: 'alike B\n' },
    ];
    const first = await s.withholder.withhold({ runId: 'r', results });
    const second = await s.withholder.withhold({ runId: 'r', results });
    assert.match(first.batch, /^[0-9a-f]{12}$/);
    assert.notEqual(first.batch, second.batch);
    const files = [...first.results, ...second.results].map((r) => r.file!);
    assert.equal(new Set(files).size, 8, 'no two results share a file');
    for (const [i, r] of [...first.results, ...second.results].entries()) {
      const batch = i < 4 ? first.batch : second.batch;
      assert.equal(r.outcome, 'written');
      assert.match(r.file!, new RegExp(`^withheld/\\d{4}-\\d{2}-\\d{2}-withheld-${batch}-${i % 4}-`));
      assert.ok(r.file!.length <= 'withheld/'.length + 80, 'the name is at most 80 characters');
      assert.equal(readFileSync(join(folderOf(s.store).root, r.file!), 'utf8'), results[i % 4]!.text);
      assert.ok(r.content.startsWith(WITHHELD_NOTICE));
      assert.ok(r.content.includes(r.file!), 'the notice names the file');
      assert.doesNotMatch(r.content, /policy|receipt|deploy tool|reason/i, 'no reason, no category');
    }
    // The transcript holds the notice as the result, and where the original went.
    const { events } = await s.transcript({ runId: 'r' });
    const last = events.at(-1)!;
    assert.ok(last.type === 'tool_call_finished');
    assert.equal(last.result, second.results[3]!.content);
    assert.deepEqual(last.withheld, { outcome: 'written', file: second.results[3]!.file });
    // The audit: each result withheld (with its reason) then written.
    const audit = auditOf(s);
    assert.equal(audit.length, 16);
    assert.deepEqual(
      audit.slice(0, 2).map((r) => [r.event, r.callId, r.reason, r.index]),
      [
        ['withheld', 'one', REASON, 0],
        ['written', 'one', undefined, 0],
      ],
    );
  });

  it('a write held past a shortened deadline is unfinished; the rest of the batch answers at once and is written after; the audit never holds an output', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const s = await service({ withhold: { beforeWrite: () => held } });
    // The write is held until release() below: an answer at all is one that did not wait for it.
    const { results } = await s.withholder.withhold({
      runId: 'r',
      deadlineMs: 200,
      results: [
        { callId: 'slow', tool: 't', text: 'the slow original\n' },
        { callId: 'after', tool: 't', text: 'the one after\n' },
      ],
    });
    assert.deepEqual(
      results.map((r) => r.outcome),
      ['unfinished', 'unfinished'],
    );
    for (const r of results)
      assert.match(r.content, /was still being written to withheld\/.*\.txt .* when the time for it ran out/);
    assert.equal(existsSync(join(folderOf(s.store).root, results[0]!.file!)), false, 'not written yet');
    release();
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(readFileSync(join(folderOf(s.store).root, results[0]!.file!), 'utf8'), 'the slow original\n');
    assert.equal(readFileSync(join(folderOf(s.store).root, results[1]!.file!), 'utf8'), 'the one after\n');
    const audit = auditOf(s);
    assert.deepEqual(
      audit.slice(0, 4).map((r) => [r.event, r.callId]),
      [
        ['withheld', 'slow'],
        ['unfinished', 'slow'],
        ['withheld', 'after'],
        ['unfinished', 'after'],
      ],
    );
    assert.deepEqual(
      audit
        .slice(4)
        .map((r) => [r.event, r.callId, r.outcome])
        .sort(),
      [
        ['settled', 'after', 'written'],
        ['settled', 'slow', 'written'],
      ],
      'every outcome, the late ones last',
    );
    assert.ok(
      !readFileSync(join(folderOf(s.store).root, 'audit.jsonl'), 'utf8').includes('original'),
      'no output in the audit log',
    );
  });

  it('retained/retain takes a result as withheld; the secret guard withholds secrets when on, streamed too', async () => {
    const s = await service();
    const key = 'AKIAIOSFODNN7EXAMPLE';
    const asked = await s.retainer.retain({ runId: 'r', callId: 'c1', tool: 'Bash', text: 'fine', withheld: {} });
    assert.equal(asked.withheld?.outcome, 'written');
    const off = await s.retainer.retain({ runId: 'r', callId: 'c2', tool: 'Bash', text: `aws ${key}` });
    assert.equal(off.content, `aws ${key}`, 'the guard is off by default');

    s.updateSettings({ guard: { secrets: true } });
    const on = await s.retainer.retain({ runId: 'r', callId: 'c3', tool: 'Bash', text: `aws ${key}` });
    assert.equal(on.withheld?.outcome, 'written');
    assert.ok(!on.content.includes(key) && !/AWS|secret/i.test(on.content));
    const pem = ['log line', '-----BEGIN RSA PRIVATE KEY-----', 'MIIEow…', '-----END RSA PRIVATE KEY-----'].join('\n');
    // A key split between two pieces of a stream is still found.
    const pieces = ['x'.repeat(30_000), pem.slice(0, 20), pem.slice(20), '\nmore output\n'].map((p) => Buffer.from(p));
    const streamed = await s.retainer.retainStream({ runId: 'r', callId: 'c4', tool: 'Bash' }, pieces);
    assert.equal(streamed.withheld?.outcome, 'written');
    assert.equal(readFileSync(join(folderOf(s.store).root, streamed.withheld!.file!), 'utf8'), pieces.join(''));
    const reasons = auditOf(s)
      .filter((r) => r.event === 'withheld')
      .map((r) => r.reason);
    assert.deepEqual(reasons, [
      undefined,
      'the secret guard found an AWS access key',
      'the secret guard found a private key',
    ]);
    s.updateSettings({ guard: { secrets: true, patterns: ['internal-[0-9]{6}'] } });
    const own = await s.retainer.retain({ runId: 'r', callId: 'c5', tool: 'Bash', text: 'ticket internal-123456' });
    assert.equal(own.withheld?.outcome, 'written');
    assert.equal(readdirSync(join(folderOf(s.store).root, 'withheld')).length, 4);
  });

  it("an editor opens a withheld original by its event's index, or by its name; the server resolves it, never the client", async () => {
    const s = await service();
    await s.retainer.retain({ runId: 'r', callId: 'c1', tool: 'Bash', text: 'plain' });
    const held = await s.retainer.retain({
      runId: 'r',
      callId: 'c2',
      tool: 'Bash',
      text: 'the original',
      withheld: {},
    });
    const { events } = await s.transcript({ runId: 'r' });
    const index = events.findIndex((e) => e.type === 'tool_call_finished' && e.callId === 'c2');
    const byEvent = await s.valueFile({ runId: 'r', event: index });
    assert.equal(readFileSync(fileURLToPath(byEvent.uri), 'utf8'), 'the original');
    assert.equal(byEvent.bytes, 'the original'.length);
    assert.equal(`withheld/${byEvent.valueId}.txt`, held.withheld!.file);
    assert.deepEqual(await s.valueFile({ valueId: byEvent.valueId }), byEvent);
    const plain = events.findIndex((e) => e.type === 'tool_call_finished' && e.callId === 'c1');
    await assert.rejects(s.valueFile({ runId: 'r', event: plain }), /event \d+ of run r has no withheld original/);
    await assert.rejects(s.valueFile({ runId: 'r' }), /needs valueId, or runId and event/);
    await assert.rejects(s.valueFile({ valueId: '2026-01-01-withheld-0123456789ab-0-gone' }), /no withheld original/);
  });

  it('a user pattern matches anywhere on a line, however long; and in a stream split anywhere', () => {
    const guard = new SecretGuard(['INTERNAL-[0-9]{6}']);
    for (const at of [0, 4090, 4100, 70_000, 1_000_000]) {
      const line = `${'x'.repeat(at)}INTERNAL-123456${'y'.repeat(500)}`;
      assert.equal(guard.find(`first\n${line}\nlast`), 'retained.guard.patterns[0]', `at column ${at}`);
      for (const cut of [at + 3, at + 9, Math.floor(at / 2) + 1]) {
        const scan = new SecretScan(guard);
        scan.push(line.slice(0, cut));
        scan.push(line.slice(cut));
        assert.equal(scan.found, 'retained.guard.patterns[0]', `at column ${at}, split at ${cut}`);
      }
    }
    assert.equal(guard.find(`${'x'.repeat(100_000)}INTERNAL-12345`), undefined, 'no match, no withholding');
  });

  it('peek_value reads a withheld original only when the setting allows it', async () => {
    const s = await service();
    const { results } = await s.withholder.withhold({
      runId: 'r',
      results: [{ callId: 'c', tool: 't', text: 'line one\nline two\n' }],
    });
    const name = results[0]!.file!.slice('withheld/'.length, -'.txt'.length);
    assert.doesNotMatch(results[0]!.content, /peek_value/);
    await assert.rejects(s.values.peek({ valueId: name, start: 1 }), /reading it through peek_value is off/);
    s.updateSettings({ guard: { peekOriginals: true } });
    assert.equal((await s.values.peek({ valueId: name, start: 1 })).text, '1: line one\n2: line two');
    const next = await s.withholder.withhold({ runId: 'r', results: [{ callId: 'd', tool: 't', text: 'x' }] });
    assert.match(next.results[0]!.content, /peek_value reads it: \{"id":"\d{4}-\d{2}-\d{2}-withheld-/);
    await assert.rejects(
      s.values.peek({ valueId: '2026-01-01-withheld-000000000000-0-nope', start: 1 }),
      /no withheld original/,
    );
  });

  it('refuses bad input naming the field', async () => {
    const s = await service();
    await assert.rejects(s.withholder.withhold({ runId: 'r', results: [] }), /params\.results/);
    await assert.rejects(
      s.withholder.withhold({ runId: 'r', results: [{ callId: 'c', tool: 't', text: 'x', why: 'no' } as never] }),
      /why/,
    );
    await assert.rejects(
      s.withholder.withhold({ runId: 'r', deadlineMs: 60_000, results: [{ callId: 'c', tool: 't', text: 'x' }] }),
      /deadlineMs/,
    );
  });
});
