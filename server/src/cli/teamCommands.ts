/**
 * The commands only a team store has (`--store postgres://…`): `migrate` creates or updates its
 * schema; `push` uploads a run from a folder store, `pull` brings one down into one. Every other
 * command works on a team store through the service, as on a folder.
 */

import type { Client } from 'pg';
import { InvalidInput } from '../../../shared/invalidInput';
import { RetentionService } from '../core/service';
import { FolderStore } from '../core/store/folderStore';
import { shownUrl } from '../core/store/open';
import { connect, storeError } from '../core/store/postgres/connect';
import { migrate } from '../core/store/postgres/migrate';
import { READER_ROLE, WRITER_ROLE } from '../core/store/postgres/schema';
import { pullRun, pushRun } from '../core/store/postgres/transfer';

/** The folder a push reads from or a pull writes into: `--from`/`--to`, else the one this folder has. */
export interface FolderSide {
  run?: string | undefined;
  folder: string;
}

export async function teamCommand(
  command: 'migrate' | 'push' | 'pull',
  url: string,
  side: FolderSide,
): Promise<number> {
  if ((command === 'push' || command === 'pull') && !side.run) {
    process.stderr.write(`retained: ${command} takes a run: retained ${command} <run> --store ${shownUrl(url)}\n`);
    return 2;
  }
  let client: Awaited<ReturnType<typeof connect>> | undefined;
  try {
    client = await connect(url);
    const team = client;
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
  const { store } = service;
  // Push and pull move runs between a folder and the team store: the side here is always a folder.
  if (!(store instanceof FolderStore)) throw new InvalidInput(`${store.where} is not a folder store`);
  try {
    await service.init();
    if (command === 'push') {
      const runId = await service.runs.existing(given);
      const r = await pushRun(client, store, runId).catch((err) => {
        throw storeError(err, client.user);
      });
      process.stdout.write(
        `pushed run ${r.runId}: ${r.events} new event${r.events === 1 ? '' : 's'}, ${r.valuesSent} value${r.valuesSent === 1 ? '' : 's'} sent (${r.bytesSent} bytes), ${r.valuesThere} there already\n`,
      );
    } else {
      const runId = await service.runs.key(given);
      const r = await pullRun(client, store, runId).catch((err) => {
        throw storeError(err, client.user);
      });
      process.stdout.write(`pulled run ${r.runId} into ${folder}: ${r.events} events, ${r.values} values\n`);
    }
    return 0;
  } finally {
    service.dispose();
  }
}
