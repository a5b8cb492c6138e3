import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { CELL_MAX_BYTES, clip } from '../../server/src/core/inspection/rows';
import { FORMAT } from '../../server/src/core/inspection/runIndex';
import { searchRun } from '../../server/src/core/inspection/runSearch';
import { RetentionService } from '../../server/src/core/service';
import { readEventsFrom } from '../../server/src/core/store/transcript';
import { jsonStringBytes } from '../../server/src/core/text/sizes';
import type { TranscriptEvent } from '../../shared/events';
import { folderOf } from '../helpers/folderOf';
import { removeTempDirs, tempDir } from '../helpers/tmp';

const FIXTURES = join(__dirname, '../fixtures/transcripts');
const big = (n: number, tag = 'line') =>
  `${Array.from({ length: n }, (_, i) => `${tag} ${i + 1} ${'.'.repeat(40)}`).join('\n')}\n`;

async function service() {
  const s = new RetentionService(join(tempDir(), '.retained'));
  await s.init();
  return s;
}

/** user → assistant(2 calls) → big + small result → assistant(1 call) → result → assistant text → turn end. */
async function recordRun(s: RetentionService, runId = 'r') {
  await s.retainer.append({ runId: runId, event: { type: 'run_started', tools: ['read', 'grep', 'peek_value'] } });
  await s.retainer.append({ runId: runId, event: { type: 'user', text: 'Find the bug' } });
  await s.retainer.append({
    runId: runId,
    event: {
      type: 'assistant',
      text: 'Reading.',
      toolCalls: [
        { id: 'c1', name: 'read', arguments: { path: 'a.log' } },
        { id: 'c2', name: 'grep', arguments: { q: 'x' } },
      ],
    },
  });
  await s.retainer.retain({ runId, callId: 'c1', tool: 'read', text: big(2000), durationMs: 12 });
  await s.retainer.retain({ runId, callId: 'c2', tool: 'grep', text: 'small '.repeat(400), isError: true });
  await s.retainer.append({
    runId: runId,
    event: { type: 'assistant', toolCalls: [{ id: 'c3', name: 'read', arguments: { path: 'b.log' } }] },
  });
  await s.retainer.retain({ runId, callId: 'c3', tool: 'read', text: big(10, 'b') });
  await s.retainer.append({ runId: runId, event: { type: 'assistant', text: 'Done.' } });
  await s.retainer.append({ runId: runId, event: { type: 'turn_ended', stopReason: 'end_turn' } });
}

/** What the stub saves in a request body: the full tool_result block minus the stubbed one. */
function fullBlockBytes(stub: string): number {
  const block = (content: string) =>
    Buffer.byteLength(JSON.stringify({ type: 'tool_result', tool_use_id: 'c1', content }));
  return block(big(2000)) - block(stub);
}

describe('inspection', () => {
  after(removeTempDirs);

  it('clips a body to lines and bytes, keeping its full size', () => {
    const c = clip(Array.from({ length: 1000 }, (_, i) => `${i}`).join('\n'));
    assert.equal(c.lines, 1000);
    assert.equal(c.cut, true);
    assert.equal(c.text.split('\n').length, 200);
    const wide = clip(big(1000));
    assert.ok(wide.cut && Buffer.byteLength(wide.text) <= CELL_MAX_BYTES);
    const line = clip('x'.repeat(1_000_000));
    assert.equal(line.bytes, 1_000_000);
    assert.equal(Buffer.byteLength(line.text), CELL_MAX_BYTES);
    assert.deepEqual(clip('a\nb\n'), { text: 'a\nb\n', bytes: 4, lines: 2, cut: false });
  });

  it('measures a body as a JSON string without building it, exactly', () => {
    const anyUnit = fc.string({
      unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
      maxLength: 200,
    });
    fc.assert(fc.property(anyUnit, (text) => jsonStringBytes(text) === Buffer.byteLength(JSON.stringify(text))));
    const mixed = 'quote " backslash \\ tab \t cr \r nl \n bell \u0007 vt \u000b ü 😀 lone \ud800 end\n';
    assert.equal(jsonStringBytes(mixed.repeat(30_000)), Buffer.byteLength(JSON.stringify(mixed.repeat(30_000))));
  });

  it('counts a result over 1 MB in the figures exactly as its JSON would be', async () => {
    const s = await service();
    const text = `"quoted"\t\\ ${big(40_000)}`;
    await s.retainer.append({
      runId: 'r',
      event: { type: 'assistant', toolCalls: [{ id: 'c1', name: 'read', arguments: {} }] },
    });
    await s.retainer.retain({ runId: 'r', callId: 'c1', tool: 'read', text, isError: true });
    const { outline, rows } = await s.inspection.inspect({ runId: 'r', from: 0, limit: 10 });
    const block = (content: string) =>
      Buffer.byteLength(JSON.stringify({ type: 'tool_result', tool_use_id: 'c1', content, is_error: true }));
    const last = outline.modelCalls.at(-1)!;
    assert.ok(text.length > 1 << 20);
    assert.equal(last.bytesFull - last.bytesSent, block(text) - block(rows[1]!.model.text!.text));
  });

  it('puts each event beside what the next request sends for it: stubs for retained results, the rest verbatim', async () => {
    const s = await service();
    await recordRun(s);
    const { outline, rows, modelCall } = await s.inspection.inspect({ runId: 'r', from: 0, limit: 100 });
    assert.equal(rows.length, 9);
    assert.equal(modelCall, 4, 'three assistant events: the next model call is the 4th');
    assert.deepEqual(
      rows.map((r) => r.full.kind),
      [
        'run_started',
        'user',
        'assistant',
        'tool_result',
        'tool_result',
        'assistant',
        'tool_result',
        'assistant',
        'turn_ended',
      ],
    );
    assert.deepEqual(
      rows.map((r) => r.firstModelCall),
      [1, 1, 2, 2, 2, 3, 3, 4, 4],
    );
    const [started, user, assistant, bigResult, small, , , , ended] = rows;
    assert.equal(started!.model.sent, false);
    assert.equal(ended!.model.sent, false);
    assert.equal(user!.model.text!.text, 'Find the bug');
    assert.deepEqual(
      assistant!.model.calls!.map((c) => c.name),
      ['read', 'grep'],
    );
    assert.equal(bigResult!.full.valueId, 'c1');
    assert.equal(bigResult!.full.durationMs, 12);
    assert.equal(bigResult!.full.text!.lines, 2000);
    assert.equal(bigResult!.model.form, 'stub');
    assert.match(bigResult!.model.text!.text, /^\[retained #c1\] read result: /);
    assert.ok(bigResult!.model.savedBytes > 80_000);
    assert.equal(small!.model.form, 'verbatim');
    assert.equal(small!.full.isError, true);
    assert.equal(small!.model.savedBytes, 0);

    assert.equal(outline.events, 9);
    assert.equal(outline.toolCalls, 3);
    assert.equal(outline.errors, 1);
    assert.equal(outline.retained, 1);
    assert.deepEqual(
      outline.modelCalls.map((r) => r.cut),
      [2, 5, 7, 9],
    );
    // The only difference between full and sent is the big result, from request 2 on.
    const [r1, r2, r3, r4] = outline.modelCalls;
    assert.equal(r1!.bytesFull, r1!.bytesSent);
    assert.equal(r2!.bytesFull - r2!.bytesSent, fullBlockBytes(bigResult!.model.text!.text));
    assert.equal(r3!.bytesFull - r3!.bytesSent, fullBlockBytes(bigResult!.model.text!.text));
    assert.equal(r4!.bytesFull - r4!.bytesSent, fullBlockBytes(bigResult!.model.text!.text));
    assert.ok(r4!.tokensFull > r4!.tokensSent * 10);
    // The last is the next call, not made yet: the totals are of the calls made.
    assert.equal(outline.totals.bytesSent, r1!.bytesSent + r2!.bytesSent + r3!.bytesSent);
  });

  it('shows the history as an earlier request had it: later events not sent', async () => {
    const s = await service();
    await recordRun(s);
    const { rows, modelCall } = await s.inspection.inspect({ runId: 'r', modelCall: 2, from: 0, limit: 100 });
    assert.equal(modelCall, 2);
    assert.deepEqual(
      rows.map((r) => r.model.sent),
      [false, true, true, true, true, false, false, false, false],
    );
    const clamped = await s.inspection.inspect({ runId: 'r', modelCall: 99 });
    assert.equal(clamped.modelCall, 4);
    assert.equal(clamped.rows.length, 0, 'no limit: only the outline');
  });

  it('rows first: with figures false, the rows and counts come before a token is counted (no tokenizer loaded), the figures once known', async () => {
    const s = await service();
    await recordRun(s);
    const store = s.address;
    s.dispose();
    // A process of its own, as a server just started: the tokenizer's module is in its require cache once loaded.
    const script = `
      const { RetentionService } = require(${JSON.stringify(join(__dirname, '../../server/src/core/service'))});
      const loaded = () => Object.keys(require.cache).some((k) => k.includes('gpt-tokenizer'));
      (async () => {
        const s = new RetentionService(${JSON.stringify(store)});
        await s.init();
        const rowsFirst = await s.inspection.inspect({ runId: 'r', from: 0, limit: 100, figures: false });
        const before = loaded();
        const counted = await s.inspection.inspect({ runId: 'r', from: 0, limit: 100 });
        const after = loaded();
        const known = await s.inspection.inspect({ runId: 'r', from: 0, limit: 100, figures: false });
        console.log(JSON.stringify({ rowsFirst, before, counted, after, known }));
        s.dispose();
      })();`;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8' });
    const { rowsFirst, before, counted, after, known } = JSON.parse(out);
    assert.equal(before, false, 'the rows were answered without loading the tokenizer');
    assert.equal(after, true, 'the figures load it (so the probe sees a load)');
    assert.equal(rowsFirst.outline.totals, undefined);
    assert.equal(rowsFirst.outline.tokenizer, undefined);
    // The rows, the counts and each model call's place are the answer with figures, less the figures.
    assert.deepEqual(rowsFirst.rows, counted.rows);
    assert.equal(rowsFirst.modelCall, counted.modelCall);
    const { totals: _t, tokenizer: _k, modelCalls, ...counts } = counted.outline;
    const { modelCalls: places, ...countsFirst } = rowsFirst.outline;
    assert.deepEqual(countsFirst, counts);
    assert.deepEqual(
      places,
      modelCalls.map(({ modelCall, cut }: { modelCall: number; cut: number }) => ({ modelCall, cut })),
    );
    // Counted once, the figures come with the rows even when not waited for.
    assert.deepEqual(known, counted);
  });

  it('with the history policy, older bodies become references; viewing them writes nothing', async () => {
    const s = await service();
    await recordRun(s);
    const before = (await s.values.list({ runId: 'r' })).total;
    const { rows, outline, unwritten } = await s.inspection.inspect({ runId: 'r', policy: true, from: 0, limit: 100 });
    const [, , , bigResult, small, , last] = rows;
    assert.equal(bigResult!.model.form, 'stub', 'a stub is under inlineMaxBytes (1 KiB): it stays');
    assert.equal(small!.model.form, 'reference', 'a 2,400-byte result in an older round is over inlineMaxBytes');
    assert.match(small!.model.text!.text, /^\[retained #c2\] grep error: 2400 bytes, .*an earlier result/);
    assert.equal(last!.model.form, 'verbatim', 'the newest round stays intact');
    assert.equal((await s.values.list({ runId: 'r' })).total, before, 'the view wrote no value');
    assert.equal(unwritten, 1, 'c2 is named, and written only when a replay is sent');
    await s.history.replay({ runId: 'r', shape: 'anthropic', policy: true });
    assert.ok(
      (await s.values.list({ runId: 'r' })).values.some((v) => v.valueId === 'c2'),
      'a replay with the policy writes the value its reference names',
    );
    const plain = await s.inspection.inspect({ runId: 'r' });
    assert.ok(outline.totals.bytesSent < plain.outline.totals.bytesSent);
    // Request 2 has only one round: the policy keeps it intact.
    assert.equal(outline.modelCalls[1]!.bytesSent, plain.outline.modelCalls[1]!.bytesSent);
  });

  it('says a deleted run is gone rather than showing it empty', async () => {
    const s = await service();
    await recordRun(s);
    await s.inspection.inspect({ runId: 'r', from: 0, limit: 10 });
    await s.delete({ runId: 'r' });
    await assert.rejects(s.inspection.inspect({ runId: 'r' }), /no run "r" in the store: it was deleted/);
    await assert.rejects(s.inspection.search({ runId: 'r', query: 'x' }), /no run "r" in the store/);
  });

  it('refuses bad paging with the field named', async () => {
    const s = await service();
    await recordRun(s);
    await assert.rejects(
      s.inspection.inspect({ runId: 'r', from: -1 }),
      /params\.from must be a whole number of at least 0 \(got -1\)/,
    );
    await assert.rejects(
      s.inspection.inspect({ runId: 'r', limit: 501 }),
      /params\.limit must be a whole number from 0 to 500 \(got 501\)/,
    );
    await assert.rejects(
      s.inspection.inspect({ runId: 'r', modelCall: 0 }),
      /params\.modelCall must be a whole number of at least 1 \(got 0\)/,
    );
    await assert.rejects(s.inspection.inspect({ runId: '' } as never), /params\.runId must not be empty/);
  });

  it('sees a change to the run: the parsed copy is dropped', async () => {
    const s = await service();
    await recordRun(s);
    assert.equal((await s.inspection.inspect({ runId: 'r' })).outline.events, 9);
    await s.retainer.append({ runId: 'r', event: { type: 'user', text: 'more' } });
    assert.equal((await s.inspection.inspect({ runId: 'r' })).outline.events, 10);
  });

  it('follows a growing transcript by reading only what was appended, and starts over when it is replaced', async () => {
    const s = await service();
    await recordRun(s);
    const path = folderOf(s.store).transcriptPath('r');
    assert.equal((await s.inspection.inspect({ runId: 'r' })).outline.events, 9);
    // A line still being written (no newline yet) is not read; once ended, it is.
    appendFileSync(path, JSON.stringify({ type: 'user', text: 'half' }).slice(0, 10));
    await s.retainer.append({ runId: 'r', event: { type: 'user', text: 'after a torn line' } });
    const caughtUp = await s.inspection.inspect({ runId: 'r', from: 9, limit: 10 });
    assert.equal(caughtUp.outline.events, 10);
    assert.equal(caughtUp.skipped, 1, 'the torn line is reported once it is ended');
    assert.equal(caughtUp.rows[0]!.full.text!.text, 'after a torn line');
    // The run deleted and recorded again: read from the start, not from the old offset.
    await s.delete({ runId: 'r' });
    await s.retainer.append({ runId: 'r', event: { type: 'user', text: 'a new run' } });
    const replaced = await s.inspection.inspect({ runId: 'r', from: 0, limit: 10 });
    assert.equal(replaced.outline.events, 1);
    assert.equal(replaced.rows[0]!.full.text!.text, 'a new run');
  });

  it('reads a transcript from a byte offset: complete lines only, numbered on', async () => {
    const dir = tempDir();
    const path = join(dir, 't.jsonl');
    writeFileSync(
      path,
      `${JSON.stringify({ type: 'user', text: 'ü one' })}\nnot json\n${JSON.stringify({ type: 'user', text: 'two' })}\n{"type":"us`,
    );
    const first = await readEventsFrom(dir, path);
    assert.deepEqual(
      first.events.map((e) => e.type === 'user' && e.text),
      ['ü one', 'two'],
    );
    assert.deepEqual(
      first.skipped.map((k) => k.line),
      [2],
    );
    assert.equal(first.lines, 3);
    appendFileSync(path, 'er","text":"three"}\n');
    const next = await readEventsFrom(dir, path, first.end, first.lines);
    assert.deepEqual(
      next.events.map((e) => e.type === 'user' && e.text),
      ['three'],
    );
    assert.equal(next.end, readFileSync(path).length);
  });

  it('aligns every event of real Claude Code and Codex sessions with the replay (with Retained Outputs)', async () => {
    for (const file of [
      'claude-code_spotter_tool_heavy.jsonl',
      'codex_rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl',
    ]) {
      const s = await service();
      const { runId } = await s.importer.import({ path: join(FIXTURES, file) });
      const { outline } = await s.inspection.inspect({ runId, view: 'retained' });
      const rows = [];
      for (let from = 0; from < outline.events; from += 500)
        rows.push(...(await s.inspection.inspect({ runId, from, limit: 500, view: 'retained' })).rows);
      assert.equal(rows.length, outline.events, file);
      for (const row of rows) {
        if (row.full.kind === 'user' || row.full.kind === 'assistant' || row.full.kind === 'tool_result') {
          assert.equal(row.model.sent, true, `${file}: event ${row.index} (${row.full.kind}) is in the replay`);
        }
        if (row.full.kind === 'tool_result')
          assert.equal(row.model.form, row.full.valueId ? 'stub' : 'verbatim', `${file}: event ${row.index}`);
      }
      const last = outline.modelCalls.at(-1)!;
      assert.ok(last.bytesSent <= last.bytesFull, file);
    }
  });
});

describe('run search', () => {
  const events: TranscriptEvent[] = [
    { type: 'user', text: 'Why does Build fail?' },
    { type: 'assistant', text: 'Looking.', toolCalls: [{ id: 'c1', name: 'sh', arguments: { cmd: 'npm run build' } }] },
    {
      type: 'tool_call_finished',
      callId: 'c1',
      tool: 'sh',
      result: `${big(50_000)}error: build failed\nerror again, build\n`,
    },
  ];
  const noValues = async () => ({ lines: [], total: 0 });
  const search = (query: string, options = {}) => searchRun(events, query, options, noValues);

  it('finds every matching line with its event, body and line number', async () => {
    const r = await search('build');
    assert.deepEqual(
      r.hits.map((h) => [h.index, h.where, h.line]),
      [
        [1, 'arguments', 2],
        [2, 'result', 50_001],
        [2, 'result', 50_002],
      ],
    );
    assert.equal(r.hits[1]!.preview, 'error: build failed');
    assert.equal(r.hits[0]!.callId, 'c1');
    assert.equal((await search('build', { ignoreCase: true })).total, 4);
  });

  it('counts a line once however often it matches, and takes regular expressions', async () => {
    assert.equal((await search('.', { regex: true })).hits.filter((h) => h.index === 0).length, 1);
    assert.deepEqual(
      (await search('^error', { regex: true })).hits.map((h) => h.line),
      [50_001, 50_002],
    );
    assert.equal((await search('line 7 ')).total, 1);
  });

  it('refuses an empty query and a bad expression, saying which', async () => {
    await assert.rejects(search(''), /query must not be empty/);
    await assert.rejects(search('(', { regex: true }), /not a valid regular expression/);
  });

  it('searches results kept in values, in their files', async () => {
    const s = await service();
    await recordRun(s);
    const found = await s.inspection.search({ runId: 'r', query: 'line 1999 ' });
    assert.deepEqual(
      found.hits.map((h) => [h.index, h.where, h.line, h.callId]),
      [[3, 'result', 1999, 'c1']],
    );
    assert.match(found.hits[0]!.preview, /^line 1999 \.{40}$/);
  });
});

describe('run index', () => {
  after(removeTempDirs);

  /** A run of 150 events past the first page: the recorded run, then questions and answers. */
  async function recordLongRun(s: RetentionService) {
    await recordRun(s);
    for (let i = 0; i < 70; i++) {
      await s.retainer.append({ runId: 'r', event: { type: 'user', text: `Question ${i}?` } });
      await s.retainer.append({ runId: 'r', event: { type: 'assistant', text: `Answer ${i}.` } });
    }
  }

  const asks = [
    { runId: 'r', limit: 0 },
    { runId: 'r', from: 0, limit: 100 },
    { runId: 'r', from: 0, limit: 100, policy: true },
    { runId: 'r', from: 0, limit: 100, view: 'retained' as const },
    { runId: 'r', from: 40, limit: 20 },
    { runId: 'r', from: 100, limit: 100 },
    { runId: 'r', from: 0, limit: 100, modelCall: 2 },
  ];

  it('a restarted server opens a run from its index and answers exactly as from the run itself', async () => {
    const first = await service();
    await recordLongRun(first);
    const expected = [];
    for (const ask of asks) expected.push(await first.inspection.inspect(ask));
    await first.inspection.indexes.flush();
    const index = readFileSync(folderOf(first.store).runIndexPath('r'), 'utf8');
    assert.match(index, new RegExp(`^[0-9a-f]{64}\\n\\{"format":${FORMAT},`));
    // Each question asked first of a fresh server (from the index when it holds it), then again.
    for (const [i, ask] of asks.entries()) {
      const fresh = new RetentionService(folderOf(first.store).root);
      await fresh.init();
      assert.deepEqual(await fresh.inspection.inspect(ask), expected[i], JSON.stringify(ask));
      assert.deepEqual(await fresh.inspection.inspect(ask), expected[i], JSON.stringify(ask));
    }
  });

  it('is used only while it matches the run: an appended event, a deleted value or a torn index rebuild it', async () => {
    const first = await service();
    await recordRun(first);
    const asked = { runId: 'r', from: 0, limit: 100 };
    const truth = await first.inspection.inspect(asked);
    await first.inspection.indexes.flush();
    const path = folderOf(first.store).runIndexPath('r');
    const fresh = async () => {
      const s = new RetentionService(folderOf(first.store).root);
      await s.init();
      return s.inspection.inspect(asked);
    };
    // A figure changed in the index (its hash made right) shows: the answer came from the index.
    const body = JSON.parse(readFileSync(path, 'utf8').split('\n')[1]!);
    body.outlines['sent:none'].totals.tokensSent = 123_456_789;
    const forged = JSON.stringify(body);
    const { createHash } = await import('node:crypto');
    writeFileSync(path, `${createHash('sha256').update(forged).digest('hex')}\n${forged}`);
    assert.equal((await fresh()).outline.totals.tokensSent, 123_456_789);
    // The same bytes with a wrong hash (a torn or edited file) are not trusted.
    writeFileSync(path, `${'0'.repeat(64)}\n${forged}`);
    assert.deepEqual(await fresh(), truth);
    // An event appended since: the run as it is now.
    writeFileSync(path, `${createHash('sha256').update(forged).digest('hex')}\n${forged}`);
    await first.retainer.append({ runId: 'r', event: { type: 'user', text: 'One more.' } });
    const grown = await fresh();
    assert.equal(grown.outline.events, truth.outline.events + 1);
    assert.notEqual(grown.outline.totals.tokensSent, 123_456_789);
  });

  it('a value deleted by hand makes the index stale: the row says the value is gone', async () => {
    const first = await service();
    await recordRun(first);
    const asked = { runId: 'r', from: 0, limit: 100 };
    await first.inspection.inspect(asked);
    await first.inspection.indexes.flush();
    const { rmSync } = await import('node:fs');
    rmSync(folderOf(first.store).values.path('r', 'c1'), { force: true });
    const fresh = new RetentionService(folderOf(first.store).root);
    await fresh.init();
    const answer = await fresh.inspection.inspect(asked);
    const row = answer.rows.find((r) => r.full.kind === 'tool_result' && r.full.callId === 'c1')!;
    assert.match((row.full as { text: { text: string } }).text.text, /deleted from the store/);
    assert.equal(answer.outline.retained, 0);
  });
});

describe('run index of an imported session', () => {
  after(removeTempDirs);

  it('both views of a real session side by side: the history policy applies to ours, never to what the agent sent', async () => {
    const dir = join(__dirname, '../fixtures/claude-code/hook-read-grep-glob/project');
    const { readdirSync } = await import('node:fs');
    const s = await service();
    const { runId } = await s.importer.import({ path: join(dir, readdirSync(dir).find((f) => f.endsWith('.jsonl'))!) });
    const figures = async (view: 'sent' | 'retained', policy: boolean) => {
      const { outline, compare } = await s.inspection.inspect({ runId, view, policy });
      assert.ok(compare, 'an imported run answers with the other view');
      assert.equal(compare.view, view === 'sent' ? 'retained' : 'sent');
      const theirs = view === 'sent' ? outline.totals : compare.totals;
      const ours = view === 'sent' ? compare.totals : outline.totals;
      return { theirs: theirs.tokensSent, ours: ours.tokensSent };
    };
    const plain = await figures('sent', false);
    assert.deepEqual(await figures('retained', false), plain, 'one baseline, the same two numbers in either view');
    const withPolicy = await figures('retained', true);
    assert.equal(withPolicy.theirs, plain.theirs, 'what Claude Code sent does not change');
    assert.ok(withPolicy.ours < plain.ours * 0.9, `the policy sends less: ${withPolicy.ours} < ${plain.ours}`);
    assert.deepEqual(await figures('sent', true), withPolicy);
  });

  it('is written after the import, so the first open reads it (a real Claude Code session with subagents)', async () => {
    const dir = join(__dirname, '../fixtures/claude-code/subagent/project');
    const { readdirSync, existsSync } = await import('node:fs');
    const path = join(dir, readdirSync(dir).find((f) => f.endsWith('.jsonl'))!);
    const s = await service();
    const result = await s.importer.import({ path });
    const runIds = [result.runId, ...result.subagents.map((r) => r.runId)];
    // Made after the answer, one run at a time.
    for (
      let waited = 0;
      waited < 10_000 && !runIds.every((id) => existsSync(folderOf(s.store).runIndexPath(id)));
      waited += 20
    )
      await new Promise((resolve) => setTimeout(resolve, 20));
    assert.ok(runIds.length > 1);
    for (const runId of runIds) {
      assert.ok(existsSync(folderOf(s.store).runIndexPath(runId)), runId);
      const fresh = new RetentionService(folderOf(s.store).root);
      await fresh.init();
      const fromIndex = await fresh.inspection.inspect({ runId, from: 0, limit: 100 });
      assert.deepEqual(fromIndex, await s.inspection.inspect({ runId, from: 0, limit: 100 }));
    }
  });
});

describe('tokens of a streamed result', () => {
  after(removeTempDirs);

  it('are not counted when it is stored (no tokenizer in a command line) but when figures are shown, as a text retained whole counts them', async () => {
    const s = await service();
    const text = big(3000, 'out');
    for (const [runId, streamed] of [
      ['streamed', true],
      ['whole', false],
    ] as const) {
      await s.retainer.append({ runId, event: { type: 'run_started', tools: ['bash', 'peek_value'] } });
      await s.retainer.append({ runId, event: { type: 'user', text: 'Run it' } });
      await s.retainer.append({
        runId,
        event: { type: 'assistant', toolCalls: [{ id: 'c1', name: 'bash', arguments: { command: 'make' } }] },
      });
      const call = { runId, callId: 'c1', tool: 'bash', arguments: { command: 'make' } };
      if (streamed)
        await s.retainer.retainStream(call, [Buffer.from(text.slice(0, 5000)), Buffer.from(text.slice(5000))]);
      else await s.retainer.retain({ ...call, text });
    }
    const events = (runId: string) =>
      readEventsFrom(folderOf(s.store).root, folderOf(s.store).transcriptPath(runId)).then((r) => r.events);
    const result = (runId: string) =>
      events(runId).then((all) => all.find((e) => e.type === 'tool_call_finished')!) as Promise<{ tokens?: number }>;
    assert.equal((await result('streamed')).tokens, undefined);
    assert.ok(((await result('whole')).tokens ?? 0) > 0);
    const figures = async (runId: string) => (await s.inspection.inspect({ runId })).outline.totals;
    assert.deepEqual(await figures('streamed'), await figures('whole'));
    const stats = async (runId: string) =>
      (await s.history.replay({ runId, shape: 'anthropic', stats: true })) as { stats?: unknown };
    assert.deepEqual((await stats('streamed')).stats, (await stats('whole')).stats);
  });
});

describe('run index of a run written to', () => {
  after(removeTempDirs);

  it('is brought up to date once the run has been quiet a while, in a server that watches the store', async () => {
    const root = join(tempDir(), '.retained');
    const s = new RetentionService(root, { indexDelayMs: 100 });
    await s.init();
    s.watch();
    try {
      await recordRun(s);
      const path = folderOf(s.store).runIndexPath('r');
      const { existsSync } = await import('node:fs');
      for (let waited = 0; !existsSync(path) && waited < 5000; waited += 50)
        await new Promise((resolve) => setTimeout(resolve, 50));
      assert.ok(existsSync(path), 'the index is written');
      // It is the run as it is: a fresh server answers from it what the run itself gives.
      const fresh = new RetentionService(root);
      await fresh.init();
      const asked = { runId: 'r', from: 0, limit: 100 };
      assert.deepEqual(await fresh.inspection.inspect(asked), await s.inspection.inspect(asked));
    } finally {
      s.dispose();
    }
  });
});

describe('run index of the newest runs', () => {
  after(removeTempDirs);

  it('is made a while after a server starts for runs that have none (written where no server watched)', async () => {
    const root = join(tempDir(), '.retained');
    const writer = new RetentionService(root);
    await writer.init();
    await recordRun(writer, 'a');
    await recordRun(writer, 'b');
    const { existsSync } = await import('node:fs');
    assert.ok(
      !existsSync(folderOf(writer.store).runIndexPath('a')) && !existsSync(folderOf(writer.store).runIndexPath('b')),
    );
    const server = new RetentionService(root, { indexDelayMs: 50 });
    await server.init();
    server.watch();
    try {
      const both = () => ['a', 'b'].every((runId) => existsSync(folderOf(server.store).runIndexPath(runId)));
      for (let waited = 0; !both() && waited < 5000; waited += 50)
        await new Promise((resolve) => setTimeout(resolve, 50));
      assert.ok(both(), 'both runs indexed');
    } finally {
      server.dispose();
    }
  });
});

describe('run index format', () => {
  after(removeTempDirs);

  it('changes with what it keeps: a change to the outline, the first page or usage bumps FORMAT (old indexes rebuilt)', async () => {
    const { FORMAT } = await import('../../server/src/core/inspection/runIndex');
    const { createHash } = await import('node:crypto');
    const s = await service();
    await recordRun(s);
    const kept = [];
    for (const policy of [false, true]) {
      const { outline, rows } = await s.inspection.inspect({ runId: 'r', from: 0, limit: 100, policy });
      kept.push(
        outline,
        rows.map((r) => [r.firstModelCall, r.model]),
        // From FORMAT 3 the index keeps usage's counts too: what they give is part of it.
        FORMAT >= 3 ? await s.inspection.usage({ runId: 'r', policy }) : undefined,
      );
    }
    const digest = createHash('sha256').update(JSON.stringify(kept)).digest('hex').slice(0, 16);
    // What each FORMAT keeps for this run. If rows.ts now computes something else, an index written by
    // an older version would show old figures: bump FORMAT in runIndex.ts and record the new digest.
    const KEPT: Record<number, string> = {
      1: 'db9fa15d8602559f',
      2: 'e322d3f345852465',
      3: '41cf5e67b0b9edfb',
      4: 'c3509125d69fadb7',
      // 5 keeps usage's answers as well: the same figures.
      5: 'c3509125d69fadb7',
    };
    assert.equal(digest, KEPT[FORMAT], `FORMAT ${FORMAT}: ${digest}`);
  });
});
