/**
 * The team store in a real PostgreSQL (test/helpers/postgres.ts: Debian's server on a temporary
 * data folder and a free port): `retained migrate` creates the schema and the two roles, and is
 * idempotent; a login role granted `retained_reader` reads but cannot write, and the message
 * names what it lacked; other commands on a postgres:// store are refused plainly, never taken
 * for a folder.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { connect, storeError } from '../../server/src/core/store/postgres/connect';
import { SCHEMA_VERSION } from '../../server/src/core/store/postgres/schema';
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
      'blobs',
      'events',
      'retained_schema',
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

  it('refuses what it cannot do yet, and says where it cannot reach, without a password in the message', async () => {
    const cwd = tempDir();
    const run = retained(cwd, ['run', '--store', pg.url, '--', 'seq 1 3']);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /run does not work on a team store .* yet: only migrate does/);
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
});
