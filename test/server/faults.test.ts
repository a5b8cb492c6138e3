/**
 * Faults against the real server process: killed mid-write, a file-size limit, several
 * writers at once, hostile call ids. Nothing may leave a stub that points at nothing.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readEvents } from '../../server/src/core/store/transcript';
import { AppendRequest, ReplayRequest, RetainRequest, type RetainResult, WithholdRequest } from '../../shared/protocol';
import { INTERRUPTED_RESULT } from '../../shared/stubText';
import { ServerProcess } from '../helpers/serverProcess';
import { removeTempDirs, tempDir } from '../helpers/tmp';

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');
const MB = 1024 * 1024;

/** Every value file under a store root that a transcript event points at is complete. */
async function assertEveryPointerComplete(root: string, runId: string): Promise<number> {
  const { events } = await readEvents(root, join(root, 'runs', `${runId}.jsonl`));
  let checked = 0;
  for (const e of events) {
    if (e.type !== 'tool_call_finished' || !e.valueId) continue;
    const file = join(root, 'runs', `${runId}.values`, `${e.valueId}.txt`);
    assert.ok(existsSync(file), `event for ${e.callId} points at ${file}`);
    assert.equal(sha256(readFileSync(file)), e.sha256);
    checked++;
  }
  return checked;
}

describe('faults', function () {
  this.timeout(300_000);
  after(removeTempDirs);

  it('SIGKILL mid-retain of a 200 MB value, repeatedly, never leaves a stub pointing at a partial file', async () => {
    const workspace = tempDir();
    const root = join(workspace, '.retained');
    const line = `${'0123456789abcdef'.repeat(6)}\n`;
    const huge = line.repeat(Math.ceil((200 * MB) / line.length));
    const hugeSha = sha256(huge);
    const stubs: RetainResult[] = [];
    // A 200 MB retain takes seconds here: spread the kills over parsing, writing and logging.
    const delays = [50, 1500, 4000, 7000, 9500];
    for (const [attempt, delay] of delays.entries()) {
      const server = await ServerProcess.start({ workspace });
      const small = await server.request(RetainRequest.type, {
        runId: 'kill',
        callId: `small_${attempt}`,
        tool: 't',
        text: 'k'.repeat(30000),
      });
      stubs.push(small);
      const pending = server
        .request(RetainRequest.type, { runId: 'kill', callId: `huge_${attempt}`, tool: 'cat', text: huge })
        .then(
          (r) => stubs.push(r),
          () => undefined,
        );
      await new Promise((r) => setTimeout(r, delay));
      await server.kill('SIGKILL');
      await pending;
    }
    // Every stub a client received points at a complete file.
    for (const stub of stubs.filter((s) => s.retained)) {
      const data = readFileSync(fileURLToPath(stub.uri!));
      assert.equal(data.length, stub.bytes);
      if (stub.bytes === Buffer.byteLength(huge)) assert.equal(sha256(data), hugeSha);
    }
    // Every value the transcript names is complete; no file under a final name is partial.
    const pointed = await assertEveryPointerComplete(root, 'kill');
    assert.ok(pointed >= delays.length, 'the small retains before each kill are there');
    const dir = join(root, 'runs', 'kill.values');
    for (const name of readdirSync(dir).filter((n) => /^huge_\d+\.txt$/.test(n))) {
      assert.equal(statSync(join(dir, name)).size, Buffer.byteLength(huge), `${name} is whole`);
    }
    // The transcript reads, even if a kill tore its last line.
    const { events } = await readEvents(root, join(root, 'runs', 'kill.jsonl'));
    assert.ok(events.length >= delays.length);
  });

  it('a file-size limit (ulimit -f): a result that cannot be recorded anywhere gets what replay will send, the transcript stays as it was', async () => {
    const workspace = tempDir();
    const server = await ServerProcess.start({ workspace, shellPrefix: 'ulimit -f 64' }); // 64 blocks of 512 B = 32 KiB
    try {
      const small = await server.request(RetainRequest.type, { runId: 'r', callId: 'c0', tool: 't', text: 'before' });
      assert.equal(small.content, 'before');
      const transcript = join(workspace, '.retained', 'runs', 'r.jsonl');
      const before = readFileSync(transcript);
      const text = 'q'.repeat(100_000);
      const r = await server.request(RetainRequest.type, { runId: 'r', callId: 'c', tool: 't', text });
      assert.equal(r.retained, false);
      // Neither the value nor the verbatim event fit: the model is told what every replay will say.
      assert.equal(r.content, INTERRUPTED_RESULT);
      assert.match(
        r.warning!,
        /the value could not be written \(EFBIG.*the result was not recorded \((EFBIG|short write)/s,
      );
      assert.deepEqual(readFileSync(transcript), before, 'the failed append took back what it wrote');
      const replay = await server.request(ReplayRequest.type, { runId: 'r', shape: 'text' });
      assert.ok(replay.shape === 'text' && !replay.text.includes('qqqq'));
      assert.ok(await server.stillServes('r', 'c2'));
    } finally {
      await server.stop();
    }
  });

  it('a withheld original the store refuses (ulimit -f): the "write failed" notice, an audit line, no partial file', async () => {
    const workspace = tempDir();
    const server = await ServerProcess.start({ workspace, shellPrefix: 'ulimit -f 64' }); // 32 KiB
    try {
      const { results } = await server.request(WithholdRequest.type, {
        runId: 'r',
        results: [
          { callId: 'big', tool: 't', text: 'w'.repeat(100_000), reason: 'a secret' },
          { callId: 'small', tool: 't', text: 'fits' },
        ],
      });
      assert.deepEqual(
        results.map((r) => r.outcome),
        ['failed', 'written'],
      );
      assert.match(
        results[0]!.content,
        /Writing its original to the Retained Outputs store failed, so it was not kept\.$/,
      );
      assert.doesNotMatch(results[0]!.content, /secret|EFBIG/);
      const root = join(workspace, '.retained');
      assert.deepEqual(readdirSync(join(root, 'withheld')), [results[1]!.file!.slice('withheld/'.length)]);
      const audit = readFileSync(join(root, 'audit.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { event: string; callId: string; error?: string });
      assert.deepEqual(
        audit.map((r) => [r.event, r.callId]),
        [
          ['withheld', 'big'],
          ['failed', 'big'],
          ['withheld', 'small'],
          ['written', 'small'],
        ],
      );
      assert.match(audit[1]!.error!, /EFBIG|short write|too large/i);
    } finally {
      await server.stop();
    }
  });

  it('three server processes writing one run at once: no event interleaves, no value is lost or mixed', async () => {
    const workspace = tempDir();
    const servers = await Promise.all([0, 1, 2].map(() => ServerProcess.start({ workspace })));
    try {
      await Promise.all(
        servers.map((server, s) =>
          Promise.all(
            Array.from({ length: 40 }, async (_, i) => {
              const text = `${s}-${i}\n`.repeat(8000 + i);
              const r = await server.request(RetainRequest.type, {
                runId: 'multi',
                callId: `s${s}_c${i}`,
                tool: 't',
                text,
              });
              assert.equal(readFileSync(fileURLToPath(r.uri!), 'utf8'), text);
              await server.request(AppendRequest.type, {
                runId: 'multi',
                event: { type: 'user', text: `note ${s}-${i}` },
              });
            }),
          ),
        ),
      );
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
    }
    const root = join(workspace, '.retained');
    const { events, skipped } = await readEvents(root, join(root, 'runs', 'multi.jsonl'));
    assert.deepEqual(skipped, []);
    assert.equal(events.length, 240);
    assert.equal(await assertEveryPointerComplete(root, 'multi'), 120);
  });

  it('thousands of hostile call ids never escape the store and never collide', async () => {
    const workspace = tempDir();
    const server = await ServerProcess.start({ workspace, settings: { thresholdBytes: 2048, peekMaxBytes: 1024 } });
    const ids: string[] = [];
    for (let i = 0; i < 300; i++) {
      ids.push(
        `../${i}`,
        `a/b/${i}`,
        `x\0${i}`,
        `é${i}😀`,
        `${'L'.repeat(1000)}${i}`,
        `call.${i}`,
        `call_${i}`,
        `..\\..\\${i}`,
        `/etc/passwd${i}`,
        ` ${i} `,
      );
    }
    try {
      const results = await Promise.all(
        ids.map((callId, i) =>
          server.request(RetainRequest.type, {
            runId: '../../escape',
            callId,
            tool: 't',
            text: `${`${i}:${callId}\n`.repeat(1000).slice(0, 4000)}#${i}`,
          }),
        ),
      );
      const runsDir = resolve(workspace, '.retained', 'runs');
      const files = new Set<string>();
      results.forEach((r, i) => {
        assert.equal(r.retained, true, `${JSON.stringify(ids[i]).slice(0, 40)}: ${r.warning}`);
        const file = fileURLToPath(r.uri!);
        assert.ok(resolve(file).startsWith(runsDir + sep), `${file} is inside the store`);
        assert.ok(!files.has(file), `two ids share ${file}`);
        files.add(file);
        assert.ok(readFileSync(file, 'utf8').endsWith(`#${i}`));
      });
      assert.deepEqual(readdirSync(resolve(workspace, '.retained')).sort(), ['.gitignore', 'blobs', 'runs']);
      assert.deepEqual(
        readdirSync(runsDir)
          .map((n) => n.replace(/^[^.]+/, '*'))
          .sort(),
        ['*.jsonl', '*.meta.json', '*.values'],
        'one transcript, its meta and one values folder',
      );
    } finally {
      await server.stop();
    }
  });
});
