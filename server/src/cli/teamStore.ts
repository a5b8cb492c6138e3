/**
 * Commands on a team store (`--store postgres://…`). `migrate` creates or updates its schema;
 * the others are refused plainly until the team store serves them, so a URL is never taken
 * for a folder name.
 */
import { InvalidInput } from '../../../shared/invalidInput';
import { connect, shownUrl, storeError } from '../core/store/postgres/connect';
import { migrate } from '../core/store/postgres/migrate';
import { READER_ROLE, WRITER_ROLE } from '../core/store/postgres/schema';

export async function teamStore(command: string, url: string): Promise<number> {
  if (command !== 'migrate') {
    process.stderr.write(
      `retained: ${command} does not work on a team store (${shownUrl(url)}) yet: only migrate does\n`,
    );
    return 1;
  }
  let client: Awaited<ReturnType<typeof connect>> | undefined;
  try {
    client = await connect(url);
    const result = await migrate(client).catch((err) => {
      throw storeError(err, client?.user);
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
