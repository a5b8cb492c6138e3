/**
 * The team store in a real PostgreSQL (test/helpers/postgres.ts: Debian's server on a temporary
 * data folder and a free port): `retained migrate` creates the schema and the two roles, and is
 * idempotent; a login role granted `retained_reader` reads but cannot write, and the message
 * names what it lacked; other commands on a postgres:// store are refused plainly, never taken
 * for a folder.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { RetentionService } from '../../server/src/core/service';
import { connect, storeError } from '../../server/src/core/store/postgres/connect';
import { SCHEMA_VERSION } from '../../server/src/core/store/postgres/schema';
import { TeamStore } from '../../server/src/core/store/postgres/teamStore';
import { appendEvents } from '../../server/src/core/store/postgres/transfer';
import type { TranscriptEvent } from '../../shared/events';
import { InvalidInput } from '../../shared/invalidInput';
import { type Postgres, startPostgres } from '../helpers/postgres';
import { removeTempDirs, tempDir } from '../helpers/tmp';

const CLI = resolve(__dirname, '../../dist/cli.js');

function retained(cwd: string, args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: { ...process.env, ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('a team store in a real PostgreSQL', function () {
  this.timeout(120_000);
  let pg: Postgres;
  before(async () => {
    pg = await startPostgres();
  });
  after(() => {
    pg?.stop();
    removeTempDirs();
  });

  it('retained migrate creates the schema and the two roles, and a second run changes nothing', async () => {
    const cwd = tempDir();
    const first = retained(cwd, ['migrate', '--store', pg.url]);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, new RegExp(`schema version 0 → ${SCHEMA_VERSION}`));
    const tables = (await pg.sql(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`)).map(
      (r) => r.tablename,
    );
    assert.deepEqual(tables, [
      'audit',
      'blob_chunks',
      'blob_uploads',
      'blobs',
      'events',
      'retained_schema',
      'run_indexes',
      'run_values',
      'runs',
      'withheld',
    ]);
    const roles = (await pg.sql(`SELECT rolname FROM pg_roles WHERE rolname LIKE 'retained\\_%' ORDER BY 1`)).map(
      (r) => r.rolname,
    );
    assert.deepEqual(roles, ['retained_admin', 'retained_reader', 'retained_writer']);
    const again = retained(cwd, ['migrate'], { RETAINED_STORE: pg.url });
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /schema up to date/);
    assert.ok(!existsSync(join(cwd, 'postgres:')), 'the URL is never taken for a folder');
  });

  it('a reader reads but may not write, and is told what it lacked; a writer adds but may not delete', async () => {
    retained(tempDir(), ['migrate', '--store', pg.url]);
    await pg.sql(`CREATE ROLE alice LOGIN; GRANT retained_reader TO alice;`);
    await pg.sql(`CREATE ROLE ci LOGIN; GRANT retained_writer TO ci;`);
    const ci = await connect(pg.urlAs('ci'));
    await ci.query(`INSERT INTO runs (run_id, name) VALUES ($1, $1)`, ['r1']);
    await assert.rejects(
      ci.query(`DELETE FROM runs WHERE run_id = 'r1'`).catch((err) => {
        throw storeError(err, 'ci');
      }),
      /the role ci may not do this: permission denied for table runs \(an administrator grants retained_writer/,
    );
    await ci.end();
    const alice = await connect(pg.urlAs('alice'));
    assert.deepEqual((await alice.query('SELECT run_id FROM runs')).rows, [{ run_id: 'r1' }]);
    await assert.rejects(
      alice.query(`INSERT INTO runs (run_id, name) VALUES ('r2', 'r2')`).catch((err) => {
        throw storeError(err, 'alice');
      }),
      /the role alice may not do this: permission denied for table runs/,
    );
    await assert.rejects(alice.query('SELECT * FROM withheld'), /permission denied for table withheld/);
    await alice.end();
    // Up to date, a reader's migrate changes nothing; only an administrator creates a schema.
    assert.match(retained(tempDir(), ['migrate', '--store', pg.urlAs('alice')]).stdout, /schema up to date/);
    await pg.sql('CREATE DATABASE fresh');
    const denied = retained(tempDir(), ['migrate', '--store', pg.urlAs('alice').replace(/\/retained$/, '/fresh')]);
    assert.equal(denied.code, 1);
    assert.match(denied.stderr, /the role alice may not do this: permission denied for schema public/);
  });

  it('a password refused, or none given, is said as such and names the role: not as a database out of reach', async () => {
    await pg.sql(`CREATE ROLE pat LOGIN PASSWORD 'pat pw'; GRANT retained_reader TO pat;`);
    pg.requirePassword('pat');
    const cwd = tempDir();
    const url = pg.urlAs('pat');
    // A hang detector, not a timing: node-postgres left the socket open, and the command waited out the server's minute.
    const none = spawnSync(process.execPath, [CLI, 'ls', '--store', url], {
      cwd,
      encoding: 'utf8',
      env: { ...process.env, PGPASSWORD: '' },
      timeout: 40_000,
    });
    assert.equal(none.signal, null, 'refused, the command ends at once, not at the authentication_timeout');
    assert.equal(none.status, 1, none.stderr);
    assert.match(none.stderr, /asks the role pat for a password, and none was given/);
    const wrong = retained(cwd, ['ls', '--store', url], { PGPASSWORD: 'not it' });
    assert.match(wrong.stderr, /refused the role pat: password authentication failed for user "pat"/);
    for (const said of [none.stderr, wrong.stderr]) assert.doesNotMatch(said, /cannot reach/);
    assert.equal(retained(cwd, ['ls', '--store', url], { PGPASSWORD: 'pat pw' }).code, 0);
  });

  it('says where it cannot reach, without a password in the message', async () => {
    const cwd = tempDir();
    const away = retained(cwd, ['migrate', '--store', 'postgres://someone:s3cret@127.0.0.1:1/retained']);
    assert.equal(away.code, 1);
    assert.match(away.stderr, /cannot reach postgres:\/\/someone:\*\*\*@127\.0\.0\.1:1\/retained/);
    assert.ok(!away.stderr.includes('s3cret'), 'the password is never printed');
    assert.equal(retained(cwd, ['migrate']).code, 2, 'migrate on a folder is a wrong command line');
    // Two migrating at once take turns.
    const both = await Promise.all(
      [0, 1].map(async () => {
        const client = new Client({ connectionString: pg.url });
        await client.connect();
        const { migrate } = await import('../../server/src/core/store/postgres/migrate');
        try {
          return await migrate(client);
        } finally {
          await client.end();
        }
      }),
    );
    assert.ok(both.every((r) => r.to === SCHEMA_VERSION));
  });

  it('push uploads a run (its values once for the team), pull brings it down byte for byte, and a reader may pull but not push', async () => {
    retained(tempDir(), ['migrate', '--store', pg.url]);
    const here = tempDir();
    const made = retained(here, ['run', '--run', 'ci/job 7', '--', 'seq 1 300000; echo "error: boom"']);
    assert.equal(made.code, 0, made.stderr);
    const id = /\[retained #(\S+)\]/.exec(made.stdout)?.[1];
    assert.ok(id, made.stdout.slice(0, 300));
    const pushed = retained(here, ['push', 'ci/job 7', '--store', pg.url]);
    assert.equal(pushed.code, 0, pushed.stderr);
    assert.match(pushed.stdout, /pushed run .*: 1 new event, 1 value sent \(\d+ bytes\), 0 there already/);
    // The same output in another run: its bytes are not sent again; the same push again adds nothing.
    retained(here, ['run', '--run', 'other', '--', 'seq 1 300000; echo "error: boom"']);
    assert.match(
      retained(here, ['push', 'other', '--store', pg.url]).stdout,
      /1 new event, 0 values sent \(0 bytes\), 1 there already/,
    );
    assert.match(
      retained(here, ['push', 'ci/job 7', '--store', pg.url]).stdout,
      /0 new events, 0 values sent \(0 bytes\), 1 there already/,
    );
    const chunks = await pg.sql('SELECT n, first_line, length(data) AS bytes FROM blob_chunks ORDER BY n');
    assert.ok(chunks.length >= 2, 'a 2 MB value in chunks of at most 1 MiB');
    assert.ok(chunks.every((c) => Number(c.bytes) <= 1 << 20));
    assert.equal(Number(chunks[0]!.first_line), 1);

    // A teammate pulls it, as a reader, into a folder of their own: the same events and bytes.
    await pg.sql('CREATE ROLE bob LOGIN; GRANT retained_reader TO bob;');
    const there = tempDir();
    const pulled = retained(there, ['pull', 'ci/job 7', '--store', pg.urlAs('bob')]);
    assert.equal(pulled.code, 0, pulled.stderr);
    const runsHere = join(here, '.retained', 'runs');
    const runsThere = join(there, '.retained', 'runs');
    const run = readdirSync(runsHere).find((f) => f.endsWith('.jsonl') && f.startsWith('ci'))!;
    const events = (dir: string) =>
      readFileSync(join(dir, run), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown);
    assert.deepEqual(events(runsThere), events(runsHere), 'the same events');
    const values = run.replace(/\.jsonl$/, '.values');
    assert.deepEqual(
      readFileSync(join(runsThere, values, `${id}.txt`)),
      readFileSync(join(runsHere, values, `${id}.txt`)),
    );
    assert.match(retained(there, ['peek', id, '--grep', '299999']).stdout, /^299999: 299999$/m);
    assert.match(retained(there, ['ls']).stdout, /ci\/job 7/);
    assert.match(retained(there, ['pull', 'ci/job 7', '--store', pg.url]).stderr, /is in .* already/);
    // The team store lists its runs and a run's values, as a folder's ls does.
    assert.match(
      retained(there, ['ls', '--store', pg.url]).stdout,
      /^ci_job_7\S*\t1 values\t\d+ bytes kept out\t.*\tci\/job 7$/m,
    );
    assert.match(
      retained(there, ['ls', 'ci/job 7', '--store', pg.url]).stdout,
      new RegExp(`^${id}\\trun_command\\t1988907 bytes\\t300001 lines\\t`, 'm'),
    );

    // Bob may not push; the message names the role and the grant.
    const refused = retained(there, ['push', 'ci/job 7', '--store', pg.urlAs('bob')]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /the role bob may not do this: permission denied for table runs/);
    assert.match(retained(there, ['pull', 'nothing', '--store', pg.url]).stderr, /no run nothing in the team store/);
  });

  it('a hostile run id reaches SQL as a parameter, never in its text', async () => {
    retained(tempDir(), ['migrate', '--store', pg.url]);
    const here = tempDir();
    const hostile = "x'); DROP TABLE runs; --";
    assert.equal(retained(here, ['run', '--run', hostile, '--', 'echo hi']).code, 0);
    const pushed = retained(here, ['push', hostile, '--store', pg.url]);
    assert.equal(pushed.code, 0, pushed.stderr);
    const names = (await pg.sql('SELECT name FROM runs WHERE name = $1', [hostile])).map((r) => r.name);
    assert.deepEqual(names, [hostile]);
    assert.ok((await pg.sql(`SELECT to_regclass('runs') AS t`))[0]!.t, 'runs is still there');
  });

  it('a push killed while a value goes in leaves nothing a stub could name; the next push completes it', async () => {
    retained(tempDir(), ['migrate', '--store', pg.url]);
    const here = tempDir();
    const made = retained(here, ['run', '--run', 'killed', '--', 'seq 1 4000000']);
    const id = /\[retained #(\S+)\]/.exec(made.stdout)?.[1] ?? 'missing';
    const complete = async () =>
      (await pg.sql('SELECT sha256 FROM blobs WHERE complete ORDER BY 1')).map((r) => r.sha256);
    const before = await complete();
    const child = spawn(process.execPath, [CLI, 'push', 'killed', '--store', pg.url], { cwd: here, stdio: 'ignore' });
    const closed = new Promise((done) => child.on('close', done));
    // Killed while its chunks are going in (the value's transaction open).
    for (let i = 0; i < 500; i++) {
      const busy = await pg.sql(
        `SELECT 1 FROM pg_stat_activity WHERE application_name = 'retained' AND query LIKE '%blob_uploads%'`,
      );
      if (busy.length > 0) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    child.kill('SIGKILL');
    await closed;
    // The server sees the connection go and rolls its transaction back.
    for (let i = 0; i < 200; i++) {
      if ((await pg.sql(`SELECT 1 FROM pg_stat_activity WHERE application_name = 'retained'`)).length === 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.deepEqual(await pg.sql(`SELECT run_id FROM runs WHERE run_id = 'killed'`), [], 'no run');
    assert.deepEqual(await complete(), before, 'no value of it complete');
    assert.deepEqual(
      await pg.sql(`SELECT value_id FROM run_values WHERE run_id = 'killed'`),
      [],
      'nothing names a value',
    );
    const again = retained(here, ['push', 'killed', '--store', pg.url]);
    assert.equal(again.code, 0, again.stderr);
    const there = tempDir();
    assert.equal(retained(there, ['pull', 'killed', '--store', pg.url]).code, 0);
    assert.match(retained(there, ['peek', id, '--grep', '3999999']).stdout, /^3999999: 3999999$/m);
  });

  it('a pull killed while a value comes down is taken back by the next pull, which completes it', async () => {
    retained(tempDir(), ['migrate', '--store', pg.url]);
    const here = tempDir();
    const made = retained(here, ['run', '--run', 'big-pull', '--', 'seq 1 4000000']);
    const id = /\[retained #(\S+)\]/.exec(made.stdout)?.[1] ?? 'missing';
    assert.equal(retained(here, ['push', 'big-pull', '--store', pg.url]).code, 0);
    const there = tempDir();
    const child = spawn(process.execPath, [CLI, 'pull', 'big-pull', '--store', pg.url], {
      cwd: there,
      stdio: 'ignore',
    });
    const closed = new Promise((done) => child.on('close', done));
    for (let i = 0; i < 500; i++) {
      const busy = await pg.sql(
        `SELECT 1 FROM pg_stat_activity WHERE application_name = 'retained' AND query LIKE '%FROM blob_chunks%'`,
      );
      if (busy.length > 0) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    child.kill('SIGKILL');
    await closed;
    const again = retained(there, ['pull', 'big-pull', '--store', pg.url]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(retained(there, ['peek', id, '--grep', '3999999']).stdout, /^3999999: 3999999$/m);
    // And a run that is whole here is still never pulled over.
    const twice = retained(there, ['pull', 'big-pull', '--store', pg.url]);
    assert.equal(twice.code, 1);
    assert.match(twice.stderr, /is in .* already/);
  });

  it("never appends one machine's run to another's of the same id, and never takes a damaged value file for its value", async () => {
    retained(tempDir(), ['migrate', '--store', pg.url]);
    const a = tempDir();
    const b = tempDir();
    retained(a, ['run', '--run', 'same', '--', 'echo from a']);
    retained(b, ['run', '--run', 'same', '--', 'echo from b']);
    retained(b, ['run', '--run', 'same', '--', 'echo again']);
    assert.equal(retained(a, ['push', 'same', '--store', pg.url]).code, 0);
    const mixed = retained(b, ['push', 'same', '--store', pg.url]);
    assert.equal(mixed.code, 1);
    assert.match(mixed.stderr, /run same in the team store is not this run as it is here \(event 1 differs\)/);
    assert.equal(Number((await pg.sql(`SELECT count(*) AS n FROM events WHERE run_id = 'same'`))[0]!.n), 1);

    const c = tempDir();
    const made = retained(c, ['run', '--run', 'damaged', '--', 'seq 1 100000']);
    const id = /\[retained #(\S+)\]/.exec(made.stdout)?.[1] ?? 'missing';
    const runs = join(c, '.retained', 'runs');
    const file = join(runs, readdirSync(runs).find((f) => f.endsWith('.values'))!, `${id}.txt`);
    const bytes = readFileSync(file);
    bytes[10] = bytes[10] === 0x31 ? 0x32 : 0x31;
    chmodSync(file, 0o644);
    writeFileSync(file, bytes);
    const refused = retained(c, ['push', 'damaged', '--store', pg.url]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /does not hash to .*nothing of it was kept/);
    assert.deepEqual(await pg.sql(`SELECT run_id FROM runs WHERE run_id = 'damaged'`), []);
  });

  it('no writer can put other bytes under a hash, hide a blob or add to one: only the function that checks the hash finishes a blob', async () => {
    retained(tempDir(), ['migrate', '--store', pg.url]);
    await pg.sql('CREATE ROLE mallory LOGIN; GRANT retained_writer TO mallory;');
    // A build log anyone can predict, so its SHA-256 too.
    const command = 'seq 1 30000';
    const sha = createHash('sha256')
      .update(execFileSync('sh', ['-c', command]))
      .digest('hex');
    const mallory = await connect(pg.urlAs('mallory'));
    const denied = /permission denied for table (blobs|blob_chunks)/;
    try {
      // The attack that worked: a blob row of its own under that hash, marked complete, with chunks.
      await assert.rejects(
        mallory.query('INSERT INTO blobs (sha256, bytes, lines, complete) VALUES ($1, 8, 1, true)', [sha]),
        denied,
      );
      await assert.rejects(
        mallory.query(`INSERT INTO blob_chunks (sha256, n, first_line, data) VALUES ($1, 0, 1, 'planted')`, [sha]),
        denied,
      );
      // Through the one door a writer has: other bytes under the hash are refused, by size and by hash.
      for (const planted of ['planted\n', `${'9\n'.repeat(50000)}`]) {
        const upload = randomUUID();
        await mallory.query('BEGIN');
        await mallory.query('INSERT INTO blob_uploads (upload, n, first_line, data) VALUES ($1, 0, 1, $2)', [
          upload,
          Buffer.from(planted),
        ]);
        await assert.rejects(
          mallory.query('SELECT retained_finish_blob($1, $2, $3)', [upload, sha, Buffer.byteLength(planted)]),
          /upload of [0-9a-f]{64}: (its bytes hash to|\d+ bytes, not)/,
        );
        await mallory.query('ROLLBACK');
        // The other door, the last chunks given with the call: the same checks.
        await assert.rejects(
          mallory.query('SELECT retained_finish_blob($1, $2, $3, $4, $5, $6)', [
            randomUUID(),
            sha,
            Buffer.byteLength(planted),
            Buffer.from(planted),
            [Buffer.byteLength(planted)],
            [1],
          ]),
          /upload of [0-9a-f]{64}: (its bytes hash to|\d+ bytes, not)/,
        );
      }
      // Sizes that do not add up to the bytes given, or a chunk said to start elsewhere, are refused.
      for (const [sizes, lines] of [
        [[3], [1]],
        [[4, 4], [1]],
        [[8], [2]],
      ] as const)
        await assert.rejects(
          mallory.query('SELECT retained_finish_blob($1, $2, $3, $4, $5, $6)', [
            randomUUID(),
            sha,
            8,
            Buffer.from('planted\n'),
            sizes,
            lines,
          ]),
          /upload of [0-9a-f]{64}: (the last chunks are not the sizes said|chunk 0 is not where chunk 0 starts)/,
        );
      // Nor can it write into another login's upload.
      await assert.rejects(
        mallory.query(`INSERT INTO blob_uploads (upload, owner, n, first_line, data) VALUES ($1, 'ci', 0, 1, 'x')`, [
          randomUUID(),
        ]),
        /violates check constraint/,
      );
      // The honest teammate's command: its value is its own bytes, and a peek reads its lines
      // (the blob has no stored index: the team store's own chunks say where lines are).
      const honest = tempDir();
      const made = retained(honest, ['run', '--store', pg.url, '--run', 'honest', '--', command]);
      assert.equal(made.code, 0, made.stderr);
      const id = /\[retained #(\S+)\]/.exec(made.stdout)?.[1] ?? 'missing';
      const peek = retained(honest, ['peek', id, '--store', pg.url, '--lines', '29999:30000']);
      assert.equal(peek.stdout, '29999: 29999\n30000: 30000\n', peek.stderr);
      // Once complete, a writer can neither hide it nor add a chunk.
      await assert.rejects(mallory.query('UPDATE blobs SET complete = false WHERE sha256 = $1', [sha]), denied);
      await assert.rejects(
        mallory.query(`INSERT INTO blob_chunks (sha256, n, first_line, data) VALUES ($1, 99, 1, 'x')`, [sha]),
        denied,
      );
      assert.deepEqual(await pg.sql(`SELECT count(*)::int AS n FROM blob_uploads`), [{ n: 0 }], 'no upload left');
    } finally {
      await mallory.end();
    }
  });

  it("a run's inspector index is each login's own: no teammate reads, writes, replaces or removes another's", async () => {
    retained(tempDir(), ['migrate', '--store', pg.url]);
    await pg.sql('CREATE ROLE indexer LOGIN; GRANT retained_writer TO indexer;');
    await pg.sql('CREATE ROLE snoop LOGIN; GRANT retained_writer TO snoop;');
    await pg.sql('CREATE ROLE viewer LOGIN; GRANT retained_reader TO viewer;');
    const services: RetentionService[] = [];
    const serve = async (role: string) => {
      const s = new RetentionService(pg.urlAs(role), { indexImports: false });
      await s.init();
      services.push(s);
      return s;
    };
    const snoop = await connect(pg.urlAs('snoop'));
    try {
      const writer = await serve('indexer');
      await writer.retainer.retain({ runId: 'indexed', callId: 'c1', tool: 'run_command', text: 'x\n'.repeat(30_000) });
      const asked = { runId: 'indexed', from: 0, limit: 100 };
      const truth = await writer.inspection.inspect(asked);
      await writer.inspection.indexes.flush();
      const owners = async () =>
        (await pg.sql(`SELECT owner::text FROM run_indexes WHERE run_id = 'indexed' ORDER BY 1`)).map((r) => r.owner);
      assert.deepEqual(await owners(), ['indexer']);
      // Another writer sees none of it, and can change none of it.
      assert.deepEqual((await snoop.query('SELECT count(*)::int AS n FROM run_indexes')).rows, [{ n: 0 }]);
      assert.equal((await snoop.query(`UPDATE run_indexes SET body = 'x'`)).rowCount, 0);
      assert.equal((await snoop.query('DELETE FROM run_indexes')).rowCount, 0);
      await assert.rejects(
        snoop.query(`INSERT INTO run_indexes (run_id, owner, body) VALUES ('indexed', 'indexer', 'forged')`),
        /violates (check constraint|row-level security)/,
      );
      // Its own row under that run is its own: the writer's cold open still reads the writer's.
      await snoop.query(`INSERT INTO run_indexes (run_id, body) VALUES ('indexed', 'forged')`);
      assert.deepEqual(await (await serve('indexer')).inspection.inspect(asked), truth);
      // A reader's open keeps an index of its own, beside the others.
      const reader = await serve('viewer');
      assert.deepEqual(await reader.inspection.inspect(asked), truth);
      await reader.inspection.indexes.flush();
      assert.deepEqual(await owners(), ['indexer', 'snoop', 'viewer']);
    } finally {
      await snoop.end();
      for (const s of services) s.dispose();
    }
  });

  it('events go in through retained_append alone: a transcript written whole in batches, a second refused, an append that finds the run grown keeping nothing', async () => {
    retained(tempDir(), ['migrate', '--store', pg.url]);
    const team = new TeamStore(pg.url);
    try {
      const events = Array.from({ length: 1201 }, (_, i): TranscriptEvent => ({ type: 'user', text: `m${i}` }));
      await team.writeTranscript('whole', events);
      const seqs = async () =>
        (
          await pg.sql(
            "SELECT count(*)::int AS n, min(seq)::int AS lo, max(seq)::int AS hi FROM events WHERE run_id = 'whole'",
          )
        )[0];
      assert.deepEqual(await seqs(), { n: 1201, lo: 0, hi: 1200 }, 'three batches, numbered on');
      await assert.rejects(team.writeTranscript('whole', events), /run whole has a transcript already/);
      // As a push that counted 1,000 events while another writer took the run to 1,201.
      await assert.rejects(
        team.transaction((client) =>
          appendEvents(client, 'whole', events.slice(0, 600), 1000, (first) => new InvalidInput(`grown to ${first}`)),
        ),
        /grown to 1201/,
      );
      assert.deepEqual(await seqs(), { n: 1201, lo: 0, hi: 1200 }, 'neither kept an event');
    } finally {
      await team.pool.end();
    }
  });

  it('a flood of notices from any login is gathered, capped and checked: only runs the store holds are said changed, a few times', async () => {
    retained(tempDir(), ['migrate', '--store', pg.url]);
    await pg.sql(`INSERT INTO runs (run_id, name) VALUES ('real', 'real') ON CONFLICT DO NOTHING`);
    await pg.sql('CREATE ROLE flooder LOGIN; GRANT retained_reader TO flooder;');
    const team = new TeamStore(pg.url);
    const said: string[] = [];
    const watcher = team.watch((runId) => said.push(runId));
    try {
      watcher.start();
      await new Promise((r) => setTimeout(r, 500)); // listening
      const flooder = await connect(pg.urlAs('flooder'));
      // pg_notify asks no privilege: a reader's 100,000 notices naming runs that are not there, and one that is.
      await flooder.query(
        `SELECT pg_notify('retained_changes', 'fake-' || g) FROM generate_series(1, 100000) g; SELECT pg_notify('retained_changes', 'real')`,
      );
      await flooder.end();
      for (let i = 0; i < 100 && !said.includes('real'); i++) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 600));
      assert.ok(said.includes('real'), 'the real run is said changed');
      // Past the cap the watcher looks at every run once instead: each a run the store holds, once or twice.
      const held = (await pg.sql('SELECT run_id FROM runs')).map((r) => String(r.run_id));
      assert.deepEqual(
        said.filter((id) => !held.includes(id)),
        [],
        'no run the store does not hold',
      );
      assert.ok(said.length <= 2 * held.length, `${said.length} notices passed on for ${held.length} runs`);
    } finally {
      watcher.dispose();
      await team.pool.end();
    }
  });

  it("a writer holding a run's row locked holds another's retain into it no longer than the lock timeout (a setting of the URL), and the output is delivered; a blob it cannot lock at all", async () => {
    retained(tempDir(), ['migrate', '--store', pg.url]);
    await pg.sql('CREATE ROLE holder LOGIN; GRANT retained_writer TO holder;');
    const here = tempDir();
    assert.equal(retained(here, ['run', '--store', pg.url, '--run', 'locked', '--', 'echo first']).code, 0);
    const holder = await connect(pg.urlAs('holder'));
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT * FROM runs WHERE run_id = 'locked' FOR UPDATE`);
      // A writer may not lock a blob at all any more (it may not update one).
      await assert.rejects(
        holder.query('SAVEPOINT s; SELECT * FROM blobs FOR UPDATE'),
        /permission denied for table blobs/,
      );
      await holder.query('ROLLBACK TO SAVEPOINT s');
      const big = 'seq 1 30000';
      const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
        const child = spawn(
          process.execPath,
          [CLI, 'run', '--store', `${pg.url}?lock_timeout=1000`, '--run', 'locked', '--', big],
          { cwd: here },
        );
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d));
        child.stderr.on('data', (d: Buffer) => (stderr += d));
        child.on('close', (code) => done({ code, stdout, stderr }));
      });
      // It waits for the lock no longer than the URL says, then gives the output as it came, saying why.
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, execFileSync('sh', ['-c', big], { encoding: 'utf8' }));
      assert.match(r.stderr, /lock timeout/);
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
    }
  });
});
