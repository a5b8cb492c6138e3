/**
 * One of the benchmark's concurrent writers, a process of its own, as an MCP server is: opens the
 * store at `address` (a folder or a team store's URL), says "ready", waits for a line on stdin,
 * then makes `count` retains of 100 KB into `runId` and prints each one's time in ms as JSON.
 */
import { once } from 'node:events';
import { RetentionService } from '../../server/src/core/service';

const [address, runId, writer, count] = process.argv.slice(2) as [string, string, string, string];

async function main(): Promise<void> {
  const service = new RetentionService(address, { indexImports: false });
  await service.init();
  // The run exists before the clock starts, as a session's does by its first result.
  await service.retainer.append({ runId, event: { type: 'user', text: `writer ${writer}` } });
  process.stderr.write('ready\n');
  await once(process.stdin, 'data');
  const latencies: number[] = [];
  for (let i = 0; i < Number(count); i++) {
    const text = `${`writer ${writer} retain ${i} `.padEnd(99, '.')}\n`.repeat(1024);
    const started = performance.now();
    const r = await service.retainer.retain({ runId, callId: `w${writer}-${i}`, tool: 'sh', text });
    if (!r.retained) throw new Error(`writer ${writer}: retain ${i} not retained: ${r.warning}`);
    latencies.push(performance.now() - started);
  }
  await service.store.close();
  service.dispose();
  process.stdout.write(JSON.stringify(latencies));
  process.exit(0);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
