/**
 * One of the benchmark's concurrent team-store writers, a process of its own: `count` retains of
 * 100 KB into `runId`, printing each one's time in ms as a JSON array when done.
 */
import { RetentionService } from '../../server/src/core/service';

const [url, runId, writer, count] = process.argv.slice(2) as [string, string, string, string];

async function main(): Promise<void> {
  const service = new RetentionService(url);
  await service.init();
  const latencies: number[] = [];
  for (let i = 0; i < Number(count); i++) {
    const text = `${`writer ${writer} retain ${i} `.padEnd(99, '.')}\n`.repeat(1024);
    const started = performance.now();
    await service.retainer.retain({ runId, callId: `w${writer}-${i}`, tool: 'sh', text });
    latencies.push(performance.now() - started);
  }
  service.dispose();
  process.stdout.write(JSON.stringify(latencies));
}

void main();
