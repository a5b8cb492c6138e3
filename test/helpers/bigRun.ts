/**
 * The big run the inspector is measured on: 10,000 events (a user message, then 4,999 calls and
 * their results), three of the results 50 MB each. Written by the core the server runs on.
 */
import { join } from 'node:path';
import { RetentionService } from '../../server/src/core/service';
import { folderOf } from './folderOf';

export const BIG_RUN = { runId: 'big-run', events: 10_000, bigResults: 3, bigBytes: 50 * 1024 * 1024 } as const;

/** Records the run under `<workspace>/.retained`; returns the transcript path. */
export async function recordBigRun(workspace: string): Promise<string> {
  const service = new RetentionService(join(workspace, '.retained'));
  await service.init();
  const { runId } = BIG_RUN;
  await service.retainer.append({ runId: runId, event: { type: 'run_started', tools: ['sh', 'peek_value'] } });
  await service.retainer.append({
    runId: runId,
    event: { type: 'user', text: 'Run every build and tell me what failed.' },
  });
  const line = `${'x'.repeat(99)}\n`;
  for (let call = 0, events = 2; events < BIG_RUN.events; call++, events += 2) {
    const id = `call_${call}`;
    await service.retainer.append({
      runId: runId,
      event: {
        type: 'assistant',
        ...(call % 10 === 0 ? { text: `Step ${call}.` } : {}),
        toolCalls: [{ id, name: 'sh', arguments: { cmd: `build --step ${call}` } }],
      },
    });
    const big = call > 0 && call % 1000 === 0 && call / 1000 <= BIG_RUN.bigResults;
    const text = big ? line.repeat(BIG_RUN.bigBytes / line.length) : `step ${call} ok\n`.repeat(1 + (call % 20));
    await service.retainer.retain({ runId, callId: id, tool: 'sh', text, durationMs: call % 997 });
  }
  return folderOf(service.store).transcriptPath(runId);
}
