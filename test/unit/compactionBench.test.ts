/**
 * The benchmark's count of work done again after a compaction: a call with the same tool and
 * subject as one whose output was retained before the compaction counts; one whose output was
 * kept in the history, or one about something else, does not.
 */
import assert from 'node:assert/strict';
import type { TranscriptEvent } from '../../shared/events';
import type { IndexedValue } from '../../shared/stubText';
import { rerunsOf } from '../bench/compaction';

const call = (id: string, command: string): TranscriptEvent => ({
  type: 'assistant',
  toolCalls: [{ id, name: 'Bash', arguments: { command } }],
});
const result = (id: string, valueId?: string): TranscriptEvent => ({
  type: 'tool_call_finished',
  callId: id,
  tool: 'Bash',
  ...(valueId ? { valueId } : { result: 'ok' }),
});
const meta = (valueId: string): IndexedValue => ({
  valueId,
  tool: 'Bash',
  bytes: 30_000,
  lines: 900,
  isError: false,
  createdAt: '2026-12-03T00:00:00.000Z',
  subject: { text: 'npm test' },
  stub: `[retained #${valueId}]`,
});

describe('the compaction benchmark', () => {
  it('counts the calls after a compaction that ran again a command whose output was retained before it', () => {
    const events: TranscriptEvent[] = [
      call('a', 'npm test'),
      result('a', 'a'),
      call('b', 'ls'),
      result('b'),
      { type: 'compaction', reason: 'auto', summary: 'I ran the tests.' },
      call('c', 'npm test'),
      result('c', 'c'),
      call('d', 'ls'),
      result('d'),
      { type: 'compaction', reason: 'manual', summary: 'Again.' },
      call('e', 'npm   test'),
      result('e'),
    ];
    const rows = rerunsOf(
      's',
      'run',
      events,
      new Map([
        ['a', meta('a')],
        ['c', meta('c')],
      ]),
    );
    assert.deepEqual(
      rows.map(({ compaction, retainedBefore, callsAfter, again }) => ({
        compaction,
        retainedBefore,
        callsAfter,
        again,
      })),
      [
        { compaction: 1, retainedBefore: 1, callsAfter: 2, again: 1 },
        { compaction: 2, retainedBefore: 2, callsAfter: 1, again: 1 },
      ],
    );
    assert.ok(rows[0]!.indexBytes > 0 && rows[0]!.indexBytes <= 1536, `${rows[0]!.indexBytes}`);
  });
});
