/**
 * One conformance suite, two stores: every case runs against a folder store and against a team
 * store in a real PostgreSQL (test/helpers/postgres.ts; a database of its own per case), through
 * the store interface the core talks to (runStore.ts) and through the service on top of it.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Client } from 'pg';
import { FORMAT } from '../../server/src/core/inspection/runIndex';
import { RetentionService } from '../../server/src/core/service';
import { readLines } from '../../server/src/core/store/lineReader';
import { migrate } from '../../server/src/core/store/postgres/migrate';
import { INDEX_MAX_BYTES, type NewValue } from '../../server/src/core/store/runStore';
import type { TranscriptEvent } from '../../shared/events';
import { type Postgres, startPostgres } from '../helpers/postgres';
import { removeTempDirs, tempDir } from '../helpers/tmp';

const started = (_runId: string): TranscriptEvent => ({ type: 'run_started', tools: ['peek_value'] });
const message = (text: string): TranscriptEvent => ({ type: 'user', text });
const lines = (n: number, tag = 'line') => `${Array.from({ length: n }, (_, i) => `${tag} ${i + 1}`).join('\n')}\n`;
const unstamped = (events: TranscriptEvent[]) => events.map(({ ts: _ts, ...e }) => e);
const newValue = (runId: string, callId: string): NewValue => ({
  runId,
  callId,
  tool: 'run_command',
  isError: false,
  stubFor: (valueId) => `[retained #${valueId}] a stub`,
});

let pg: Postgres | undefined;
let databases = 0;

/** A new, empty store of each kind: a temp folder, or a fresh database migrated to this build's schema. */
const STORES: { kind: string; address: () => Promise<string> }[] = [
  { kind: 'folder store', address: async () => join(tempDir(), '.retained') },
  {
    kind: 'team store (PostgreSQL)',
    address: async () => {
      pg ??= await startPostgres();
      const name = `conformance_${++databases}`;
      await pg.sql(`CREATE DATABASE ${name}`);
      const url = pg.url.replace(/\/retained$/, `/${name}`);
      const client = new Client({ connectionString: url });
      await client.connect();
      await migrate(client).finally(() => client.end());
      return url;
    },
  },
];

after(() => {
  pg?.stop();
  removeTempDirs();
});

for (const { kind, address } of STORES) {
  describe(`store conformance: ${kind}`, function () {
    this.timeout(120_000);
    let services: RetentionService[] = [];
    const open = async (where?: string) => {
      const service = new RetentionService(where ?? (await address()), { indexImports: false });
      await service.init();
      services.push(service);
      return service;
    };
    afterEach(() => {
      for (const s of services) s.dispose();
      services = [];
    });

    it('an empty store has no runs, and names no run by a hostile id', async () => {
      const { store } = await open();
      assert.deepEqual(await store.listRunIds(), []);
      assert.equal(await store.runExists('nothing'), false);
      assert.equal(await store.runExists("x'); DROP TABLE runs; --"), false);
      assert.deepEqual(await store.runsWithValue('../../etc/passwd'), []);
      await assert.rejects(store.appendEvent('../up', message('no')), /run/);
    });

    it('keeps events in order, read whole, by page, from a position and at positions', async () => {
      const { store } = await open();
      await store.ensureRunMeta('r1', 'feature/x');
      await store.ensureRunMeta('r1', 'another name');
      await store.appendEvent('r1', started('r1'));
      for (let i = 0; i < 5; i++) await store.appendEvent('r1', message(`m${i}`));
      const { events, skipped } = await store.readEvents('r1');
      assert.deepEqual(skipped, []);
      assert.deepEqual(
        events.map((e) => (e.type === 'user' ? e.text : e.type)),
        ['run_started', 'm0', 'm1', 'm2', 'm3', 'm4'],
      );
      assert.deepEqual(unstamped((await store.readEvents('r1', 2, 2)).events), [message('m1'), message('m2')]);
      assert.deepEqual(unstamped([(await store.readFirstEvent('r1'))!]), [started('r1')]);
      assert.ok(
        events.every((e) => typeof e.ts === 'string'),
        'each event stamped with its time',
      );
      assert.equal((await store.readRunMeta('r1'))?.name, 'feature/x', 'the first name stays');
      const first = await store.readEventsFrom('r1', 0, 0);
      assert.equal(first.events.length, 6);
      const stamp = await store.transcriptStamp('r1');
      await store.appendEvent('r1', message('m5'));
      const more = await store.readEventsFrom('r1', first.end, first.lines);
      assert.deepEqual(unstamped(more.events), [message('m5')], 'a follower reads only what came since');
      const grown = await store.transcriptStamp('r1');
      assert.equal(grown?.identity, stamp?.identity);
      assert.ok(grown!.size > stamp!.size);
      assert.deepEqual(unstamped((await store.readEventsAt('r1', [first.offsets[1]!, first.offsets[4]!]))!), [
        message('m0'),
        message('m3'),
      ]);
      assert.ok(await store.runExists('r1'));
      assert.deepEqual(await store.listRunIds(), ['r1']);
    });

    it("writes a new run's whole transcript at once, and never over one it has", async () => {
      const { store } = await open();
      await store.writeTranscript('w', [started('w'), message('a'), message('b')]);
      assert.equal((await store.readEvents('w')).events.length, 3);
      await assert.rejects(store.writeTranscript('w', [message('again')]));
      assert.equal((await store.readEvents('w')).events.length, 3);
    });

    it('a value is visible only once placed; it reads back byte for byte, by line and by its head', async () => {
      const { store } = await open();
      await store.appendEvent('v', started('v'));
      const text = `${lines(200_000)}ünïcödé 😀 no final newline`;
      const bytes = Buffer.from(text);
      const parts = Array.from({ length: Math.ceil(bytes.length / 65_536) }, (_, i) =>
        bytes.subarray(i * 65_536, (i + 1) * 65_536),
      );
      const staged = await store.values.stage('v', parts);
      assert.equal(staged.bytes, bytes.length);
      assert.deepEqual(await store.values.listFiles('v'), [], 'staged is not placed');
      const meta = await store.values.place(staged, newValue('v', 'call_1'));
      assert.equal(meta.valueId, 'call_1');
      assert.equal(meta.bytes, bytes.length);
      assert.equal(meta.lines, 200_001);
      assert.ok(await store.values.exists('v', 'call_1'));
      assert.deepEqual(await store.runsWithValue('call_1'), ['v']);
      assert.equal((await store.values.readMeta('v', 'call_1')).stub, '[retained #call_1] a stub');
      assert.deepEqual(
        (await store.values.list('v')).map((m) => m.valueId),
        ['call_1'],
      );
      assert.ok((await store.values.readHead('v', 'call_1', 13)).startsWith('line 1\nline 2'));
      const index = await store.values.lineIndex('v', 'call_1');
      assert.equal(index.lines, 200_001);
      assert.equal(index.finalNewline, false);
      // Every byte, read through the value's reader in uneven pieces, is the value.
      const reader = await store.values.open('v', 'call_1')();
      const back = Buffer.alloc(bytes.length);
      for (let at = 0; at < bytes.length; ) {
        const { bytesRead } = await reader.read(back, at, Math.min(100_003, bytes.length - at), at);
        assert.ok(bytesRead > 0);
        at += bytesRead;
      }
      await reader.close();
      assert.ok(back.equals(bytes));
      const read: string[] = [];
      await readLines(store.values.open('v', 'call_1'), index, 199_999, 1000, (line) => {
        read.push(`${line.number}: ${line.text}`);
        return true;
      });
      assert.deepEqual(read, ['199999: line 199999', '200000: line 200000', '200001: ünïcödé 😀 no final newline']);
    });

    it('a call id that holds other bytes gets a second name; the same bytes are the same value; a discarded stage leaves nothing', async () => {
      const { store } = await open();
      await store.appendEvent('n', started('n'));
      const a = await store.values.place(
        await store.values.stage('n', [Buffer.from(lines(10, 'a'))]),
        newValue('n', 'c'),
      );
      const b = await store.values.place(
        await store.values.stage('n', [Buffer.from(lines(10, 'b'))]),
        newValue('n', 'c'),
      );
      const again = await store.values.place(
        await store.values.stage('n', [Buffer.from(lines(10, 'a'))]),
        newValue('n', 'c'),
      );
      assert.equal(a.valueId, 'c');
      assert.notEqual(b.valueId, 'c');
      assert.equal(again.valueId, 'c');
      const discarded = await store.values.stage('n', [Buffer.from('never placed\n')]);
      await store.values.discardStaged(discarded);
      assert.deepEqual((await store.values.listFiles('n')).map((f) => f.valueId).sort(), [b.valueId, 'c'].sort());
    });

    it('pins, summaries and the audit log', async () => {
      const { store } = await open();
      await store.ensureRunMeta('p', 'pinned run');
      await store.appendEvent('p', started('p'));
      assert.equal(await store.isPinned('p'), false);
      await store.setPinned('p', true);
      assert.equal(await store.isPinned('p'), true);
      await store.values.place(await store.values.stage('p', [Buffer.from(lines(5000))]), newValue('p', 'big'));
      const summary = await store.summarizeRun('p');
      assert.equal(summary.name, 'pinned run');
      assert.equal(summary.pinned, true);
      assert.equal(summary.valueCount, 1);
      assert.equal(summary.valueBytes, Buffer.byteLength(lines(5000)));
      assert.ok(summary.transcriptBytes > 0);
      await store.audit({ event: 'removed', runId: 'gone', why: 'age', bytes: 1 });
      await store.setPinned('p', false);
      assert.equal(await store.isPinned('p'), false);
    });

    it('the service retains, peeks, searches, replays and inspects the same on either store', async () => {
      const service = await open();
      const text = `${lines(300_000)}error: the build failed\n`;
      const r = await service.retainer.retain({ runId: 'ci/job 1', callId: 'toolu_1', tool: 'run_command', text });
      assert.equal(r.retained, true);
      assert.match(r.content, /^\[retained #toolu_1\] run_command result: /);
      const found = await service.values.peek({ valueId: 'toolu_1', query: '299999' });
      assert.match(found.text, /^299999: line 299999$/m);
      const end = await service.values.peek({ valueId: 'toolu_1', start: 300_000 });
      assert.equal(end.text, '300000: line 300000\n300001: error: the build failed');
      const [run] = await service.listRuns();
      assert.equal(run?.name, 'ci/job 1');
      const inspected = await service.inspection.inspect({ runId: run!.runId, limit: 10 });
      assert.equal(inspected.rows.length, 1);
      const replay = await service.history.replay({ runId: run!.runId, shape: 'structured' });
      assert.match(JSON.stringify(replay), /\[retained #toolu_1\]/);
      const searched = await service.inspection.search({ runId: run!.runId, query: 'the build failed' });
      assert.ok(searched.hits.length > 0);
    });

    it("a run's index: a cold service answers from the one kept while the run is as it was; a new value or event, or a deleted run, and it is not used", async () => {
      const where = await address();
      const first = await open(where);
      await first.retainer.retain({ runId: 'r', callId: 'c1', tool: 'run_command', text: lines(3000) });
      await first.retainer.append({ runId: 'r', event: message('and then?') });
      const asked = { runId: 'r', from: 0, limit: 100 };
      const truth = await first.inspection.inspect(asked);
      await first.inspection.indexes.flush();
      const kept = await first.store.indexes.read('r', INDEX_MAX_BYTES);
      assert.match(kept ?? 'none kept', new RegExp(`^[0-9a-f]{64}\\n\\{"format":${FORMAT},`));
      // A figure changed in the index, its hash made right: a cold service shows it, so it answered from the index.
      const body = JSON.parse(kept!.split('\n')[1]!);
      body.outlines['sent:none'].totals.tokensSent = 123_456_789;
      const forged = JSON.stringify(body);
      const keepForged = () =>
        first.store.indexes.write(
          'r',
          `${createHash('sha256').update(forged).digest('hex')}\n${forged}`,
          async () => true,
        );
      await keepForged();
      const cold = async () => (await open(where)).inspection.inspect(asked);
      assert.equal((await cold()).outline.totals.tokensSent, 123_456_789);
      // The same bytes under a wrong hash (a torn or edited index) are not trusted.
      await first.store.indexes.write('r', `${'0'.repeat(64)}\n${forged}`, async () => true);
      assert.deepEqual(await cold(), truth);
      // A value added since, then an event appended since: the run as it is now.
      await keepForged();
      await first.retainer.retain({ runId: 'r', callId: 'c2', tool: 'run_command', text: lines(2000, 'more') });
      assert.notEqual((await cold()).outline.totals.tokensSent, 123_456_789);
      await keepForged();
      await first.retainer.append({ runId: 'r', event: message('one more') });
      const grown = await cold();
      assert.equal(grown.outline.events, truth.outline.events + 2);
      assert.notEqual(grown.outline.totals.tokensSent, 123_456_789);
      // A run deleted takes its index with it.
      await first.delete({ runId: 'r' });
      assert.equal(await first.store.indexes.read('r', INDEX_MAX_BYTES), undefined);
    });

    it("a run's usage: a cold service answers it from the run's index alone while the run is as it was", async () => {
      const where = await address();
      const first = await open(where);
      await first.retainer.retain({ runId: 'u', callId: 'c1', tool: 'run_command', text: lines(3000) });
      await first.retainer.append({ runId: 'u', event: message('and then?') });
      const truth = await first.inspection.usage({ runId: 'u' });
      await first.inspection.indexes.flush();
      const body = JSON.parse((await first.store.indexes.read('u', INDEX_MAX_BYTES))!.split('\n')[1]!);
      const [key, ...others] = Object.keys(body.answers);
      assert.ok(key !== undefined && others.length === 0, `one answer kept: ${Object.keys(body.answers)}`);
      assert.deepEqual(body.answers[key], JSON.parse(JSON.stringify(truth)));
      // A total changed in the index, its hash made right: a cold service gives it, so it read nothing else.
      body.answers[key].totals.total = 987_654_321;
      const forged = JSON.stringify(body);
      await first.store.indexes.write(
        'u',
        `${createHash('sha256').update(forged).digest('hex')}\n${forged}`,
        async () => true,
      );
      const cold = async () => (await open(where)).inspection.usage({ runId: 'u' });
      assert.equal((await cold()).totals.total, 987_654_321);
      // An answer of another shape (a total that is not a count) makes the index one not used.
      body.answers[key].totals.total = 'many';
      const misshapen = JSON.stringify(body);
      await first.store.indexes.write(
        'u',
        `${createHash('sha256').update(misshapen).digest('hex')}\n${misshapen}`,
        async () => true,
      );
      assert.deepEqual(await cold(), truth);
      // An event appended since: counted again, the run as it is now.
      await first.store.indexes.write(
        'u',
        `${createHash('sha256').update(forged).digest('hex')}\n${forged}`,
        async () => true,
      );
      await first.retainer.append({ runId: 'u', event: message('one more') });
      const grown = await cold();
      assert.notEqual(grown.totals.total, 987_654_321);
      assert.deepEqual(grown, await first.inspection.usage({ runId: 'u' }));
    });

    it('a clean-up removes an old run whole and keeps a pinned one; no value a kept run names goes', async () => {
      const service = await open();
      const text = lines(20_000, 'shared');
      await service.retainer.retain({ runId: 'old', callId: 'c1', tool: 't', text });
      await service.retainer.retain({ runId: 'kept', callId: 'c2', tool: 't', text });
      await service.cleaner.pin({ runId: 'kept', pinned: true });
      const later = Date.now() + 60 * 24 * 60 * 60 * 1000;
      const planned = await service.cleaner.cleanup({ dryRun: true }, later);
      assert.deepEqual(
        planned.removed.map((r) => [r.runId, r.reason]),
        [['old', 'age']],
      );
      assert.equal(
        planned.freedBytes > 0 && planned.freedBytes < Buffer.byteLength(text),
        true,
        'the shared bytes stay',
      );
      const done = await service.cleaner.cleanup({}, later);
      assert.deepEqual(
        done.removed.map((r) => r.runId),
        ['old'],
      );
      assert.equal(done.spared.pinned, 1);
      assert.deepEqual(await service.store.listRunIds(), ['kept']);
      const kept = await service.values.peek({ valueId: 'c2', runId: 'kept', start: 20_000 });
      assert.equal(kept.text, '20000: shared 20000');
      assert.equal((await service.status()).runs, 1);
    });

    it("a guard's withheld original is kept whole, and read back only when peek_value may", async () => {
      const service = await open();
      const { results } = await service.withholder.withhold({
        runId: 'guarded',
        results: [{ callId: 'c', tool: 't', text: 'token=abc\nline two\n' }],
      });
      assert.equal(results[0]!.outcome, 'written');
      const name = results[0]!.file!.slice('withheld/'.length, -'.txt'.length);
      await assert.rejects(service.values.peek({ valueId: name, start: 1 }), /reading it through peek_value is off/);
      service.updateSettings({ guard: { peekOriginals: true } });
      assert.equal((await service.values.peek({ valueId: name, start: 1 })).text, '1: token=abc\n2: line two');
      const { events } = await service.transcript({ runId: 'guarded' });
      assert.doesNotMatch(JSON.stringify(events), /token=abc/, 'the transcript holds the notice, not the original');
      assert.equal((await service.status()).withheld, 1);
    });

    it('a second service on the same store hears of a run another one writes', async () => {
      const where = await address();
      const writer = await open(where);
      const watcher = await open(where);
      await writer.retainer.retain({ runId: 'live', callId: 'c0', tool: 't', text: 'first' });
      const heard = new Promise<string>((done) => watcher.onChanged(done));
      watcher.watch();
      // The watch needs a moment to begin (a folder's watcher, a LISTEN): write until it is heard.
      let heardIt: string | undefined;
      heard.then((runId) => {
        heardIt = runId;
      });
      for (let i = 1; i < 50 && !heardIt; i++) {
        await writer.retainer.retain({
          runId: 'live',
          callId: `c${i}`,
          tool: 't',
          text: `more ${randomBytes(4).toString('hex')}`,
        });
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(await heard, 'live');
    });
  });
}
