/**
 * The demo run `npm start` opens and the end-to-end tests use: an agent reads a large
 * package-lock.json (retained), peeks it by query and by range, runs the tests (5 KB, kept
 * verbatim) and lists a folder. Written through the retention service, as an agent's would be.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RetentionService } from '../server/src/core/service';
import type { TranscriptEvent } from '../shared/events';
import type { RetainResult } from '../shared/protocol';
import { STORE_DIR } from '../shared/storeDir';
import { ROOT } from './tools';

export interface DemoRun {
  workspace: string;
  lock: string;
  stub: RetainResult;
}

/**
 * Records the demo run: a large package-lock.json read that was retained, a peek by query and
 * by range, and a small result kept verbatim. Shared by the tests and `npm start`.
 */
export async function recordDemoRun(workspace: string, storeRoot?: string, runId = 'demo-run'): Promise<DemoRun> {
  const lock = readFileSync(join(ROOT, 'package-lock.json'), 'utf8');
  const service = new RetentionService(storeRoot ?? join(workspace, STORE_DIR), { workspace });
  await service.init();
  let stub: RetainResult;
  try {
    const append = (event: TranscriptEvent) => service.retainer.append({ runId, event });
    await append({
      type: 'run_started',
      tools: ['read_file', 'run_command', 'peek_value'],
      model: 'demo-model',
      agent: 'demo-agent',
    });
    await append({ type: 'user', text: 'Which version of mocha does this project lock?' });
    await append({
      type: 'assistant',
      text: 'Let me read the lock file.',
      toolCalls: [{ id: 'toolu_lock', name: 'read_file', arguments: { path: 'package-lock.json' } }],
    });
    stub = await service.retainer.retain({
      runId,
      callId: 'toolu_lock',
      tool: 'read_file',
      text: lock,
      turn: 0,
      arguments: { path: 'package-lock.json' },
    });
    await append({
      type: 'assistant',
      toolCalls: [
        {
          id: 'toolu_peek_query',
          name: 'peek_value',
          arguments: { id: 'toolu_lock', query: '"node_modules/mocha"', context: 3 },
        },
      ],
    });
    const query = await service.values.peek({
      valueId: 'toolu_lock',
      runId,
      query: '"node_modules/mocha"',
      context: 3,
    });
    await service.retainer.retain({
      runId,
      callId: 'toolu_peek_query',
      tool: 'peek_value',
      text: query.text,
      turn: 1,
    });
    const line = Number(/^(\d+):/.exec(query.text)?.[1] ?? 1);
    await append({
      type: 'assistant',
      toolCalls: [
        { id: 'toolu_peek_range', name: 'peek_value', arguments: { id: 'toolu_lock', start: line, end: line + 8 } },
      ],
    });
    const range = await service.values.peek({ valueId: 'toolu_lock', runId, start: line, end: line + 8 });
    await service.retainer.retain({
      runId,
      callId: 'toolu_peek_range',
      tool: 'peek_value',
      text: range.text,
      turn: 2,
    });
    await append({
      type: 'assistant',
      text: 'And do the tests pass?',
      toolCalls: [{ id: 'toolu_test', name: 'run_command', arguments: { command: 'npm run test:unit' } }],
    });
    await service.retainer.retain({
      runId,
      callId: 'toolu_test',
      tool: 'run_command',
      text: testOutput(),
      turn: 3,
      durationMs: 6400,
    });
    await append({
      type: 'assistant',
      toolCalls: [{ id: 'toolu_ls', name: 'run_command', arguments: { command: 'ls' } }],
    });
    await service.retainer.retain({
      runId,
      callId: 'toolu_ls',
      tool: 'run_command',
      text: 'extension\nmedia\npackage.json\nserver\ntest\nwebview\n',
      turn: 4,
    });
    await append({ type: 'assistant', text: 'The lock file pins mocha as shown above.' });
    await append({ type: 'turn_ended', stopReason: 'end_turn' });
  } finally {
    service.dispose();
  }
  return { workspace, lock, stub };
}

/** About 5 KB of test-runner output: under the threshold, so sent verbatim, but over the policy's 1 KiB. */
function testOutput(): string {
  const suites = ['gutter', 'ids', 'peek', 'replay', 'store', 'stub', 'transcript'];
  const lines = suites.flatMap((suite) => [
    `  ${suite}`,
    ...Array.from(
      { length: 8 },
      (_, i) => `    ✔ ${suite} case ${i + 1} keeps every byte and says what was wrong (${3 + i} ms)`,
    ),
  ]);
  return `${lines.join('\n')}\n\n  56 passing (1s)\n`;
}
