/**
 * Hostile input against the real server process, as an attacker would send it: patterns built
 * to backtrack, a line built to make a landmark pattern quadratic, a result larger than any
 * transcript line, broken framing, the same call id retained twice at once, and kill -9 at
 * random points. No request may block the others, crash the server, or leave a stub that points
 * at nothing.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RetentionService } from '../../server/src/core/service';
import { readEvents } from '../../server/src/core/store/transcript';
import {
  InspectRequest,
  MAX_MESSAGE_BYTES,
  PeekRequest,
  ReplayRequest,
  RetainRequest,
  RunSearchRequest,
  RunsRequest,
  StatusRequest,
  TranscriptRequest,
} from '../../shared/protocol';
import { SERVER_ARGS, ServerProcess } from '../helpers/serverProcess';
import { removeTempDirs, tempDir } from '../helpers/tmp';

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

/** Runs `work` beside a cheap request, and returns how long each took to be answered. */
async function beside(
  server: ServerProcess,
  work: () => Promise<unknown>,
): Promise<{ workMs: number; otherMs: number }> {
  const started = Date.now();
  const timed = async (run: () => Promise<unknown>) => {
    await run();
    return Date.now() - started;
  };
  const [workMs, otherMs] = await Promise.all([timed(work), timed(() => server.request(StatusRequest.type, {}))]);
  return { workMs, otherMs };
}

/**
 * A hang detector, not a figure: a backtracking engine takes minutes to hours on these inputs,
 * a linear one milliseconds; how fast is the bench's (npm run bench), never a test's.
 */
const HANG_MS = 30_000;

describe('hostile input', function () {
  this.timeout(300_000);
  after(removeTempDirs);

  it('a catastrophic pattern and a line built against a landmark pattern each answer, and the server answers others meanwhile', async () => {
    const server = await ServerProcess.start({ workspace: tempDir() });
    try {
      // 34 a's and a '!', the classic input that makes (a+)+$ backtrack for minutes.
      const evil = `${'a'.repeat(34)}!\n`.repeat(800);
      await server.request(RetainRequest.type, { runId: 'h', callId: 'evil', tool: 't', text: evil });
      for (const work of [
        () => server.request(PeekRequest.type, { valueId: 'evil', runId: 'h', query: '(a+)+$', regex: true }),
        () => server.request(RunSearchRequest.type, { runId: 'h', query: '(a+)+$', regex: true }),
        () =>
          server.request(PeekRequest.type, {
            valueId: 'evil',
            runId: 'h',
            query: '(a|aa)+$',
            regex: true,
            context: 20,
          }),
      ]) {
        const { workMs, otherMs } = await beside(server, work);
        assert.ok(
          workMs < HANG_MS && otherMs < HANG_MS,
          `answered in ${workMs} ms, the other request in ${otherMs} ms`,
        );
      }
      // A stack-trace landmark over a line of 160,000 '(': quadratic for a backtracking engine.
      const text = `output\n  at x${'('.repeat(160_000)}\n`;
      const retain = await beside(server, () =>
        server.request(RetainRequest.type, { runId: 'h', callId: 'parens', tool: 't', text }),
      );
      assert.ok(
        retain.workMs < HANG_MS && retain.otherMs < HANG_MS,
        `retained in ${retain.workMs} ms, the other in ${retain.otherMs} ms`,
      );
      const replay = await beside(server, () => server.request(ReplayRequest.type, { runId: 'h', shape: 'anthropic' }));
      assert.ok(replay.workMs < HANG_MS, `replayed in ${replay.workMs} ms`);
    } finally {
      await server.stop();
    }
  });

  it('a result over the largest message is refused with an error, unread; the server and the run stay well', async () => {
    const workspace = tempDir();
    const server = await ServerProcess.start({ workspace });
    try {
      await server.request(RetainRequest.type, { runId: 'big', callId: 'c1', tool: 't', text: 'small, before' });
      // 536,870,738 characters: as JSON, longer than a V8 string can be. Streamed, never held.
      const chars = 536_870_738;
      const head = `{"jsonrpc":"2.0","id":"huge-1","method":"${RetainRequest.method}","params":{"runId":"big","callId":"c2","tool":"t","text":"`;
      const tail = '"}}';
      const length = head.length + chars + tail.length;
      assert.ok(length > MAX_MESSAGE_BYTES);
      const answer = waitForResponse(server.child, 'huge-1');
      await write(server.child, `Content-Length: ${length}\r\n\r\n${head}`);
      const block = Buffer.alloc(1 << 20, 'x');
      for (let sent = 0; sent < chars; sent += block.length)
        await write(server.child, block.subarray(0, Math.min(block.length, chars - sent)));
      await write(server.child, tail);
      const error = (await answer) as { error?: { code: number; message: string } };
      assert.match(
        error.error?.message ?? '',
        /retained\/retain of \d+ bytes is over the 268435456-byte limit of one message: send a bigger output through the retained CLI or MCP server/,
      );
      // Alive, and the run reads in every way.
      const { runs } = await server.request(RunsRequest.type, {});
      assert.deepEqual(
        runs.map((r) => r.runId),
        ['big'],
      );
      const { events, skipped } = await server.request(TranscriptRequest.type, { runId: 'big', from: 0 });
      assert.equal(events.length, 1);
      assert.deepEqual(skipped, []);
      await server.request(InspectRequest.type, { runId: 'big', from: 0, limit: 10 });
      await server.request(RunSearchRequest.type, { runId: 'big', query: 'small' });
      assert.ok(await server.stillServes('big', 'c3'));
    } finally {
      await server.stop();
    }
  });

  it('a big text is retained from its JSON bytes exactly (every escape), and a bad escape in one is refused with the server alive', async () => {
    const workspace = tempDir();
    const server = await ServerProcess.start({ workspace });
    try {
      // 3 MB of lines with every kind of escape, and characters of every UTF-8 length.
      const line = (i: number) => `${i}\t"q" \\ back/slash \u0001\u001b[31m é ✗ 😀 \ud800 \u2028 error ${i}`;
      const text = `${Array.from({ length: 40_000 }, (_, i) => line(i)).join('\n')}\n`;
      const answer = await server.request(RetainRequest.type, { runId: 'lift', callId: 'c1', tool: 'bash', text });
      assert.equal(answer.retained, true);
      const value = readFileSync(join(workspace, '.retained', 'runs', 'lift.values', 'c1.txt'));
      assert.equal(sha256(value), sha256(Buffer.from(text, 'utf8')));
      // The stub is the one the same text gets decoded whole, in a service in this process.
      const inProcess = new RetentionService(join(tempDir(), '.retained'));
      await inProcess.init();
      const whole = await inProcess.retainer.retain({ runId: 'lift', callId: 'c1', tool: 'bash', text });
      assert.equal(answer.content, whole.content);
      assert.match(answer.content, /error at line 1, 2, 3/);
      const peek = await server.request(PeekRequest.type, { runId: 'lift', valueId: 'c1', start: 39_999, end: 40_000 });
      // A lone surrogate has no UTF-8: the value holds U+FFFD for it, as any UTF-8 encoder writes.
      assert.equal(peek.text.split('\n')[0], `39999: ${line(39_998).replace('\ud800', '\ufffd')}`);

      const bad = `{"jsonrpc":"2.0","id":"bad-1","method":"${RetainRequest.method}","params":{"runId":"lift","callId":"c3","tool":"t","text":"${'a'.repeat(2 << 20)}\\x"}}`;
      const refused = waitForResponse(server.child, 'bad-1');
      await write(server.child, `Content-Length: ${Buffer.byteLength(bad)}\r\n\r\n${bad}`);
      assert.match(
        ((await refused) as { error?: { message: string } }).error?.message ?? '',
        /params\.text has the escape \\x/,
      );
      assert.ok(await server.stillServes('lift', 'c4'));
    } finally {
      await server.stop();
    }
  });

  it('the same call id retained twice at once keeps both values: each stub points at the bytes it showed', async () => {
    const workspace = tempDir();
    const a = await ServerProcess.start({ workspace });
    const b = await ServerProcess.start({ workspace });
    try {
      const text = (tag: string, i: number) => `${tag} ${i}\n`.repeat(4000);
      // Twenty pairs in one process, ten across two processes.
      const pairs = [
        ...Array.from({ length: 20 }, (_, i) => [a, a, i] as const),
        ...Array.from({ length: 10 }, (_, i) => [a, b, 20 + i] as const),
      ];
      const answers = await Promise.all(
        pairs.map(([first, second, i]) =>
          Promise.all([
            first.request(RetainRequest.type, {
              runId: 'same',
              callId: `call_${i}`,
              tool: 't',
              text: text('first', i),
            }),
            second.request(RetainRequest.type, {
              runId: 'same',
              callId: `call_${i}`,
              tool: 't',
              text: text('second', i),
            }),
          ]),
        ),
      );
      const values = join(workspace, '.retained', 'runs', 'same.values');
      for (const [[one, two], [, , i]] of answers.map((pair, k) => [pair, pairs[k]!] as const)) {
        assert.ok(one.retained && two.retained);
        assert.notEqual(one.valueId, two.valueId, `pair ${i}: two values`);
        assert.equal(readFileSync(join(values, `${one.valueId}.txt`), 'utf8'), text('first', i));
        assert.equal(readFileSync(join(values, `${two.valueId}.txt`), 'utf8'), text('second', i));
        assert.ok(
          one.content.startsWith(`[retained #${one.valueId}]`) && two.content.startsWith(`[retained #${two.valueId}]`),
        );
      }
    } finally {
      await a.stop();
      await b.stop();
    }
  });

  it('kill -9 at random points of 30 retains leaves no stub pointing at nothing, and no temp file after a restart', async () => {
    const workspace = tempDir();
    const root = join(workspace, '.retained');
    const MB = 1 << 20;
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    // Temp files seen right after each kill (the next start sweeps them).
    let leftByKills = 0;
    for (let i = 0; i < 30; i++) {
      const server = await ServerProcess.start({ workspace });
      const size = Math.floor((2 + random() * 22) * MB);
      server
        .request(RetainRequest.type, { runId: 'crash', callId: `c${i}`, tool: 't', text: `${i}`.repeat(size) })
        .catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, random() * 1500));
      await server.kill('SIGKILL');
      leftByKills += tempFiles(root).length;
    }
    const after = await ServerProcess.start({ workspace });
    try {
      const status = await after.request(StatusRequest.type, {});
      assert.equal(status.tempFiles, 0, 'the temp files of the killed writers were swept at start');
      assert.deepEqual(tempFiles(root), []);
      const { events, skipped } = await readEvents(root, join(root, 'runs', 'crash.jsonl'));
      for (const e of events) {
        if (e.type !== 'tool_call_finished' || !e.valueId) continue;
        const file = join(root, 'runs', 'crash.values', `${e.valueId}.txt`);
        assert.ok(existsSync(file), `${e.callId} points at ${file}`);
        assert.equal(sha256(readFileSync(file)), e.sha256, `${e.callId}: the value is whole`);
      }
      console.log(
        `      crash loop: 30 kills, ${events.length} results recorded, ${skipped.length} torn lines skipped, ${leftByKills} temp files left by the killed writers (each swept by the next start), 0 after the restart`,
      );
      const ok = await after.request(RetainRequest.type, {
        runId: 'crash',
        callId: 'after',
        tool: 't',
        text: 'x'.repeat(30_000),
      });
      assert.ok(ok.retained);
    } finally {
      await after.stop();
    }
  });

  it('a stream that cannot be framed ends the server with the reason, rather than leaving it deaf', async () => {
    const cases: [string, RegExp][] = [
      ['Content-Length: abc\r\n\r\n{}', /Content-Length is not a whole number: "abc"/],
      ['Content-Length: -5\r\n\r\n{}', /Content-Length is not a whole number: "-5"/],
      ['Content-Length: 0\r\n\r\n', /Content-Length is 0/],
      ['Content-Length: 99999999999\r\n\r\n', /Content-Length 99999999999 is not a message length/],
      ['Content-Length: 2\n\n{}', /a header block ends with a bare "\\n"/],
      ['Content-Length: 30\r\n\r\n{"jsonrpc":"2.0","id":1,"method":"x"}', /a message body is not JSON/],
    ];
    for (const [input, reason] of cases) {
      const child = spawn(process.execPath, SERVER_ARGS, { stdio: 'pipe' });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.stdin.write(input);
      const code = await Promise.race([
        exit,
        new Promise<'alive'>((resolve) => setTimeout(() => resolve('alive'), 5000)),
      ]);
      if (code === 'alive') child.kill('SIGKILL');
      assert.equal(code, 2, `${JSON.stringify(input)}: the server ends (stderr: ${stderr})`);
      assert.match(stderr, reason);
    }
  });
});

function tempFiles(root: string): string[] {
  const runs = join(root, 'runs');
  if (!existsSync(runs)) return [];
  const out: string[] = [];
  for (const name of readdirSync(runs)) {
    if (name.includes('.tmp-')) out.push(name);
    if (name.endsWith('.values'))
      for (const inner of readdirSync(join(runs, name))) if (inner.startsWith('.tmp-')) out.push(`${name}/${inner}`);
  }
  return out;
}

function write(child: ChildProcess, data: string | Buffer): Promise<void> {
  return new Promise((resolve) => {
    if (child.stdin!.write(data)) resolve();
    else child.stdin!.once('drain', resolve);
  });
}

/** The response to `id`, read from the server's stdout beside the connection (which does not know the id). */
function waitForResponse(child: ChildProcess, id: string): Promise<unknown> {
  return new Promise((resolve) => {
    let seen = '';
    const onData = (d: Buffer) => {
      seen += d.toString('utf8');
      const at = seen.indexOf(`"id":"${id}"`);
      if (at === -1) return;
      const start = seen.lastIndexOf('{"jsonrpc"', at);
      const end = seen.indexOf('Content-Length', at);
      child.stdout!.off('data', onData);
      resolve(JSON.parse(seen.slice(start, end === -1 ? undefined : end)));
    };
    child.stdout!.on('data', onData);
  });
}
