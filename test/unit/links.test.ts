/**
 * A store can arrive from a cloned repository or an archive, so any name in it may be a link to
 * somewhere else. The store follows none: a linked value, transcript, values folder or runs
 * folder is refused by every read and write, delete included, and nothing outside is touched.
 */
import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { RetentionService } from '../../server/src/core/service';
import { readFilesIn, statFilesIn } from '../../server/src/core/store/safeFs';
import { removeTempDirs, tempDir } from '../helpers/tmp';

const BIG = 'line of a big result\n'.repeat(2000);
const LINK = /symbolic link: links are not followed/;
/** A link where a value should be is no value at all: refused, or not there. */
const NOT_SERVED = /symbolic link: links are not followed|no value "c1" in run r/;

async function storeWithRun() {
  const root = tempDir();
  const s = new RetentionService(root);
  await s.init();
  await s.retainer.retain({ runId: 'r', callId: 'c1', tool: 't', text: BIG });
  const outside = tempDir();
  const secret = join(outside, 'secret.txt');
  writeFileSync(secret, 'the secret\n'.repeat(3000));
  const runs = join(root, 'runs');
  return { s, root, runs, outside, secret };
}

describe('links in the store', () => {
  after(removeTempDirs);

  it('a value replaced by a link to a file outside is not served by peek, search or the value list', async () => {
    const { s, runs, secret } = await storeWithRun();
    const value = join(runs, 'r.values', 'c1.txt');
    rmSync(value);
    symlinkSync(secret, value);
    await assert.rejects(s.values.peek({ valueId: 'c1', runId: 'r', start: 1, end: 3 }), NOT_SERVED);
    await assert.rejects(s.values.peek({ valueId: 'c1', runId: 'r', query: 'secret' }), NOT_SERVED);
    const found = await s.inspection.search({ runId: 'r', query: 'secret' }).catch((err: Error) => err);
    assert.ok(
      found instanceof Error ? LINK.test(found.message) : found.hits.length === 0,
      'search finds nothing outside',
    );
    assert.ok(
      !(await s.values.list({ runId: 'r' })).values.some((v) => v.valueId === 'c1'),
      'a link is not listed as a value',
    );
  });

  it('reads many files of a folder by plain names only: a name that climbs out is nothing', async () => {
    const { root, outside, secret } = await storeWithRun();
    const dir = join(root, 'runs', 'r.values');
    const climb = join('..', '..', '..', outside.split('/').pop()!, 'secret.txt');
    assert.ok(existsSync(join(dir, climb)), 'the name would reach the file outside');
    assert.deepEqual(await statFilesIn(root, dir, [climb, '..', 'c1.txt']).then((s) => s.map(Boolean)), [
      false,
      false,
      true,
    ]);
    assert.deepEqual(await readFilesIn(root, dir, [climb], 1 << 20), [undefined]);
    assert.ok(readFileSync(secret, 'utf8').startsWith('the secret'));
  });

  it('a transcript replaced by a link gets no appends: the file it points at is untouched', async () => {
    const { s, runs, secret } = await storeWithRun();
    const before = readFileSync(secret);
    rmSync(join(runs, 'r.jsonl'));
    symlinkSync(secret, join(runs, 'r.jsonl'));
    await assert.rejects(s.retainer.append({ runId: 'r', event: { type: 'user', text: 'x' } }), LINK);
    // A result that cannot be recorded is refused with the reason, not answered as if it were.
    await assert.rejects(s.retainer.retain({ runId: 'r', callId: 'c2', tool: 't', text: 'small' }), LINK);
    assert.deepEqual(readFileSync(secret), before);
  });

  it('a values folder replaced by a link: no value is read from it or written into it', async () => {
    const { s, runs, outside } = await storeWithRun();
    const values = join(runs, 'r.values');
    renameSync(values, join(outside, 'moved.values'));
    symlinkSync(join(outside, 'moved.values'), values);
    await assert.rejects(s.values.peek({ valueId: 'c1', runId: 'r', start: 1, end: 1 }), NOT_SERVED);
    const before = readdirSync(join(outside, 'moved.values')).sort();
    const r = await s.retainer.retain({ runId: 'r', callId: 'c3', tool: 't', text: BIG.replace(/big/g, 'other') });
    assert.equal(r.retained, false);
    assert.match(r.warning ?? '', /kept verbatim: the value could not be written \(.*symbolic link/);
    assert.deepEqual(readdirSync(join(outside, 'moved.values')).sort(), before, 'nothing written through the link');
  });

  it('a runs folder replaced by a link: appends create nothing outside', async () => {
    const { s, runs, outside } = await storeWithRun();
    const target = join(outside, 'elsewhere');
    mkdirSync(target);
    rmSync(runs, { recursive: true });
    symlinkSync(target, runs);
    await assert.rejects(s.retainer.append({ runId: 'new-run', event: { type: 'user', text: 'x' } }), LINK);
    assert.deepEqual(await s.listRuns(), [], 'a linked runs folder lists no runs');
    assert.deepEqual(readdirSync(target), []);
  });

  it('deleting a run whose values folder is a link removes the link, never what it points at', async () => {
    const { s, runs, outside, secret } = await storeWithRun();
    const values = join(runs, 'r.values');
    rmSync(values, { recursive: true });
    symlinkSync(outside, values);
    await s.delete({ runId: 'r' });
    assert.ok(existsSync(secret), 'the file outside is still there');
    assert.ok(!existsSync(values));
  });
});
