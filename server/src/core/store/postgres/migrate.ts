/**
 * `retained migrate`: brings a team store's schema to this build's version, one migration per
 * transaction, under an advisory lock so two migrating at once take turns. A store newer than
 * this build is refused (an older `retained` must not write into it).
 */
import type { ClientBase } from 'pg';
import { InvalidInput } from '../../../../../shared/invalidInput';
import { MIGRATIONS, SCHEMA_VERSION } from './schema';

/** Any number, the same for every `retained`: the advisory lock migrations take. */
const MIGRATION_LOCK = 7_265_746_101;

export interface MigrateResult {
  from: number;
  to: number;
  applied: { version: number; what: string }[];
}

/** The schema version a store is at (0: none yet). */
export async function schemaVersion(client: ClientBase): Promise<number> {
  const table = await client.query(`SELECT to_regclass('retained_schema') AS t`);
  if (!table.rows[0]?.t) return 0;
  const { rows } = await client.query('SELECT version FROM retained_schema');
  return Number(rows[0]?.version ?? 0);
}

export async function migrate(client: ClientBase): Promise<MigrateResult> {
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
  try {
    const from = await schemaVersion(client);
    if (from > SCHEMA_VERSION)
      throw new InvalidInput(
        `the store's schema is version ${from}, newer than this retained (${SCHEMA_VERSION}): update retained`,
      );
    const applied: MigrateResult['applied'] = [];
    for (const migration of MIGRATIONS) {
      if (migration.version <= from) continue;
      await client.query('BEGIN');
      try {
        if (migration.version === 1) await client.query('CREATE TABLE retained_schema (version integer NOT NULL)');
        await client.query(migration.sql);
        await client.query('DELETE FROM retained_schema');
        await client.query('INSERT INTO retained_schema (version) VALUES ($1)', [migration.version]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw err;
      }
      applied.push({ version: migration.version, what: migration.what });
    }
    return { from, to: SCHEMA_VERSION, applied };
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
  }
}
