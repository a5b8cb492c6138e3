/** What a team store holds, as `retained ls` lists it: its runs, and a run's values (only complete ones). */
import type { ClientBase } from 'pg';

/** The most rows one listing gives. */
const LIST_MAX = 1000;

export interface TeamRun {
  runId: string;
  name: string;
  createdAt: string;
  values: number;
  bytes: number;
  events: number;
}

export async function listTeamRuns(client: ClientBase): Promise<TeamRun[]> {
  const { rows } = await client.query(
    `SELECT r.run_id, r.name, r.created_at,
            (SELECT count(*) FROM events e WHERE e.run_id = r.run_id)::bigint AS events,
            count(b.sha256)::bigint AS values, coalesce(sum(b.bytes), 0)::bigint AS bytes
       FROM runs r
       LEFT JOIN run_values v ON v.run_id = r.run_id
       LEFT JOIN blobs b ON b.sha256 = v.sha256 AND b.complete
      GROUP BY r.run_id
      ORDER BY r.created_at DESC, r.run_id
      LIMIT $1`,
    [LIST_MAX],
  );
  return rows.map((r) => ({
    runId: r.run_id as string,
    name: r.name as string,
    createdAt: (r.created_at as Date).toISOString(),
    values: Number(r.values),
    bytes: Number(r.bytes),
    events: Number(r.events),
  }));
}

export interface TeamValue {
  valueId: string;
  tool: string;
  bytes: number;
  lines: number;
}

/** A run's values, the run named by its id or by its name. */
export async function listTeamValues(client: ClientBase, runId: string): Promise<TeamValue[]> {
  const { rows } = await client.query(
    `SELECT v.value_id, v.meta->>'tool' AS tool, b.bytes, b.lines
       FROM run_values v JOIN blobs b ON b.sha256 = v.sha256 AND b.complete
      WHERE v.run_id = (SELECT run_id FROM runs WHERE run_id = $1 OR name = $1 ORDER BY run_id <> $1 LIMIT 1)
      ORDER BY v.value_id LIMIT $2`,
    [runId, LIST_MAX],
  );
  return rows.map((r) => ({
    valueId: r.value_id as string,
    tool: (r.tool as string | null) ?? 'tool',
    bytes: Number(r.bytes),
    lines: Number(r.lines),
  }));
}
