import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { RetentionService } from '../../server/src/core/service';
import { sanitizeId } from '../../shared/ids';
import { folderOf } from '../helpers/folderOf';
import { makeReadOnly, makeWritable, removeTempDirs, tempDir } from '../helpers/tmp';

const big = (n: number, tag = 'line') =>
  `${Array.from({ length: n }, (_, i) => `${tag} ${i + 1} ${'.'.repeat(40)}`).join('\n')}\n`;

async function service(settings = {}) {
  const root = join(tempDir(), '.retained');
  const s = new RetentionService(root, settings);
  await s.init();
  return s;
}

describe('retention', () => {
  after(removeTempDirs);

  it('keeps a result at or under the threshold verbatim, and still logs it in full', async () => {
    const s = await service();
    const text = 'x'.repeat(20480);
    const r = await s.retainer.retain({ runId: 'r1', callId: 'c1', tool: 'read', text });
    assert.equal(r.retained, false);
    assert.equal(r.content, text);
    const { events } = await s.transcript({ runId: 'r1' });
    assert.equal(events[0]!.type === 'tool_call_finished' && events[0]!.result, text);
  });

  it('names a value by what its call worked on; a file read gets no error landmarks from its code', async () => {
    const s = await service();
    const text = `${big(300)}  {:error, reason} -> raise "error: #{reason}"\n${big(300, 'more')}`;
    const read = await s.retainer.retain({
      runId: 'r1',
      callId: 'read',
      tool: 'Read',
      text,
      arguments: { file_path: '/repo/lib/session_live.ex' },
    });
    const ran = await s.retainer.retain({
      runId: 'r1',
      callId: 'ran',
      tool: 'Bash',
      text,
      arguments: { command: 'cat lib/session_live.ex', description: 'Show it' },
    });
    assert.doesNotMatch(read.content, /error/i, 'the read names no error line');
    assert.match(ran.content, /Landmarks: error at line 301/, 'the command output keeps its landmark');
    const subjects = Object.fromEntries(
      (await s.values.list({ runId: 'r1' })).values.map((v) => [v.valueId, v.subject]),
    );
    assert.deepEqual(subjects, {
      read: { text: '/repo/lib/session_live.ex', isFile: true },
      ran: { text: 'cat lib/session_live.ex', isFile: false },
    });
  });

  it('retains a result over the threshold: a byte-identical file, a stub, and an event that names the value', async () => {
    const s = await service();
    const text = `${big(1000)}ünïcödé 😀\n`;
    const r = await s.retainer.retain({
      runId: 'r1',
      callId: 'toolu_01',
      tool: 'read_file',
      text,
      arguments: { path: 'x' },
    });
    assert.equal(r.retained, true);
    assert.equal(r.valueId, 'toolu_01');
    assert.match(r.content, /^\[retained #toolu_01\] read_file result: /);
    assert.ok(Buffer.byteLength(r.content) < 2048);
    assert.equal(readFileSync(fileURLToPath(r.uri!), 'utf8'), text);
    const { events } = await s.transcript({ runId: 'r1' });
    const e = events[0]!;
    assert.ok(e.type === 'tool_call_finished');
    assert.equal(e.result, undefined, 'the result lives in its value, not in the transcript');
    assert.equal(e.valueId, 'toolu_01');
    assert.equal(e.stub, r.content, 'the event keeps the stub the model got');
    assert.equal(e.bytes, Buffer.byteLength(text));
    assert.equal(e.lines, 1001);
    assert.ok(e.jsonBytes! > e.bytes! && e.tokens! > 0);
    assert.equal(existsSync(join(folderOf(s.store).root, '.gitignore')), true);
    assert.equal(readFileSync(join(folderOf(s.store).root, '.gitignore'), 'utf8'), '*\n');
  });

  it('does not retain when the run does not offer peek_value', async () => {
    const s = await service();
    await s.retainer.append({ runId: 'r1', event: { type: 'run_started', tools: ['read_file'] } });
    const r = await s.retainer.retain({ runId: 'r1', callId: 'c', tool: 'read_file', text: big(1000) });
    assert.equal(r.retained, false);
    assert.equal(r.content, big(1000));
  });

  it('falls back to the verbatim result with a warning when the store cannot be written', async () => {
    const s = await service();
    await s.retainer.append({ runId: 'r1', event: { type: 'user', text: 'hi' } });
    makeReadOnly(folderOf(s.store).runsDir);
    try {
      const r = await s.retainer.retain({ runId: 'r1', callId: 'c', tool: 'bash', text: big(1000) });
      assert.equal(r.retained, false);
      assert.equal(r.content, big(1000));
      assert.match(r.warning!, /kept verbatim: the value could not be written/);
      assert.equal(existsSync(folderOf(s.store).valuesDir('r1')), false);
    } finally {
      makeWritable(folderOf(s.store).runsDir);
    }
  });

  it('gives a reused call id a new file, so the first stub still points at what it showed', async () => {
    const s = await service();
    const a = await s.retainer.retain({ runId: 'r1', callId: 'dup', tool: 't', text: big(1000, 'first') });
    const b = await s.retainer.retain({ runId: 'r1', callId: 'dup', tool: 't', text: big(1000, 'second') });
    assert.notEqual(a.valueId, b.valueId);
    assert.equal(readFileSync(fileURLToPath(a.uri!), 'utf8'), big(1000, 'first'));
    assert.equal(readFileSync(fileURLToPath(b.uri!), 'utf8'), big(1000, 'second'));
  });

  it('peeks by the id the stub shows, or by the raw call id', async () => {
    const s = await service();
    const r = await s.retainer.retain({ runId: 'r1', callId: 'call/../7', tool: 't', text: big(1000) });
    assert.equal(r.valueId, sanitizeId('call/../7'));
    const byStub = await s.values.peek({ valueId: r.valueId!, start: 2, end: 2 });
    const byRaw = await s.values.peek({ valueId: 'call/../7', start: 2, end: 2 });
    assert.equal(byStub.text, `2: line 2 ${'.'.repeat(40)}`);
    assert.deepEqual(byRaw, byStub);
    assert.deepEqual(readdirSync(folderOf(s.store).runsDir).sort(), ['r1.jsonl', 'r1.meta.json', 'r1.values']);
  });

  it('lists known ids for an unknown one, and asks for runId when an id is in several runs', async () => {
    const s = await service();
    await s.retainer.retain({ runId: 'r1', callId: 'same', tool: 't', text: big(1000) });
    await assert.rejects(s.values.peek({ valueId: 'nope' }), /no retained value "nope"; known ids: same/);
    await s.retainer.retain({ runId: 'r2', callId: 'same', tool: 't', text: big(1000) });
    await assert.rejects(s.values.peek({ valueId: 'same' }), /is in several runs \((r1, r2|r2, r1)\): pass runId/);
    assert.equal((await s.values.peek({ valueId: 'same', runId: 'r2', start: 1, end: 1 })).runId, 'r2');
  });

  it('rejects bad input naming the field', async () => {
    const s = await service();
    await assert.rejects(
      s.retainer.retain({ runId: '', callId: 'c', tool: 't', text: '' }),
      /params\.runId must not be empty/,
    );
    await assert.rejects(
      s.retainer.retain({ runId: 'r', callId: 'c', tool: 't', text: 5 as unknown as string }),
      /text must be a string/,
    );
    await assert.rejects(
      s.retainer.append({ runId: 'r', event: { type: 'tool_call_finished', callId: 'c', tool: 't', result: '' } }),
      /recorded by retained\/retain/,
    );
    await assert.rejects(
      s.history.replay({ runId: 'r', shape: 'xml' as never }),
      /shape must be one of "text", "structured", "anthropic", "openai-chat", "openai-responses"/,
    );
  });

  it('deletes a value or a whole run', async () => {
    const s = await service();
    mkdirSync(folderOf(s.store).runsDir, { recursive: true });
    const r = await s.retainer.retain({ runId: 'r1', callId: 'c', tool: 't', text: big(1000) });
    await s.delete({ runId: 'r1', valueId: r.valueId });
    assert.equal(existsSync(fileURLToPath(r.uri!)), false);
    await s.delete({ runId: 'r1' });
    assert.deepEqual(await s.listRuns(), []);
  });

  it("reports each change once: its own write and the watcher's echo of it are one notice", async () => {
    const s = await service();
    const seen: string[] = [];
    s.onChanged((runId) => seen.push(runId));
    s.watch();
    try {
      const settle = () => new Promise((resolve) => setTimeout(resolve, 400));
      const id = sanitizeId('run/1');
      await s.retainer.append({ runId: 'run/1', event: { type: 'user', text: 'x' } });
      await settle();
      assert.deepEqual(seen, [id], 'an append: one notice, not its write and the echo of it');
      await s.retainer.retain({ runId: 'run/1', callId: 'c1', tool: 't', text: big(30_000) });
      await settle();
      assert.deepEqual(seen, [id, id], 'a retain writes a value, its sidecars and an event: one notice');
      // Another process's write (here: bytes appended behind the service's back) is announced too.
      appendFileSync(
        folderOf(s.store).transcriptPath(id),
        `${JSON.stringify({ type: 'user', text: 'from elsewhere' })}\n`,
      );
      await settle();
      assert.deepEqual(seen, [id, id, id]);
    } finally {
      s.dispose();
    }
  });
});

describe('retention of a stream', () => {
  after(removeTempDirs);

  /** The text as UTF-8 pieces cut at the given byte offsets: lines and characters split anywhere. */
  function* pieces(text: string, cuts: number[]): Generator<Buffer> {
    const bytes = Buffer.from(text, 'utf8');
    let at = 0;
    for (const cut of [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)) {
      yield bytes.subarray(at, cut);
      at = cut;
    }
    yield bytes.subarray(at);
  }

  it('property: a result streamed in any pieces gives the same value, stub and event as the same result whole', async () => {
    const line = fc.oneof(
      fc.string({ maxLength: 60, unit: fc.constantFrom('a', 'é', '😀', ' ', '\r', 'E') }),
      fc.constant('error: it failed'),
      fc.constant('    at f (x.js:1:2)'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { minLength: 1, maxLength: 3000 }),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 40 }),
        async (lines, finalNewline, cuts) => {
          const text = lines.join('\n') + (finalNewline ? '\n' : '');
          const s = await service();
          const whole = await s.retainer.retain({ runId: 'w', callId: 'c', tool: 'sh', text });
          const streamed = await s.retainer.retainStream({ runId: 's', callId: 'c', tool: 'sh' }, pieces(text, cuts));
          assert.equal(streamed.content, whole.content);
          assert.equal(streamed.retained, whole.retained);
          assert.deepEqual([streamed.bytes, streamed.lines], [whole.bytes, whole.lines]);
          const strip = (e: object) => ({ ...e, ts: undefined });
          const [a] = (await s.transcript({ runId: 'w' })).events;
          const [b] = (await s.transcript({ runId: 's' })).events;
          assert.deepEqual(strip(b!), strip(a!));
          if (whole.retained) assert.deepEqual(readFileSync(fileURLToPath(streamed.uri!)), Buffer.from(text, 'utf8'));
        },
      ),
      { numRuns: 40 },
    );
  });

  it('a streamed result under the threshold goes into the event, and the temp file is gone', async () => {
    const s = await service();
    const r = await s.retainer.retainStream(
      { runId: 'r', callId: 'c', tool: 'sh' },
      pieces('small output\n', [3, 7]),
      () => ({ isError: true, durationMs: 12 }),
    );
    assert.deepEqual([r.retained, r.content], [false, 'small output\n']);
    const [event] = (await s.transcript({ runId: 'r' })).events;
    assert.ok(
      event?.type === 'tool_call_finished' &&
        event.result === 'small output\n' &&
        event.isError === true &&
        event.durationMs === 12,
    );
    assert.deepEqual(readdirSync(folderOf(s.store).valuesDir('r')), []);
  });
});
