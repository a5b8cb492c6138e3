/**
 * A team store's address and its connection. The URL is libpq's (`postgres://` or
 * `postgresql://`); what it leaves out comes from libpq's usual places, as `psql` takes them:
 * `PGPASSWORD`, `~/.pgpass`, `PGSSLMODE`, `PGHOST`, … (node-postgres reads them), so a password
 * never needs to sit in a setting. A permission the role lacks is said as such, naming the role.
 */
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

export async function connect(url: string): Promise<Client> {
  const client = new Client(connectionConfig(url));
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => undefined);
    throw new StoreRefused(`cannot reach ${shownUrl(url)}: ${(err as Error).message}`);
  }
  // A dropped connection is an error of the command using it, never an uncaught one.
  client.on('error', () => undefined);
  return client;
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
