/**
 * A team store's run indexes: a row of `run_indexes` per run and login (schema.ts, version 4).
 * An index is what its reader trusts to show a run at once, so each login keeps its own: row
 * security lets no one read or write another's, and a teammate cannot put rows on anyone's
 * screen through it. Writing one notifies no one: it changes nothing a watcher shows.
 */
import type { IndexShelf } from '../runStore';
import type { TeamStore } from './teamStore';

export class TeamIndexes implements IndexShelf {
  constructor(private readonly team: TeamStore) {}

  /** How many values the run has and a digest of their names and bytes: a value added, removed or replaced changes it. */
  async valuesStamp(runId: string): Promise<string> {
    const [row] = await this.team.query(
      `SELECT count(*)::bigint AS n, md5(coalesce(string_agg(value_id || ':' || sha256, ',' ORDER BY value_id), '')) AS digest
       FROM run_values WHERE run_id = $1`,
      [runId],
    );
    return !row || Number(row.n) === 0 ? 'none' : `${row.n}:${row.digest}`;
  }

  async read(runId: string, maxBytes: number): Promise<string | undefined> {
    const [row] = await this.team.query(
      'SELECT body FROM run_indexes WHERE run_id = $1 AND owner = session_user AND octet_length(body) <= $2',
      [runId, maxBytes],
    );
    return typeof row?.body === 'string' ? row.body : undefined;
  }

  async write(runId: string, text: string, current: () => Promise<boolean>): Promise<void> {
    if (!(await current())) return;
    await this.team.query(
      `INSERT INTO run_indexes (run_id, body) VALUES ($1, $2)
       ON CONFLICT (run_id, owner) DO UPDATE SET body = EXCLUDED.body, at = now()`,
      [runId, text],
    );
  }
}
