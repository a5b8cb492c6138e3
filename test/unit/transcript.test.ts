import assert from 'node:assert/strict';
import { appendFileSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  appendEvent,
  EVENT_LINE_MAX_BYTES,
  LineTooLong,
  READ_LINE_MAX_BYTES,
  readEvents,
} from '../../server/src/core/store/transcript';
import { check } from '../../shared/check';
import { NewEventSchema, StoredEventSchema } from '../../shared/events';
import { removeTempDirs, tempDir } from '../helpers/tmp';

describe('transcript', () => {
  after(removeTempDirs);

  it('appends one JSON line per event, stamped, and reads them back in order', async () => {
    const path = join(tempDir(), 'run.jsonl');
    await appendEvent(dirname(path), path, { type: 'run_started', tools: ['peek_value'], model: 'm' });
    await appendEvent(dirname(path), path, { type: 'user', text: 'hi' });
    const { events, skipped } = await readEvents(dirname(path), path);
    assert.deepEqual(
      events.map((e) => e.type),
      ['run_started', 'user'],
    );
    assert.ok(events.every((e) => typeof e.ts === 'string'));
    assert.deepEqual(skipped, []);
  });

  it('serializes concurrent appends: no event interleaves with another', async () => {
    const path = join(tempDir(), 'run.jsonl');
    const big = 'z'.repeat(300_000);
    await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        appendEvent(dirname(path), path, { type: 'user', text: `${i}:${i % 10 === 0 ? big : ''}` }),
      ),
    );
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    assert.equal(lines.length, 200);
    const seen = new Set(lines.map((l) => (JSON.parse(l) as { text: string }).text.split(':')[0]));
    assert.equal(seen.size, 200);
  });

  it('reports and skips a torn last line, never fatal', async () => {
    const path = join(tempDir(), 'run.jsonl');
    await appendEvent(dirname(path), path, { type: 'user', text: 'kept' });
    appendFileSync(path, '{"type":"user","text":"half');
    const { events, skipped } = await readEvents(dirname(path), path);
    assert.equal(events.length, 1);
    assert.equal(skipped.length, 1);
    assert.equal(skipped[0]!.line, 2);
    assert.match(skipped[0]!.reason, /torn/);
  });

  it('pages with from and limit', async () => {
    const path = join(tempDir(), 'run.jsonl');
    for (let i = 0; i < 10; i++) await appendEvent(dirname(path), path, { type: 'user', text: `${i}` });
    const { events } = await readEvents(dirname(path), path, 3, 4);
    assert.deepEqual(
      events.map((e) => (e as { text: string }).text),
      ['3', '4', '5', '6'],
    );
  });

  it('names the field that is wrong in a bad event', () => {
    const refused = (value: unknown, expected: RegExp) =>
      assert.throws(() => check(NewEventSchema, value, 'event'), expected);
    refused({ type: 'nope' }, /^InvalidInput: event\.type must be one of "run_started", "user", /);
    refused({ type: 'user', text: 3 }, /event\.text must be a string \(got number 3\)/);
    refused({ type: 'assistant', toolCalls: [{ id: '', name: 'x' }] }, /event\.toolCalls\[0\]\.id must not be empty/);
    refused(
      { type: 'turn_ended', stopReason: 'bored' },
      /event\.stopReason must be one of "end_turn", "interrupted", "aborted", "error"/,
    );
    refused('x', /event must be an object \(got a string, "x"\)/);
    refused({ type: 'tool_call_finished', callId: 'c', tool: 't' }, /a result needs `result`, or `valueId`/);
  });

  it('refuses an unknown field in an appended event, naming the one meant, and drops it from a stored one', () => {
    const event = { type: 'assistant', toolCalls: [{ id: 'c1', name: 'read', args: { path: 'a' } }] };
    assert.throws(
      () => check(NewEventSchema, event, 'event'),
      /event\.toolCalls\[0\]\.args is not a known field \(did you mean arguments\?\)/,
    );
    // A store written by a newer version still reads: the field this one does not know is left out.
    assert.deepEqual(check(StoredEventSchema, { ...event, later: 1 }, 'event'), {
      type: 'assistant',
      toolCalls: [{ id: 'c1', name: 'read' }],
    });
  });
});

describe('transcript after a torn append', () => {
  after(removeTempDirs);

  it('starts the next event on a line of its own', async () => {
    const path = join(tempDir(), 'run.jsonl');
    await appendEvent(dirname(path), path, { type: 'user', text: 'one' });
    appendFileSync(path, '{"type":"user","text":"to');
    await appendEvent(dirname(path), path, { type: 'user', text: 'three' });
    const { events, skipped } = await readEvents(dirname(path), path);
    assert.deepEqual(
      events.map((e) => (e as { text: string }).text),
      ['one', 'three'],
    );
    assert.equal(skipped.length, 1);
  });
});

describe('transcript encoding of big results', () => {
  after(removeTempDirs);

  it('writes a result larger than one encoding slice as the same JSON, surrogate pairs intact', async () => {
    const path = join(tempDir(), 'run.jsonl');
    const result = `${'a"\\\n\t'.repeat(1_000_000)}😀${'é😀'.repeat(700_000)}\u0000end`;
    await appendEvent(dirname(path), path, { type: 'tool_call_finished', callId: 'c', tool: 't', result, ts: 'x' });
    const { events } = await readEvents(dirname(path), path);
    assert.equal(events.length, 1);
    assert.deepEqual(events[0], { type: 'tool_call_finished', callId: 'c', tool: 't', ts: 'x', result });
  });
});

describe('transcript limits', () => {
  after(removeTempDirs);

  it('refuses an event whose line would be over the limit, writing nothing', async () => {
    const path = join(tempDir(), 'run.jsonl');
    await appendEvent(dirname(path), path, { type: 'user', text: 'before' });
    const before = readFileSync(path);
    // Control characters are escaped to six bytes each: a result can grow past the limit as JSON.
    const text = '\u0001'.repeat(Math.ceil(EVENT_LINE_MAX_BYTES / 6) + 1);
    await assert.rejects(
      appendEvent(dirname(path), path, { type: 'tool_call_finished', callId: 'c', tool: 't', result: text }),
      LineTooLong,
    );
    assert.deepEqual(readFileSync(path), before);
  });

  it('reads past a line longer than a reader can hold, reporting it, without building it', async () => {
    const path = join(tempDir(), 'run.jsonl');
    await appendEvent(dirname(path), path, { type: 'user', text: 'one' });
    // A line of a store from an older version, or a hostile one: written here by hand.
    const handle = await import('node:fs/promises').then((fs) => fs.open(path, 'a'));
    const chunk = Buffer.alloc(1 << 24, 0x61);
    for (let written = 0; written <= READ_LINE_MAX_BYTES; written += chunk.length) await handle.write(chunk);
    await handle.write('\n');
    await handle.close();
    await appendEvent(dirname(path), path, { type: 'user', text: 'three' });
    const { events, skipped } = await readEvents(dirname(path), path);
    assert.deepEqual(
      events.map((e) => (e as { text: string }).text),
      ['one', 'three'],
    );
    assert.equal(skipped.length, 1);
    assert.match(skipped[0]!.reason, /over the \d+-byte limit of a transcript line/);
  });
});
