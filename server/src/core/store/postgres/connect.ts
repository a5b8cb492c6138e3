/**
 * A team store's address and its connection. The URL is libpq's (`postgres://` or
 * `postgresql://`); what it leaves out comes from libpq's usual places, as `psql` takes them:
 * `PGPASSWORD`, `~/.pgpass`, `PGSSLMODE`, `PGHOST`, … (node-postgres reads them), so a password
 * never needs to sit in a setting. A permission the role lacks is said as such, naming the role.
 */
import { userInfo } from 'node:os';
import { Client, type DatabaseError } from 'pg';
import { StoreRefused, shownUrl } from '../open';
import { READER_ROLE, WRITER_ROLE } from './schema';

/**
 * How long anything of a team store may wait, on every connection: a statement, a lock, a
 * transaction left open, a reply that never comes (a stalled network), a connection being made;
 * and TCP keepalives so a dead peer is noticed. Each is a default: the URL's own parameter of the
 * same name wins (`postgres://…/db?lock_timeout=2000`), milliseconds.
 */
export const TIMEOUTS = {
  statement_timeout: 120_000,
  lock_timeout: 10_000,
  idle_in_transaction_session_timeout: 60_000,
  query_timeout: 150_000,
  connectionTimeoutMillis: 10_000,
  keepAlive: true,
  keepAliveInitialDelayMillis: 10_000,
} as const;

/** A connection's settings: the timeouts, then the URL (whose parameters node-postgres lets win). */
export function connectionConfig(url: string) {
  return { ...TIMEOUTS, connectionString: url, application_name: 'retained' };
}

/**
 * A client that closes its socket when it fails to connect. node-postgres leaves it open after an
 * error of its own making (the server asked a password and none was given), and the pool never
 * ends a client that failed: a command line then waited for the server's authentication_timeout,
 * a minute, before it could exit.
 */
export class ClosingClient extends Client {
  override connect(): Promise<Client>;
  override connect(callback: Parameters<Client['connect']>[0]): void;
  override connect(callback?: Parameters<Client['connect']>[0]): Promise<Client> | undefined {
    const close = () =>
      (this as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    if (callback) {
      const reply = callback as (...args: unknown[]) => void;
      super.connect((...args: unknown[]) => {
        if (args[0]) close();
        reply(...args);
      });
      return undefined;
    }
    return super.connect().catch((err: unknown) => {
      close();
      throw err;
    });
  }
}

export async function connect(url: string): Promise<Client> {
  const client = new ClosingClient(connectionConfig(url));
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => undefined);
    throw notOpened(shownUrl(url), roleOf(url), err);
  }
  // A dropped connection is an error of the command using it, never an uncaught one.
  client.on('error', () => undefined);
  return client;
}

/** The role a URL connects as, for messages (libpq's order: the URL, PGUSER, the login name). */
export function roleOf(url: string): string {
  try {
    const user = decodeURIComponent(new URL(url).username);
    if (user) return user;
  } catch {
    // fall through
  }
  try {
    return process.env.PGUSER || userInfo().username;
  } catch {
    return '(unknown)';
  }
}

/** The codes and messages of a connection that was not made: reached and refused are not the same. */
const PASSWORD_REFUSED = new Set(['28P01', '28000']);
const UNREACHED = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
  'ETIMEDOUT',
]);

/**
 * Why a team store could not be opened, in the words a user acts on: a password refused is not a
 * database out of reach, and neither is a database that does not exist. Returns undefined for an
 * error of another kind (a permission, a statement).
 */
export function connectionWords(where: string, user: string, err: unknown): string | undefined {
  const code = (err as { code?: string } | undefined)?.code ?? '';
  const message = err instanceof Error ? err.message : String(err);
  if (PASSWORD_REFUSED.has(code))
    return `${where} refused the role ${user}: ${message}. Set its password with "Retained Outputs: Set Team Store Password…" (or PGPASSWORD, ~/.pgpass)`;
  // node-postgres asks for a password only when the server wants one and none was given.
  if (/client password must be a string|password authentication|no password/i.test(message))
    return `${where} asks the role ${user} for a password, and none was given. Set it with "Retained Outputs: Set Team Store Password…" (or PGPASSWORD, ~/.pgpass)`;
  if (code === '3D000') return `${where}: ${message}; the URL names a database the server does not have`;
  if (code === '57P01' || code === '57P03') return `${where} is shutting down or starting up: ${message}`;
  if (UNREACHED.has(code) || /timeout|terminated|Connection ended/i.test(message))
    return `cannot reach ${where}: ${message} (is the database running, and the URL's host and port right?)`;
  return undefined;
}

/** A connection that was not made, said in words (any other error: its own message, the place named). */
export function notOpened(where: string, user: string, err: unknown): StoreRefused {
  return new StoreRefused(connectionWords(where, user, err) ?? `cannot reach ${where}: ${(err as Error).message}`);
}

/** A database error as a user reads it: a permission the role lacks names the role and the grant. */
export function storeError(err: unknown, user: string | undefined): Error {
  const db = err as Partial<DatabaseError>;
  if (db?.code === '42501')
    return new StoreRefused(
      `the role ${user ?? '(unknown)'} may not do this: ${db.message} (an administrator grants ${WRITER_ROLE} to write, ${READER_ROLE} to read)`,
    );
  return err instanceof Error ? err : new Error(String(err));
}
