/**
 * A real PostgreSQL for the team-store tests: Debian's server (installed by
 * scripts/setup-postgres.sh), on a data folder of its own in a temp folder and a free port on
 * 127.0.0.1, stopped afterwards. No mock database anywhere. PostgreSQL refuses to run as root:
 * as root, its programs run as the `postgres` user the package made.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { Client } from 'pg';
import { freePort } from './freePort';
import { setupScript } from './setupScript';
import { tempDir } from './tmp';

/** The superuser the tests' clusters are made with. */
export const ADMIN = 'retained_admin';

const programs = () => setupScript('setup-postgres.sh');

export interface Postgres {
  /** The superuser's URL of the `retained` database. */
  url: string;
  /** A URL of the same database as `user`. */
  urlAs(user: string, password?: string): string;
  /** Runs SQL as the superuser. */
  sql(text: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  restart(): void;
  stop(): void;
  /** Starts it again after stop(), on the same port. */
  start(): void;
  /** From now on the role logs in over TCP only with its password (SCRAM); every other role keeps trust. */
  requirePassword(role: string): void;
}

/** `maxConnections`: the server's limit (a benchmark of many writers needs more than the tests). */
export async function startPostgres({ maxConnections = 60 } = {}): Promise<Postgres> {
  const dir = tempDir('retained-pg-');
  const data = join(dir, 'data');
  const socket = join(dir, 'socket');
  mkdirSync(socket);
  const root = process.getuid?.() === 0;
  if (root) {
    const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }));
    for (const folder of [dir, socket]) chownSync(folder, id('-u'), id('-g'));
  }
  const run = (program: string, args: string[]) =>
    execFileSync(
      root ? 'runuser' : join(programs(), program),
      root ? ['-u', 'postgres', '--', join(programs(), program), ...args] : args,
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        encoding: 'utf8',
      },
    );
  run('initdb', ['-D', data, '-U', ADMIN, '--auth=trust', '-E', 'UTF8', '--no-sync', '--locale=C']);
  const port = await freePort();
  const options = `-p ${port} -k ${socket} -c listen_addresses=127.0.0.1 -c max_connections=${maxConnections}`;
  const start = () => run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
  start();
  const base = `postgres://${ADMIN}@127.0.0.1:${port}`;
  const admin = new Client({ connectionString: `${base}/postgres` });
  await admin.connect();
  await admin.query('CREATE DATABASE retained');
  await admin.end();
  const url = `${base}/retained`;
  return {
    url,
    urlAs: (user, password) =>
      `postgres://${encodeURIComponent(user)}${password ? `:${encodeURIComponent(password)}` : ''}@127.0.0.1:${port}/retained`,
    async sql(text, params = []) {
      const client = new Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query(text, params)).rows;
      } finally {
        await client.end();
      }
    },
    restart() {
      run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      start();
    },
    stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      } catch {
        // stopped already
      }
    },
    start,
    requirePassword(role) {
      // pg_hba.conf is read top down: the role's line goes before initdb's trust lines.
      const hba = join(data, 'pg_hba.conf');
      writeFileSync(hba, `host retained ${role} 127.0.0.1/32 scram-sha-256\n${readFileSync(hba, 'utf8')}`);
      run('pg_ctl', ['-D', data, '-w', 'reload']);
    },
  };
}

/** A TCP proxy in front of a database that can be made to stall: bytes stop in both directions, the sockets stay open. */
export interface StallingProxy {
  /** `url` with its host and port the proxy's. */
  url: string;
  stall(): void;
  close(): Promise<void>;
}

export async function stallingProxy(url: string): Promise<StallingProxy> {
  const target = new URL(url);
  let stalled = false;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(from);
      from.on('error', () => undefined);
      // A stalled network: what comes is held, never passed on, and nothing is closed.
      from.on('data', (data) => {
        if (!stalled) to.write(data);
      });
      from.on('close', () => to.destroy());
    }
  });
  const port = await new Promise<number>((done) =>
    server.listen(0, '127.0.0.1', () => done((server.address() as { port: number }).port)),
  );
  const proxied = new URL(url);
  proxied.port = String(port);
  return {
    url: proxied.toString(),
    stall: () => {
      stalled = true;
    },
    close: () =>
      new Promise((done) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => done());
      }),
  };
}
