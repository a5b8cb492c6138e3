import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RetentionService } from '../../server/src/core/service';
import { folderOf } from '../helpers/folderOf';
import { removeTempDirs, tempDir } from '../helpers/tmp';

const DAY = 24 * 60 * 60 * 1000;
const output = (tag: string, kb = 50) =>
  Array.from({ length: kb * 16 }, (_, i) => `${tag} line ${i} ${'x'.repeat(50)}`).join('\n');

async function service(settings = {}) {
  const s = new RetentionService(join(tempDir(), '.retained'), { settings });
  await s.init();
  return s;
}

const du = (root: string) => Number(execFileSync('du', ['-sb', root], { encoding: 'utf8' }).split('\t')[0]);

/** Makes a run look last written `days` ago: every file and folder of it. */
function age(root: string, runId: string, days: number): void {
  const when = new Date(Date.now() - days * DAY);
  const runs = join(root, 'runs');
  for (const name of readdirSync(runs).filter((n) => n.startsWith(`${runId}.`))) {
    const path = join(runs, name);
    if (statSync(path).isDirectory()) for (const f of readdirSync(path)) utimesSync(join(path, f), when, when);
    utimesSync(path, when, when);
  }
}

async function retain(s: RetentionService, runId: string, text: string, callId = 'c1') {
  return s.retainer.retain({ runId, callId, tool: 'Bash', text });
}

describe('identical values stored once', () => {
  after(removeTempDirs);

  it('a second identical output in another run links the same bytes; each run still reads its own', async () => {
    const s = await service();
    const text = output('same');
    const a = await retain(s, 'a', text);
    const before = (await s.status()).storeBytes;
    const b = await retain(s, 'b', text);
    const [fa, fb] = [fileURLToPath(a.uri!), fileURLToPath(b.uri!)];
    assert.equal(statSync(fa).ino, statSync(fb).ino, 'one inode');
    assert.equal(statSync(fa).mode & 0o777, 0o444, 'read-only');
    const grew = (await s.cleaner.use(true)).bytes - before;
    assert.ok(grew < 8192, `the second copy cost ${grew} bytes (its transcript line and sidecars), not ${text.length}`);
    assert.equal((await s.status()).storeBytes, du(folderOf(s.store).root));

    await s.delete({ runId: 'a' });
    assert.equal(readFileSync(fb, 'utf8'), text, 'b keeps its value');
    assert.equal(statSync(fb).nlink, 1, "its bytes are b's alone now");
    assert.deepEqual(readdirSync(folderOf(s.store).blobs.dir), [], "the record of a's file is collected with it");
    const c = await retain(s, 'c', text);
    assert.notEqual(statSync(fileURLToPath(c.uri!)).ino, statSync(fb).ino, 'no record, no sharing: c is a copy');
    assert.equal(readdirSync(folderOf(s.store).blobs.dir).length, 1, "c's file is recorded");
  });

  it('never links to a file whose bytes are not what its record says', async () => {
    const s = await service();
    const text = output('tamper');
    const a = await retain(s, 'a', text);
    // Someone rewrites a's value in place (same size, other bytes).
    chmodSync(fileURLToPath(a.uri!), 0o644);
    writeFileSync(fileURLToPath(a.uri!), text.replace('tamper line 0', 'TAMPER LINE 0'));
    const b = await retain(s, 'b', text);
    assert.notEqual(statSync(fileURLToPath(b.uri!)).ino, statSync(fileURLToPath(a.uri!)).ino);
    assert.equal(readFileSync(fileURLToPath(b.uri!), 'utf8'), text, 'b has its own, right bytes');
  });
});

describe('clean-up', () => {
  after(removeTempDirs);

  async function store() {
    const s = await service({ cleanup: { quotaBytes: 0, maxAgeDays: 0 } });
    for (const [runId, days] of [
      ['old', 40],
      ['older', 50],
      ['kept', 60],
      ['mid', 10],
      ['fresh', 0],
    ] as const) {
      await retain(s, runId, output(runId));
      age(folderOf(s.store).root, runId, days);
    }
    await s.cleaner.pin({ runId: 'kept', pinned: true });
    age(folderOf(s.store).root, 'kept', 60);
    return s;
  }

  it('over the quota: the oldest unpinned runs go, whole, and a dry run said exactly that first', async () => {
    const s = await store();
    const total = (await s.status()).storeBytes;
    // Room for about three of the five runs.
    s.updateSettings({ cleanup: { quotaBytes: Math.floor(total * 0.7), maxAgeDays: 0 } });
    assert.equal((await s.status()).overQuota, true);

    const dry = await s.cleaner.cleanup({ dryRun: true });
    assert.deepEqual(
      dry.removed.map((r) => [r.runId, r.reason]),
      [
        ['older', 'quota'],
        ['old', 'quota'],
      ],
    );
    assert.deepEqual(dry.spared, { pinned: 1, recent: 1 });
    assert.equal((await s.listRuns()).length, 5, 'a dry run removes nothing');

    const done = await s.cleaner.cleanup();
    assert.deepEqual(
      done.removed.map((r) => r.runId),
      dry.removed.map((r) => r.runId),
    );
    assert.equal(done.freedBytes, dry.freedBytes, 'the dry run predicted the bytes freed');
    assert.deepEqual((await s.listRuns()).map((r) => r.runId).sort(), ['fresh', 'kept', 'mid']);
    for (const gone of ['old', 'older']) {
      assert.equal(existsSync(join(folderOf(s.store).runsDir, `${gone}.jsonl`)), false);
      assert.equal(existsSync(join(folderOf(s.store).runsDir, `${gone}.values`)), false);
    }
    const status = await s.status();
    assert.equal(status.storeBytes, du(folderOf(s.store).root), 'status matches the disk');
    assert.equal(status.storeBytes, done.storeBytesAfter);
    assert.equal(status.overQuota, false);
    const audit = readFileSync(join(folderOf(s.store).root, 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event: string; runId: string; why: string });
    assert.deepEqual(
      audit.map((r) => [r.event, r.runId, r.why]),
      [
        ['removed', 'older', 'quota'],
        ['removed', 'old', 'quota'],
      ],
    );
  });

  it('by age: runs not written for maxAgeDays go; a pinned one and one written in the last hour stay', async () => {
    const s = await store();
    s.updateSettings({ cleanup: { quotaBytes: 0, maxAgeDays: 30 } });
    const done = await s.cleaner.cleanup();
    assert.deepEqual(
      done.removed.map((r) => [r.runId, r.reason]),
      [
        ['older', 'age'],
        ['old', 'age'],
      ],
    );
    await s.cleaner.pin({ runId: 'kept', pinned: false });
    s.updateSettings({ cleanup: { quotaBytes: 1, maxAgeDays: 0 } });
    const all = await s.cleaner.cleanup();
    assert.deepEqual(
      all.removed.map((r) => r.runId),
      ['kept', 'mid'],
      'unpinned, it goes; the fresh run never does',
    );
    assert.deepEqual(
      (await s.listRuns()).map((r) => r.runId),
      ['fresh'],
    );
  });

  it('on start-up when asked, and refuses bad input naming the field', async () => {
    const s = await store();
    const again = new RetentionService(folderOf(s.store).root, {
      settings: { cleanup: { maxAgeDays: 30, onStartup: true } },
    });
    const { cleanup } = await again.init();
    assert.deepEqual(cleanup?.removed.map((r) => r.runId).sort(), ['old', 'older']);
    await assert.rejects(again.cleaner.cleanup({ dryRun: 'yes' } as never), /params\.dryRun/);
    await assert.rejects(again.cleaner.pin({ runId: 'nope', pinned: true }), /no run "nope"/);
  });
});
