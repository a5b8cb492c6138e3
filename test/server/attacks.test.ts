/**
 * Hostile input and faults, third round: what an adversary did to the import, the hook, the MCP
 * server, clean-up, the guard and several processes on one store, each as a test, most harmful
 * first. Lost data: clean-up racing a writer or a pin, a full or read-only store under a
 * command, the guard on a late or huge output. Files outside what the user pointed at: links
 * in a session folder, a saved-output path elsewhere, a log that is a link. A server that stops
 * answering: big and degenerate sessions, FIFOs in the store, a command that outlives its
 * timeout, an over-long MCP line. And the smaller ones.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { runCommand } from '../../server/src/core/retain/command';
import { RetentionService } from '../../server/src/core/service';
import { readEvents } from '../../server/src/core/store/transcript';
import { ImportRequest, RetainRequest, RunsRequest, StatusRequest, ValuesRequest } from '../../shared/protocol';
import { sessionFile } from '../helpers/asSent';
import { writeBigSession } from '../helpers/bigSession';
import { folderOf } from '../helpers/folderOf';
import { ServerProcess } from '../helpers/serverProcess';
import { removeTempDirs, tempDir } from '../helpers/tmp';

const CLI = resolve(__dirname, '../../dist/cli.js');
const RECORDED = resolve(__dirname, '../fixtures/claude-code');
const MB = 1024 * 1024;
const DAY_MS = 24 * 60 * 60 * 1000;

function retained(cwd: string, args: string[], input?: string, timeoutMs = 60_000) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd,
    input,
    encoding: 'utf8',
    maxBuffer: 256 << 20,
    timeout: timeoutMs,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, signal: r.signal };
}

/** The same, as a child process that runs alongside others. */
function retainedAsync(cwd: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

/** Every file of a run under `runs/`, recursively, made `days` old. */
function age(root: string, runId: string, days: number): void {
  const when = new Date(Date.now() - days * DAY_MS);
  const runs = join(root, 'runs');
  const touch = (path: string) => {
    if (!existsSync(path)) return;
    if (statSync(path).isDirectory()) for (const name of readdirSync(path)) touch(join(path, name));
    utimesSync(path, when, when);
  };
  for (const ext of ['jsonl', 'meta.json', 'values']) touch(join(runs, `${runId}.${ext}`));
}

async function mcpClient(workspace: string): Promise<Client> {
  const client = new Client({ name: 'attacks', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', '--run', 'm'],
      cwd: workspace,
      stderr: 'pipe',
    }),
  );
  return client;
}
const textOf = (result: unknown) =>
  (((result as { content?: unknown }).content ?? []) as { type: string; text?: string }[])
    .map((c) => c.text ?? '')
    .join('\n');

/** A store folder on its own small file system (tmpfs), so a write past its size fails with ENOSPC. */
function smallDisk(bytes: number): { dir: string; release: () => void } {
  const dir = tempDir();
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', dir]);
  return { dir, release: () => execFileSync('umount', ['-l', dir]) };
}

describe('attacks, third round', function () {
  this.timeout(300_000);
  after(removeTempDirs);

  describe('data a user would lose', () => {
    it('a clean-up racing a writer in another process removes nothing it was acknowledged', async () => {
      const cwd = tempDir();
      const store = join(cwd, '.retained');
      // 150 old runs the clean-up removes first, then the one being written to, old when it was planned.
      const s = new RetentionService(store);
      for (let i = 0; i < 150; i++) await s.retainer.retain({ runId: `other-${i}`, callId: 'c', tool: 't', text: 'x' });
      for (let i = 0; i < 150; i++) age(store, `other-${i}`, 41);
      assert.equal(retained(cwd, ['run', '--run', 'old', '--', 'echo first']).code, 0);
      age(store, 'old', 40);
      const cleaning = retainedAsync(cwd, ['cleanup']);
      const acknowledged: string[] = [];
      for (let i = 0; i < 12; i++) {
        const r = await retainedAsync(cwd, ['run', '--run', 'old', '--', `echo result-${i}`]);
        if (r.code === 0 && /in run old/.test(r.stderr)) acknowledged.push(`result-${i}`);
      }
      const cleaned = await cleaning;
      assert.equal(cleaned.code, 0, cleaned.stderr);
      assert.ok(!existsSync(join(store, 'runs', 'other-0.jsonl')), 'the clean-up ran');
      assert.equal(acknowledged.length, 12);
      const { events } = await readEvents(store, join(store, 'runs', 'old.jsonl'));
      const kept = new Set(events.flatMap((e) => (e.type === 'tool_call_finished' ? [(e.result ?? '').trim()] : [])));
      assert.deepEqual(
        acknowledged.filter((r) => !kept.has(r)),
        [],
        'every acknowledged result is in the run',
      );
    });

    it('a run pinned while a clean-up removes old runs one by one is not removed, and keeps its pin', async () => {
      const cwd = tempDir();
      const store = join(cwd, '.retained');
      const s = new RetentionService(store);
      for (let i = 0; i < 150; i++)
        await s.retainer.retain({ runId: `old-${String(i).padStart(3, '0')}`, callId: 'c', tool: 't', text: 'x' });
      for (let i = 0; i < 150; i++) age(store, `old-${String(i).padStart(3, '0')}`, 40 + (150 - i) / 100);
      const cleaning = retainedAsync(cwd, ['cleanup']);
      // Pinned while the clean-up is under way: the newest old run, removed last.
      await new Promise((r) => setTimeout(r, 150));
      const pinned = await retainedAsync(cwd, ['pin', 'old-149']);
      const cleaned = await cleaning;
      assert.equal(cleaned.code, 0, cleaned.stderr);
      if (pinned.code === 0) {
        assert.ok(existsSync(join(store, 'runs', 'old-149.jsonl')), 'the pinned run stays');
        assert.ok(existsSync(join(store, 'runs', 'old-149.pinned')), 'with its pin');
      } else assert.match(pinned.stderr, /no run "old-149"/, 'or the pin came after it was gone, and says so');
      assert.ok(!existsSync(join(store, 'runs', 'old-000.jsonl')), 'the clean-up did run');
    });

    it('a read-only store: `run` and MCP run_command give the output back verbatim with the reason, and the exit status', async () => {
      const cwd = tempDir();
      const store = join(cwd, '.retained');
      mkdirSync(join(store, 'runs'), { recursive: true });
      execFileSync('chmod', ['-R', 'a-w', store]);
      // As root, permissions do not stop writes: a read-only bind mount does.
      execFileSync('mount', ['--bind', '-o', 'ro', store, store]);
      try {
        const small = retained(cwd, ['run', '--', 'sh -c "echo thirteen bytes; exit 3"']);
        assert.equal(small.code, 3, small.stderr);
        assert.equal(small.stdout, 'thirteen bytes\n');
        assert.match(small.stderr, /kept verbatim, not recorded: the store could not take the output \(E(ROFS|ACCES)/);
        const client = await mcpClient(cwd);
        try {
          const text = textOf(await client.callTool({ name: 'run_command', arguments: { command: 'seq 1 30000' } }));
          assert.match(text, /^\[exit code 0\]\n1\n2\n3\n/);
          assert.ok(text.includes('\n30000'), 'the whole output');
        } finally {
          await client.close();
        }
      } finally {
        execFileSync('umount', [store]);
      }
    });

    it('a full store: a 15 MB output into a 3 MB store ends, with its head and tail verbatim, the reason and the exit status', () => {
      const disk = smallDisk(3 * MB);
      try {
        const cwd = disk.dir;
        const r = retained(cwd, ['run', '--', 'seq 1 2000000; exit 4'], undefined, 120_000);
        assert.equal(r.signal, null, 'it ended by itself');
        assert.equal(r.code, 4);
        assert.match(r.stdout, /^1\n2\n3\n/);
        assert.match(r.stdout, /\n\[… \d+ bytes of 14888896 not shown: the store could not keep this output \(ENOSPC/);
        assert.match(r.stdout, /\n1999999\n2000000\n$/);
        assert.match(r.stderr, /kept verbatim, not recorded: .*ENOSPC/);
        assert.ok(r.stdout.length < 2 * MB, 'bounded');
      } finally {
        disk.release();
      }
    });

    it('the guard: an output with a key printed after the deadline is withheld, its original written; the audit holds no output', async () => {
      const root = join(tempDir(), '.retained');
      const s = new RetentionService(root, { settings: { guard: { secrets: true } }, withhold: { deadlineMs: 200 } });
      const key = 'AKIAIOSFODNN7EXAMPLE';
      const r = await runCommand(s.retainer, {
        runId: 'g',
        callId: 'late',
        command: `sleep 0.6; echo "id=${key}"`,
        cwd: root.slice(0, -'/.retained'.length),
      });
      assert.equal(r.withheld?.outcome, 'written');
      assert.equal(readFileSync(join(root, r.withheld!.file!), 'utf8'), `id=${key}\n`);
      const audit = readFileSync(join(root, 'audit.jsonl'), 'utf8');
      assert.ok(!audit.includes(key), 'the key is not copied into the audit');
      assert.match(audit, /the secret guard found an AWS access key/);
    });

    it('the guard: a 600 MB output with a key keeps its original whole in withheld/, never held as one string', async () => {
      const root = join(tempDir(), '.retained');
      const s = new RetentionService(root, { settings: { guard: { secrets: true } } });
      const r = await runCommand(s.retainer, {
        runId: 'g',
        callId: 'huge',
        command:
          'head -c 600000000 /dev/zero | tr "\\0" "a"; echo; echo "token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"',
        cwd: root.slice(0, -'/.retained'.length),
      });
      assert.equal(r.withheld?.outcome, 'written');
      const tail = '\ntoken ghp_0123456789abcdefghijklmnopqrstuvwxyzAB\n';
      assert.equal(statSync(join(root, r.withheld!.file!)).size, 600_000_000 + tail.length);
      assert.ok(statSync(join(root, 'audit.jsonl')).size < 10_000);
    });
  });

  describe('files outside what the user pointed at', () => {
    /** A copy of the parallel-and-big session (its Bash output kept in tool-results/), and an outside file. */
    function session() {
      const dir = tempDir();
      cpSync(join(RECORDED, 'parallel-and-big', 'project'), join(dir, 'project'), { recursive: true });
      const file = sessionFile(dir);
      const folder = file.slice(0, -'.jsonl'.length);
      const outside = join(tempDir(), 'secret.txt');
      writeFileSync(outside, 'OUTSIDE-SECRET\n'.repeat(10_000));
      return { file, folder, outside };
    }
    const importInto = async (file: string) => {
      const s = new RetentionService(join(tempDir(), '.retained'));
      return { s, result: await s.importer.import({ path: file }) };
    };
    const holdsSecret = (root: string) =>
      execFileSync('grep', ['-rl', 'OUTSIDE-SECRET', root], { encoding: 'utf8' }).trim() !== '';

    it('an import does not read a tool-results file that is a link: the output is lost, said so', async () => {
      const { file, folder, outside } = session();
      const saved = join(folder, 'tool-results', readdirSync(join(folder, 'tool-results'))[0]!);
      rmSync(saved);
      symlinkSync(outside, saved);
      const { s, result } = await importInto(file);
      assert.equal(result.lostOutputs, 1);
      assert.throws(() => holdsSecret(folderOf(s.store).root));
    });

    it('an import does not read a tool-results folder that is a link', async () => {
      const { file, folder, outside } = session();
      rmSync(join(folder, 'tool-results'), { recursive: true });
      const elsewhere = tempDir();
      writeFileSync(join(elsewhere, 'bvqyt3xcw.txt'), readFileSync(outside));
      symlinkSync(elsewhere, join(folder, 'tool-results'));
      const { s, result } = await importInto(file);
      assert.equal(result.lostOutputs, 1);
      assert.throws(() => holdsSecret(folderOf(s.store).root));
    });

    it('an import does not import a subagent session that is a link', async () => {
      const dir = tempDir();
      cpSync(join(RECORDED, 'subagent', 'project'), join(dir, 'project'), { recursive: true });
      const file = sessionFile(dir);
      const agents = join(file.slice(0, -'.jsonl'.length), 'subagents');
      const real = readdirSync(agents).find((f) => f.endsWith('.jsonl'))!;
      symlinkSync(
        join(
          RECORDED,
          'parallel-and-big',
          'project',
          readdirSync(join(RECORDED, 'parallel-and-big', 'project')).find((f) => f.endsWith('.jsonl'))!,
        ),
        join(agents, 'agent-x.jsonl'),
      );
      const { result } = await importInto(file);
      assert.deepEqual(
        result.subagents.map((r) => r.name.split('-').pop()),
        [real.replace('.jsonl', '').split('-').pop()],
        'only the real subagent',
      );
    });

    const hookInput = (transcript: string, persisted: string) =>
      JSON.stringify({
        session_id: 's1',
        transcript_path: transcript,
        tool_name: 'Bash',
        tool_use_id: 'toolu_x',
        tool_input: { command: 'make' },
        tool_response: { stdout: 'short cut', stderr: '', interrupted: false, persistedOutputPath: persisted },
      });

    it("the hook reads a saved output only from its session's tool-results folder: elsewhere, or a link there, is not read", () => {
      const { outside } = session();
      const cwd = tempDir();
      const projects = tempDir();
      mkdirSync(join(projects, 's1', 'tool-results'), { recursive: true });
      symlinkSync(outside, join(projects, 's1', 'tool-results', 'toolu_x.txt'));
      for (const persisted of [outside, join(projects, 's1', 'tool-results', 'toolu_x.txt')]) {
        const r = retained(cwd, ['hook', 'claude-code'], hookInput(join(projects, 's1.jsonl'), persisted));
        assert.deepEqual([r.code, r.stdout], [0, ''], 'no answer: the output goes as Claude Code made it');
      }
      assert.ok(!existsSync(join(cwd, '.retained', 'runs')), 'nothing read into the store');
      assert.match(
        readFileSync(join(cwd, '.retained', 'hook.log'), 'utf8'),
        /not in this session's tool-results folder/,
      );
    });

    it('the hook never writes its log through a link', () => {
      const cwd = tempDir();
      const victim = join(tempDir(), 'victim.txt');
      writeFileSync(victim, 'untouched\n');
      mkdirSync(join(cwd, '.retained'));
      symlinkSync(victim, join(cwd, '.retained', 'hook.log'));
      const r = retained(cwd, ['hook', 'claude-code'], 'not json');
      assert.equal(r.code, 0);
      assert.equal(readFileSync(victim, 'utf8'), 'untouched\n');
    });

    it('hook input of the wrong shape is named in the log, field by field; the agent gets no answer and goes on', () => {
      const cwd = tempDir();
      const wrong = JSON.stringify({ session_id: 7, tool_name: 'Bash', tool_use_id: '', duration_ms: -1, cwd: '/x' });
      const r = retained(cwd, ['hook', 'claude-code'], wrong);
      assert.deepEqual([r.code, r.stdout], [0, '']);
      const log = readFileSync(join(cwd, '.retained', 'hook.log'), 'utf8');
      for (const field of ['session_id', 'tool_use_id', 'duration_ms'])
        assert.match(log, new RegExp(`the hook input\\.${field}`), `names ${field}`);
      assert.doesNotMatch(log, /\bcwd\b/, 'a field Claude Code adds is not an error');
    });

    it('with no store yet, a hook failure is still logged', () => {
      const cwd = tempDir();
      assert.equal(retained(cwd, ['hook', 'claude-code'], 'not json').code, 0);
      assert.match(readFileSync(join(cwd, '.retained', 'hook.log'), 'utf8'), /no answer/);
    });
  });

  describe('a server that would stop answering', () => {
    it('keeps answering retained/status while a 50 MB session imports (the order, not a time), and the import is exact', async () => {
      const file = join(tempDir(), 'big.jsonl');
      await writeBigSession(file, 50 * MB);
      const server = await ServerProcess.start({ workspace: tempDir() });
      try {
        let answered = false;
        const importing = server.request(ImportRequest.type, { path: file }).then((r) => {
          answered = true;
          return r;
        });
        // Each status is asked only after the last was answered: ten of them before the import ends
        // mean the server kept answering while it ran (how fast is the bench's: npm run bench).
        let answers = 0;
        while (!answered) {
          await server.request(StatusRequest.type, {});
          if (!answered) answers++;
          await new Promise((r) => setTimeout(r, 10));
        }
        const result = await importing;
        assert.equal(result.fidelity, 'exact');
        assert.ok(answers >= 10, `${answers} status answers came while the import ran`);
      } finally {
        await server.stop();
      }
    });

    it('degenerate sessions are read in bounded memory and time: 2,000 requests keeping 1e9 messages, 20 MB of {} lines', async () => {
      const dir = tempDir();
      const keepers = join(dir, 'keep.jsonl');
      const lines = [
        JSON.stringify({ type: 'user', sessionId: 'k', uuid: 'u', message: { role: 'user', content: 'hi' } }),
      ];
      const blob = { role: 'user', content: [{ type: 'text', text: 'x'.repeat(1000) }] };
      const { messageHash } = await import('../../server/src/core/import/wire');
      lines.push(JSON.stringify({ type: 'api-request-blob', hash: messageHash(blob), message: blob }));
      for (let i = 0; i < 2000; i++)
        lines.push(
          JSON.stringify({
            type: 'api-request',
            id: `r${i}`,
            ...(i ? { base: `r${i - 1}` } : {}),
            keep: 1e9,
            tail: [messageHash(blob)],
          }),
        );
      writeFileSync(keepers, `${lines.join('\n')}\n`);
      const empties = join(dir, 'empty.jsonl');
      writeFileSync(
        empties,
        `${JSON.stringify({ type: 'user', sessionId: 'e', message: { role: 'user', content: 'hi' } })}\n${'{}\n'.repeat(7_000_000)}`,
      );
      const server = await ServerProcess.start({ workspace: dir });
      try {
        for (const file of [keepers, empties]) {
          const started = Date.now();
          const result = await server.request(ImportRequest.type, { path: file });
          assert.ok(Date.now() - started < 30_000, `${file}: ${Date.now() - started} ms`);
          assert.ok(result.events > 0);
        }
        assert.ok(server.peakRssBytes() < 600 * MB, `peak ${Math.round(server.peakRssBytes() / MB)} MB`);
      } finally {
        await server.stop();
      }
    });

    it('a 300 MB output kept beside a session is streamed into its value, not read whole', async () => {
      const dir = tempDir();
      cpSync(join(RECORDED, 'parallel-and-big', 'project'), join(dir, 'project'), { recursive: true });
      const file = sessionFile(dir);
      const folder = join(file.slice(0, -'.jsonl'.length), 'tool-results');
      const saved = join(folder, readdirSync(folder)[0]!);
      execFileSync('sh', ['-c', `seq 1 40000000 | head -c 300000000 > "${saved}"`]);
      const server = await ServerProcess.start({ workspace: dir });
      try {
        const result = await server.request(ImportRequest.type, { path: file });
        assert.equal(result.lostOutputs, 0);
        const { values } = await server.request(ValuesRequest.type, { runId: result.runId });
        assert.ok(values.some((v) => v.bytes === 300_000_000));
        assert.ok(server.peakRssBytes() < 400 * MB, `peak ${Math.round(server.peakRssBytes() / MB)} MB`);
      } finally {
        await server.stop();
      }
    });

    it('a Copilot chat replay over 64 MiB is refused, unread, and the server answers on', async () => {
      const dir = tempDir();
      const file = join(dir, 'huge.chatreplay.json');
      writeFileSync(file, `{"prompts":[${'{"prompt":"x"},'.repeat(5_000_000)}{}]}`);
      const server = await ServerProcess.start({ workspace: dir });
      try {
        await assert.rejects(server.request(ImportRequest.type, { path: file }), /over the limit of 67108864/);
        assert.ok(await server.stillServes('r', 'c'));
      } finally {
        await server.stop();
      }
    });

    it('a FIFO where the store expects a file (blob, sidecars, transcript, run index) blocks nothing', async () => {
      const workspace = tempDir();
      const store = join(workspace, '.retained');
      const seed = new RetentionService(store);
      const text = 'y'.repeat(30_000);
      const first = await seed.retainer.retain({ runId: 'f', callId: 'v1', tool: 't', text });
      await seed.retainer.retain({ runId: 'fifo-run', callId: 'c', tool: 't', text: 'small' });
      const fifo = (path: string) => {
        rmSync(path, { force: true });
        execFileSync('mkfifo', [path]);
      };
      const values = join(store, 'runs', 'f.values');
      fifo(join(values, 'v1.meta.json'));
      fifo(join(values, 'v1.idx'));
      fifo(join(store, 'runs', 'fifo-run.jsonl'));
      fifo(join(store, 'runs', 'f.index.json'));
      fifo(join(store, 'blobs', first.valueId ? readdirSync(join(store, 'blobs'))[0]! : 'x'));
      const server = await ServerProcess.start({ workspace });
      try {
        const within = <T>(work: Promise<T>) =>
          Promise.race([
            work,
            new Promise<never>((_, fail) => setTimeout(() => fail(new Error('no answer in 5 s')), 5000)),
          ]);
        await within(server.request(RunsRequest.type, {}));
        await within(server.request(ValuesRequest.type, { runId: 'f' }));
        await within(server.request(StatusRequest.type, {}));
        // The same bytes again: the blob that is a FIFO is not reused, the value still written.
        const again = await within(server.request(RetainRequest.type, { runId: 'g', callId: 'v2', tool: 't', text }));
        assert.equal(again.retained, true);
        await within(
          server
            .request(RetainRequest.type, { runId: 'fifo-run', callId: 'c2', tool: 't', text: 'x' })
            .catch(() => undefined),
        );
      } finally {
        await server.stop();
      }
      const ls = retained(workspace, ['ls'], undefined, 10_000);
      assert.equal(ls.signal, null, 'ls ends');
    });

    it('MCP run_command with a 2 s timeout answers on time when the command leaves a detached child holding its output', async () => {
      const client = await mcpClient(tempDir());
      try {
        const started = Date.now();
        const result = await client.callTool({
          name: 'run_command',
          arguments: { command: 'setsid sh -c "sleep 30" & echo started; sleep 30', timeoutSeconds: 2 },
        });
        // A hang detector, not a figure: without the kill it would answer after the 30 s sleep.
        assert.ok(Date.now() - started < 20_000, `answered after ${Date.now() - started} ms`);
        assert.match(textOf(result), /^\[killed after 2 s\]\nstarted/);
      } finally {
        await client.close();
      }
    });

    it('an MCP input line over the limit is refused with a JSON-RPC error, and the server serves on', async () => {
      const child = spawn(process.execPath, [CLI, 'mcp'], { cwd: tempDir(), stdio: ['pipe', 'pipe', 'ignore'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      });
      child.stdin.write(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"pad":"${'z'.repeat(10 * MB)}"}}\n`);
      send({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
      for (let waited = 0; waited < 10_000 && !out.includes('"id":3'); waited += 50)
        await new Promise((r) => setTimeout(r, 50));
      child.kill();
      assert.match(out, /"id":null,"error":\{"code":-32600,"message":"a message of 10485\d+ bytes, over the/);
      assert.match(out, /\{"result":\{"tools":\[.*"id":3\}/);
    });
  });

  describe('smaller', () => {
    it('params sent as an array are refused as invalid params', async () => {
      const server = await ServerProcess.start({ workspace: tempDir() });
      try {
        await assert.rejects(server.raw('retained/runs', [1, 2]), (err: { code?: number; message?: string }) => {
          assert.equal(err.code, -32602);
          assert.match(err.message ?? '', /params must be an object \(got an array/);
          return true;
        });
        await assert.rejects(server.raw('retained/peek', [5]), (err: { code?: number }) => err.code === -32602);
      } finally {
        await server.stop();
      }
    });

    it('300 retains under `ulimit -n 48`: each is retained or kept verbatim with a warning, none fails', async () => {
      const workspace = tempDir();
      const server = await ServerProcess.start({ workspace, shellPrefix: 'ulimit -n 48' });
      try {
        const text = (i: number) => `${i}\n`.repeat(15_000);
        const results = await Promise.allSettled(
          Array.from({ length: 300 }, (_, i) =>
            server.request(RetainRequest.type, { runId: 'fd', callId: `c${i}`, tool: 't', text: text(i) }),
          ),
        );
        const failed = results.filter((r) => r.status === 'rejected');
        assert.deepEqual(failed.map((f) => String((f as PromiseRejectedResult).reason).slice(0, 120)).slice(0, 3), []);
        for (const [i, r] of results.entries()) {
          const answer = (r as PromiseFulfilledResult<{ retained: boolean; content: string; warning?: string }>).value;
          assert.ok(answer.retained || (answer.content === text(i) && answer.warning), `c${i}`);
        }
      } finally {
        await server.stop();
      }
    });
  });
});
