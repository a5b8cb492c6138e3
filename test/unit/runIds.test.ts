/**
 * One identity per run and value: an id is sanitized once, where it enters, and every id that
 * `runs` or `values` lists works in every request, as does the id the writer gave.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { RetentionService } from '../../server/src/core/service';
import { isSanitizedId } from '../../shared/ids';
import { folderOf } from '../helpers/folderOf';
import { removeTempDirs, tempDir } from '../helpers/tmp';

/** Slashes, dots, spaces, unicode, NUL, ids over 64 characters, and ids that already look sanitized. */
const hostileId = fc.oneof(
  fc.string({
    unit: fc.constantFrom('/', '.', ' ', 'é', '😀', '\\', 'a', 'B', '-', '_', ':', '\u0000', '(', ')'),
    minLength: 1,
    maxLength: 90,
  }),
  fc.constantFrom(
    'feature/x',
    '../../etc/passwd',
    '.',
    '..',
    'tool heavy (copy)',
    'a'.repeat(70),
    'x--0123456789abcdef',
    'x--0123456789abcdef--fedcba9876543210',
    'plain',
  ),
);

describe('run and value ids', () => {
  after(removeTempDirs);

  it('property: append → list → transcript, replay, inspect, values, peek and delete, by the listed id and by the given one', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(hostileId, { minLength: 1, maxLength: 4 }),
        fc.uniqueArray(hostileId, { minLength: 1, maxLength: 3 }),
        async (runIds, callIds) => {
          const s = new RetentionService(join(tempDir(), '.retained'));
          await s.init();
          for (const runId of runIds) {
            await s.retainer.append({ runId: runId, event: { type: 'user', text: `hello ${runId}` } });
            for (const callId of callIds)
              await s.retainer.retain({
                runId,
                callId,
                tool: 'read',
                text: `${callId}\n`.repeat(Math.ceil(21_000 / (Buffer.byteLength(callId) + 1))),
              });
          }
          const listed = await s.listRuns();
          assert.equal(listed.length, runIds.length, 'one run per id, no two ids sharing one');
          for (const runId of runIds) {
            const run = listed.find((r) => r.name === runId);
            assert.ok(run, `${JSON.stringify(runId)} is listed under its own name`);
            assert.ok(isSanitizedId(run.runId));
            assert.ok(
              run.transcriptBytes > 0 &&
                run.valueCount === callIds.length &&
                Date.parse(run.startedAt) > Date.parse('2020-01-01'),
            );
            for (const id of [run.runId, runId]) {
              const { events } = await s.transcript({ runId: id });
              assert.equal(events.length, 1 + callIds.length, `transcript by ${JSON.stringify(id)}`);
              const replay = await s.history.replay({ runId: id, shape: 'anthropic' });
              assert.ok(
                'messages' in replay && replay.messages.length === 1 + 2 * callIds.length,
                'each result paired with a call of its own',
              );
              assert.equal((await s.inspection.inspect({ runId: id })).outline.events, events.length);
              assert.deepEqual(
                (await s.listRuns({ runIds: [id] })).map((r) => r.runId),
                [run.runId],
              );
            }
            const { values } = await s.values.list({ runId: run.runId });
            assert.equal(values.length, callIds.length);
            for (const value of values) {
              const answer = await s.values.peek({ valueId: value.valueId, runId: run.runId, start: 1, end: 1 });
              assert.equal(answer.text, `1: ${value.callId}`);
              assert.equal(
                (await s.values.peek({ valueId: value.callId, runId })).valueId,
                value.valueId,
                'the raw call id finds the same value',
              );
            }
            await s.delete({ runId: run.runId, valueId: values[0]!.valueId });
            assert.equal((await s.values.list({ runId })).total, callIds.length - 1);
          }
          for (const run of listed) await s.delete({ runId: run.runId });
          assert.deepEqual(await s.listRuns(), []);
          assert.deepEqual(readdirSync(folderOf(s.store).runsDir), [], 'delete removed every file of every run');
        },
      ),
      { numRuns: 25 },
    );
  });

  it('refuses to delete what is not there, and a null valueId never means "the whole run"', async () => {
    const s = new RetentionService(join(tempDir(), '.retained'));
    await s.init();
    await s.retainer.append({ runId: 'r', event: { type: 'user', text: 'x' } });
    await assert.rejects(s.delete({ runId: 'no such run' }), /no run "no such run"/);
    await assert.rejects(
      s.delete({ runId: 'r', valueId: null as unknown as string }),
      /params\.valueId must be a string \(got null\)/,
    );
    assert.equal((await s.listRuns()).length, 1);
  });
});
