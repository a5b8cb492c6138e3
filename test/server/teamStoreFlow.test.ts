/**
 * The team store used as a team would, in a real PostgreSQL: `retained run` into it from a
 * command line, `peek` and `ls` on it, the language server started with `storeUrl` listing and
 * peeking the same run and hearing of new ones while they are written (LISTEN/NOTIFY); a reader
 * who may read but not write; and the faults: the database restarted while a 100 MB stream goes
 * in, a connection cut mid-peek, 16 writer processes at once.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { RetentionService } from '../../server/src/core/service';
import { connect } from '../../server/src/core/store/postgres/connect';
import {
  PeekRequest,
  RunsRequest,
  StatusRequest,
  ValueBytesRequest,
  ValueFileRequest,
  ValuesRequest,
} from '../../shared/protocol';
import { parseValueDocument } from '../../shared/valueDocument';
import { type Postgres, stallingProxy, startPostgres } from '../helpers/postgres';
import { ServerProcess } from '../helpers/serverProcess';
import { removeTempDirs, tempDir } from '../helpers/tmp';

const CLI = resolve(__dirname, '../../dist/cli.js');

function retained(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: tempDir(),
    encoding: 'utf8',
    env: { ...process.env, ...env },
    maxBuffer: 1 << 30,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The same, as a process of its own, for running many at once. */
function retainedAsync(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: tempDir() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

const stubId = (out: string) => /\[retained #([^\]\s]+)\]/.exec(out)?.[1];

describe('a team store used by a team, in a real PostgreSQL', function () {
  this.timeout(300_000);
  let pg: Postgres;
  before(async () => {
    pg = await startPostgres();
    assert.equal(retained(['migrate', '--store', pg.url]).code, 0);
  });
  after(() => {
    pg?.stop();
    removeTempDirs();
  });

  it('run prints a stub, peek finds the line, ls lists the run, and the language server with storeUrl lists and peeks it', async () => {
    const made = retained(['run', '--store', pg.url, '--run', 'ci/build 1', '--', 'seq 1 300000']);
    assert.equal(made.code, 0, made.stderr);
    const id = stubId(made.stdout);
    assert.ok(id, made.stdout.slice(0, 300));
    assert.ok(made.stdout.length < 4096, 'the stub, not the output');
    const found = retained(['peek', id, '--store', pg.url, '--grep', '299999']);
    assert.equal(found.code, 0, found.stderr);
    assert.match(found.stdout, /^299999: 299999$/m);
    assert.match(retained(['ls', '--store', pg.url]).stdout, /\t1 values\t.*\tci\/build 1$/m);

    // The team store beside this machine's: "Team" and "This machine" in the sidebar.
    const workspace = tempDir();
    assert.equal(
      retained(['run', '--store', `${workspace}/.retained`, '--run', 'local', '--', 'seq 1 100000']).code,
      0,
    );
    const server = await ServerProcess.start({ workspace, storeUrl: pg.url });
    try {
      const { runs } = await server.request(RunsRequest.type, { store: 'team' });
      const run = runs.find((r) => r.name === 'ci/build 1');
      assert.ok(run, JSON.stringify(runs));
      assert.equal(run.valueCount, 1);
      assert.deepEqual(
        (await server.request(RunsRequest.type, {})).runs.map((r) => r.runId),
        ['local'],
        "this machine's runs, apart",
      );
      const peeked = await server.request(PeekRequest.type, { valueId: id, query: '299999', store: 'team' });
      assert.match(peeked.text, /^299999: 299999$/m);
      const { values } = await server.request(ValuesRequest.type, { runId: run.runId, store: 'team' });
      assert.equal(values[0]?.valueId, id);
      // The editor reads a team value through the server: no file of it on this machine.
      const file = await server.request(ValueFileRequest.type, { valueId: id, runId: run.runId, store: 'team' });
      assert.match(file.uri, /^retained-value:.*store=team/);
      const tail = await server.request(ValueBytesRequest.type, {
        valueId: id,
        runId: run.runId,
        offset: file.bytes - 7,
        length: 100,
        store: 'team',
      });
      assert.equal(Buffer.from(tail.base64, 'base64').toString(), '300000\n');
      const status = await server.request(StatusRequest.type, {});
      assert.equal(status.runs, 1, "the status bar counts this machine's store");

      // A stub in any open document links to its value, found in the team store when not here.
      const uri = 'file:///ci-log.md';
      await server.connection.sendNotification('textDocument/didOpen', {
        textDocument: {
          uri,
          languageId: 'markdown',
          version: 1,
          text: `The CI job got:\n[retained #${id}] run_command result`,
        },
      });
      const links = await server.raw<{ target: string }[]>('textDocument/documentLink', { textDocument: { uri } });
      assert.equal(links.length, 1);
      assert.match(links[0]!.target, /store=team/);
      const linked = await server.request(ValueFileRequest.type, parseValueDocument(links[0]!.target.split('?')[1]!)!);
      assert.equal(linked.bytes, file.bytes);

      // Live: a run written elsewhere while the server watches is announced to it, as the team's.
      const heard = server.nextChange('ci_live', 20_000);
      assert.equal(retained(['run', '--store', pg.url, '--run', 'ci_live', '--', 'seq 1 100000']).code, 0);
      await heard;
      const after = await server.request(RunsRequest.type, { store: 'team' });
      assert.ok(after.runs.some((r) => r.runId === 'ci_live'));
    } finally {
      await server.stop();
    }
  });

  it("an agent's hook and MCP server write into the team store: the stub, then peek_value on it", async () => {
    // Claude Code's PostToolUse hook, as in CI with RETAINED_STORE set.
    const whole = Array.from({ length: 20_000 }, (_, i) =>
      i === 9000 ? 'error: boom at step 9000' : `step ${i} ok`,
    ).join('\n');
    const hook = spawnSync(process.execPath, [CLI, 'hook', 'claude-code'], {
      cwd: tempDir(),
      encoding: 'utf8',
      env: { ...process.env, RETAINED_STORE: pg.url },
      input: JSON.stringify({
        session_id: 'ci-session-7',
        tool_name: 'Bash',
        tool_use_id: 'toolu_ci7',
        tool_input: { command: 'make' },
        hook_event_name: 'PostToolUse',
        tool_response: { stdout: whole, stderr: '', interrupted: false, isImage: false },
      }),
    });
    assert.equal(hook.status, 0, hook.stderr);
    const answer = JSON.parse(hook.stdout) as { hookSpecificOutput: { updatedToolOutput: { stdout: string } } };
    assert.match(answer.hookSpecificOutput.updatedToolOutput.stdout, /^\[retained #toolu_ci7\] Bash result/);
    // The MCP server's peek_value, from another machine with the same URL.
    const client = new Client({ name: 'team-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'mcp', '--store', pg.url, '--run', 'mcp-team'],
        cwd: tempDir(),
        stderr: 'pipe',
      }),
    );
    try {
      const peek = await client.callTool({ name: 'peek_value', arguments: { id: 'toolu_ci7', query: 'boom' } });
      assert.match(JSON.stringify(peek.content), /9001: error: boom at step 9000/);
      const ran = await client.callTool({ name: 'run_command', arguments: { command: 'seq 1 100000' } });
      assert.match(JSON.stringify(ran.content), /\[retained #/);
    } finally {
      await client.close();
    }
    assert.match(retained(['ls', '--store', pg.url]).stdout, /^mcp-team\t1 values/m);
  });

  it('a login role granted only retained_reader lists and peeks, and its run runs the command, giving the output verbatim and naming the permission', async () => {
    const made = retained(['run', '--store', pg.url, '--run', 'for-readers', '--', 'seq 1 50000']);
    const id = stubId(made.stdout)!;
    await pg.sql(`CREATE ROLE reader_ann LOGIN PASSWORD 'reader pw'; GRANT retained_reader TO reader_ann;`);
    // The password as libpq takes it: PGPASSWORD, never in the URL.
    const url = pg.urlAs('reader_ann');
    const env = { PGPASSWORD: 'reader pw' };
    assert.match(retained(['ls', '--store', url], env).stdout, /for-readers/);
    assert.match(retained(['peek', id, '--store', url, '--grep', '49999'], env).stdout, /^49999: 49999$/m);
    // A reader's run: the command runs all the same, its output given verbatim with the reason, its exit status its own.
    const refused = retained(['run', '--store', url, '--', 'seq 1 50000; exit 3'], env);
    assert.equal(refused.code, 3, refused.stderr);
    assert.equal(refused.stdout, spawnSync('sh', ['-c', 'seq 1 50000'], { encoding: 'utf8' }).stdout);
    assert.match(refused.stderr, /the role reader_ann may not do this: permission denied for table \w+/);
    assert.match(refused.stderr, /an administrator grants retained_writer to write/);
    // Neither a reader nor a writer removes runs: a clean-up says whose it is, before touching anything.
    await pg.sql('CREATE ROLE writer_ci LOGIN; GRANT retained_writer TO writer_ci;');
    for (const role of [url, pg.urlAs('writer_ci')]) {
      const cleanup = retained(['cleanup', '--store', role], env);
      assert.equal(cleanup.code, 1);
      assert.match(
        cleanup.stderr,
        /may not remove runs from postgres:\/\/.*a clean-up of a team store is an administrator's/,
      );
    }
    assert.match(retained(['cleanup', '--dry-run', '--store', url], env).stdout, /would free/, "a dry run is anyone's");
    assert.match(retained(['ls', '--store', url], env).stdout, /for-readers/, 'nothing went');
  });

  it('the database restarted while a 100 MB stream goes in: the writer fails clearly or keeps it whole, never a stub to nothing', async () => {
    const writing = retainedAsync(['run', '--store', pg.url, '--run', 'restarted', '--', 'seq 1 14000000']);
    // Restarted while the value goes in (its chunks being written), or while the command streams.
    for (let i = 0; i < 300; i++) {
      const busy = await pg.sql(
        `SELECT 1 FROM pg_stat_activity WHERE application_name = 'retained' AND query LIKE '%blob_chunks%'`,
      );
      if (busy.length > 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    pg.restart();
    const r = await writing;
    const id = stubId(r.stdout);
    if (id) {
      // A stub was printed: it names a whole value.
      const found = retained(['peek', id, '--store', pg.url, '--grep', '13999999']);
      assert.match(found.stdout, /^13999999: 13999999$/m, found.stderr);
    } else {
      // No stub: the output came through verbatim, or the command says what failed.
      assert.ok(r.stdout.includes('13999999\n14000000\n') || /retained: /.test(r.stderr), r.stderr.slice(0, 500));
    }
    const dangling = await pg.sql(
      `SELECT v.value_id FROM run_values v JOIN blobs b USING (sha256) WHERE NOT b.complete
       UNION ALL SELECT v.value_id FROM run_values v WHERE NOT EXISTS (SELECT 1 FROM blobs b WHERE b.sha256 = v.sha256)`,
    );
    assert.deepEqual(dangling, [], 'no value names bytes that are not all there');
  });

  it('a connection cut mid-peek fails that peek clearly, and the next peek is answered', async () => {
    const made = retained(['run', '--store', pg.url, '--run', 'cut', '--', 'seq 1 2000000']);
    const id = stubId(made.stdout)!;
    const server = await ServerProcess.start({ workspace: tempDir(), storeUrl: pg.url });
    try {
      await server.request(PeekRequest.type, { valueId: id, start: 1, end: 2, store: 'team' });
      const peeks = Array.from({ length: 5 }, () =>
        server.request(PeekRequest.type, { valueId: id, query: 'no such line', store: 'team' }).then(
          () => 'answered',
          (err: Error) => err.message,
        ),
      );
      await pg.sql(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'retained' AND pid <> pg_backend_pid()`,
      );
      const outcomes = await Promise.all(peeks);
      for (const outcome of outcomes) assert.ok(outcome === 'answered' || outcome.length > 0, outcome);
      const again = await server.request(PeekRequest.type, { valueId: id, start: 1999999, store: 'team' });
      assert.equal(again.text, '1999999: 1999999\n2000000: 2000000');
    } finally {
      await server.stop();
    }
  });

  it('a staging folder a killed writer left is removed by the next writer; a live one is left alone', async () => {
    // A pid that is surely gone: a process that ran and ended.
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const left = join(tmpdir(), `retained-staging-${gone.stdout}-test`);
    mkdirSync(join(left, 'runs'), { recursive: true });
    writeFileSync(join(left, 'runs', 'half-a-value'), 'x'.repeat(1 << 20));
    const live = join(tmpdir(), `retained-staging-${process.pid}-test`);
    mkdirSync(live, { recursive: true });
    try {
      assert.equal(retained(['run', '--store', pg.url, '--run', 'after-a-kill', '--', 'seq 1 100000']).code, 0);
      assert.ok(!existsSync(left), "the dead writer's staging folder went");
      assert.ok(existsSync(live), "a live process's stays");
    } finally {
      rmSync(live, { recursive: true, force: true });
      rmSync(left, { recursive: true, force: true });
    }
  });

  it('16 writer processes retaining into one run and into runs of their own: every event and value there, none mixed', async () => {
    const writers = Array.from({ length: 16 }, (_, w) => w);
    // Each output is its writer's own: 100 KB of lines naming the writer.
    const command = (w: number) => `seq 1 12000 | sed 's/^/writer ${w} line /'`;
    const results = await Promise.all(
      writers.flatMap((w) => [
        retainedAsync(['run', '--store', pg.url, '--run', 'shared-16', '--', command(w)]),
        retainedAsync(['run', '--store', pg.url, '--run', `own-${w}`, '--', command(w)]),
      ]),
    );
    for (const r of results) assert.equal(r.code, 0, r.stderr);
    const ids = results.map((r) => stubId(r.stdout));
    assert.ok(
      ids.every((id) => id),
      'every writer got a stub',
    );
    const shared = await pg.sql(
      `SELECT count(*)::int AS n, count(DISTINCT seq)::int AS seqs, max(seq)::int AS last FROM events WHERE run_id = 'shared-16'`,
    );
    assert.ok(
      shared[0]!.n === shared[0]!.seqs && Number(shared[0]!.last) === Number(shared[0]!.n) - 1,
      'no gap, no repeat',
    );
    // Each stub names its own writer's bytes, whole (read in this process, through the same store interface).
    const reader = new RetentionService(pg.url);
    try {
      for (const [i, r] of results.entries()) {
        const w = writers[Math.floor(i / 2)]!;
        const runId = i % 2 === 0 ? 'shared-16' : `own-${w}`;
        const head = await reader.values.peek({ valueId: ids[i]!, runId, start: 1, end: 1 });
        assert.equal(head.text, `1: writer ${w} line 1`, runId);
        assert.equal(head.totalLines, 12000);
        const last = await reader.values.peek({ valueId: ids[i]!, runId, start: 12000 });
        assert.equal(last.text, `12000: writer ${w} line 12000`);
        assert.ok(r.stdout.length < 4096);
      }
    } finally {
      reader.dispose();
    }
    const values = await pg.sql(`SELECT count(*)::int AS n FROM run_values WHERE run_id = 'shared-16'`);
    assert.equal(values[0]!.n, 16);
  });

  it('the team store down, on a newer schema, or with no connection for the role: the command runs all the same, its output given as it came, its exit status its own, and kept here to push later', async () => {
    await pg.sql('CREATE ROLE no_slots LOGIN CONNECTION LIMIT 0; GRANT retained_writer TO no_slots;');
    await pg.sql('CREATE DATABASE newer');
    const newer = pg.url.replace(/\/retained$/, '/newer');
    assert.equal(retained(['migrate', '--store', newer]).code, 0);
    const admin = await connect(newer);
    await admin.query('UPDATE retained_schema SET version = 99');
    await admin.end();
    const command = 'seq 1 30000; echo oops >&2; exit 3';
    const plain = spawnSync('bash', ['-c', command], { encoding: 'utf8', maxBuffer: 1 << 26 });
    for (const [what, store] of [
      ['unreachable', 'postgres://nobody@127.0.0.1:1/retained'],
      ['a newer schema', newer],
      ['no connection slot', pg.urlAs('no_slots')],
    ] as const) {
      const cwd = tempDir();
      const r = spawnSync(process.execPath, [CLI, 'run', '--store', store, '--run', 'down', '--', command], {
        cwd,
        encoding: 'utf8',
        maxBuffer: 1 << 26,
      });
      assert.equal(r.status, 3, `${what}: ${r.stderr}`);
      assert.equal(r.stdout, plain.stdout, `${what}: the output, as it came`);
      assert.match(r.stderr, /^oops$/m, what);
      assert.match(
        r.stderr,
        /^retained: not recorded in postgres:\/\/\S+: .+; the output is given as it came, and kept in \S+ \(run down\)/m,
        what,
      );
      const here = spawnSync(process.execPath, [CLI, 'ls', 'down'], { cwd, encoding: 'utf8' });
      assert.match(here.stdout, /30001 lines|30,001 lines/, `${what}: kept here: ${here.stdout}${here.stderr}`);
    }
  });

  it('a network that stalls while the output goes in: the command ends as it would, all its output is given, and it is kept here to push later', async () => {
    const proxy = await stallingProxy(pg.url);
    try {
      const cwd = tempDir();
      const marker = join(cwd, 'printed');
      // Over the 1 MiB a refused output keeps of its head and tail: only the staged file has it all.
      const command = `seq 1 300000; echo oops >&2; touch ${marker}; sleep 1; exit 4`;
      const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
        const child = spawn(
          process.execPath,
          [CLI, 'run', '--store', `${proxy.url}?query_timeout=3000`, '--run', 'stalled', '--', command],
          { cwd },
        );
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d));
        child.stderr.on('data', (d: Buffer) => (stderr += d));
        child.on('close', (code) => done({ code, stdout, stderr }));
        const watch = setInterval(() => {
          if (!existsSync(marker)) return;
          clearInterval(watch);
          proxy.stall();
        }, 20);
      });
      assert.equal(r.code, 4, r.stderr);
      const plain = spawnSync('bash', ['-c', 'seq 1 300000'], { encoding: 'utf8', maxBuffer: 1 << 26 });
      assert.equal(
        r.stdout,
        `${plain.stdout}oops\n`,
        `the whole output, as it came, in the order it came: ${r.stderr}`,
      );
      assert.match(r.stderr, /not recorded in postgres:\/\/\S+ \(.*timeout.*\); the output is given as it came/i);
      const here = spawnSync(process.execPath, [CLI, 'ls', 'stalled'], { cwd, encoding: 'utf8' });
      assert.match(here.stdout, /\trun_command\t\d+ bytes\t300001 lines\t/, `kept here: ${here.stdout}${here.stderr}`);
      const valueId = /^(\S+)\trun_command\t/m.exec(here.stdout)![1]!;
      const peeked = spawnSync(
        process.execPath,
        [CLI, 'peek', '--run', 'stalled', '--lines', '299999:300001', valueId],
        { cwd, encoding: 'utf8' },
      );
      assert.match(peeked.stdout, /299999: 299999\n300000: 300000\n300001: oops/, peeked.stderr);
    } finally {
      await proxy.close();
    }
  });
});
