/**
 * Commands on a team store (`--store postgres://…`). `migrate` creates or updates its schema;
 * `push` uploads a run from a folder store, `pull` brings one down into one; the others are
 * refused plainly until the team store serves them, so a URL is never taken for a folder name.
 */

import type { Client } from 'pg';
import { InvalidInput } from '../../../shared/invalidInput';
import { RetentionService } from '../core/service';
import { connect, shownUrl, storeError } from '../core/store/postgres/connect';
import { migrate } from '../core/store/postgres/migrate';
import { READER_ROLE, WRITER_ROLE } from '../core/store/postgres/schema';
import { listTeamRuns, listTeamValues } from '../core/store/postgres/teamRuns';
import { pullRun, pushRun } from '../core/store/postgres/transfer';

/** The folder a push reads from or a pull writes into: `--from`/`--to`, else the one this folder has. */
export interface FolderSide {
  run?: string | undefined;
  folder: string;
}

export async function teamStore(command: string, url: string, side: FolderSide): Promise<number> {
  if (command !== 'migrate' && command !== 'push' && command !== 'pull' && command !== 'ls') {
    process.stderr.write(
      `retained: ${command} does not work on a team store (${shownUrl(url)}) yet: only migrate, ls, push and pull do\n`,
    );
    return 1;
  }
  if ((command === 'push' || command === 'pull') && !side.run) {
    process.stderr.write(`retained: ${command} takes a run: retained ${command} <run> --store ${shownUrl(url)}\n`);
    return 2;
  }
  let client: Awaited<ReturnType<typeof connect>> | undefined;
  try {
    client = await connect(url);
    const team = client;
    if (command === 'ls') return await list(team, side.run);
    if (command !== 'migrate') return await transfer(command, team, side.run!, side.folder);
    const result = await migrate(client).catch((err) => {
      throw storeError(err, team.user);
    });
    if (result.applied.length === 0) process.stdout.write(`schema up to date (version ${result.to})\n`);
    else {
      process.stdout.write(`schema version ${result.from} → ${result.to}\n`);
      for (const step of result.applied) process.stdout.write(`  ${step.version}: ${step.what}\n`);
    }
    process.stdout.write(
      `grant the roles to login roles: GRANT ${WRITER_ROLE} TO <ci role>; GRANT ${READER_ROLE} TO <reader>;\n`,
    );
    return 0;
  } catch (err) {
    process.stderr.write(
      `retained: ${err instanceof InvalidInput ? err.message : String((err as Error).message ?? err)}\n`,
    );
    return 1;
  } finally {
    await client?.end().catch(() => undefined);
  }
}

/** Moves one run between the folder and the team store, and says what moved. */
async function transfer(command: 'push' | 'pull', client: Client, given: string, folder: string): Promise<number> {
  const service = new RetentionService(folder, { workspace: process.cwd(), indexImports: false });
  try {
    await service.init();
    if (command === 'push') {
      const runId = await service.runs.existing(given);
      const r = await pushRun(client, service.store, runId).catch((err) => {
        throw storeError(err, client.user);
      });
      process.stdout.write(
        `pushed run ${r.runId}: ${r.events} new event${r.events === 1 ? '' : 's'}, ${r.valuesSent} value${r.valuesSent === 1 ? '' : 's'} sent (${r.bytesSent} bytes), ${r.valuesThere} there already\n`,
      );
    } else {
      const runId = await service.runs.key(given);
      const r = await pullRun(client, service.store, runId).catch((err) => {
        throw storeError(err, client.user);
      });
      process.stdout.write(`pulled run ${r.runId} into ${folder}: ${r.events} events, ${r.values} values\n`);
    }
    return 0;
  } finally {
    service.dispose();
  }
}

/** The team store's runs, or one run's values, as `ls` lists a folder's. */
async function list(client: Client, runId: string | undefined): Promise<number> {
  const lines = runId
    ? (await listTeamValues(client, runId)).map((v) => `${v.valueId}\t${v.tool}\t${v.bytes} bytes\t${v.lines} lines`)
    : (await listTeamRuns(client)).map(
        (r) =>
          `${r.runId}\t${r.values} values\t${r.bytes} bytes kept out\t${r.events} events\t${r.createdAt}${r.name !== r.runId ? `\t${r.name}` : ''}`,
      );
  process.stdout.write(
    `${lines.length ? lines.join('\n') : runId ? `no values in run ${runId}` : 'no runs in the team store'}\n`,
  );
  return 0;
}
