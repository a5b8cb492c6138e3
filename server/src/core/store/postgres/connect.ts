/**
 * A team store's address and its connection. The URL is libpq's (`postgres://` or
 * `postgresql://`); what it leaves out comes from libpq's usual places, as `psql` takes them:
 * `PGPASSWORD`, `~/.pgpass`, `PGSSLMODE`, `PGHOST`, … (node-postgres reads them), so a password
 * never needs to sit in a setting. A permission the role lacks is said as such, naming the role.
 */
import { Client, type DatabaseError } from 'pg';
import { InvalidInput } from '../../../../../shared/invalidInput';
import { READER_ROLE, WRITER_ROLE } from './schema';

/** The URL without its password, for messages. */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'the team store';
  }
}

export async function connect(url: string): Promise<Client> {
  const client = new Client({ connectionString: url, application_name: 'retained', connectionTimeoutMillis: 10_000 });
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => undefined);
    throw new InvalidInput(`cannot reach ${shownUrl(url)}: ${(err as Error).message}`);
  }
  // A dropped connection is an error of the command using it, never an uncaught one.
  client.on('error', () => undefined);
  return client;
}

/** A database error as a user reads it: a permission the role lacks names the role and the grant. */
export function storeError(err: unknown, user: string | undefined): Error {
  const db = err as Partial<DatabaseError>;
  if (db?.code === '42501')
    return new InvalidInput(
      `the role ${user ?? '(unknown)'} may not do this: ${db.message} (an administrator grants ${WRITER_ROLE} to write, ${READER_ROLE} to read)`,
    );
  return err instanceof Error ? err : new Error(String(err));
}
