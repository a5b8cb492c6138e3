/**
 * A long Claude Code 2.1.3xx session, written to a size: what a day's work leaves. It starts as
 * a recorded session does (test/fixtures/claude-code/resume-continue: its first request records,
 * its system prompt and tools, its attachments), then goes on with turns of the same shape: a
 * response calling Bash, its result, the request record that adds them (`base`, `keep`, the
 * `tail` hashes), and the attachment records Claude Code writes beside them. Every request can be
 * rebuilt exactly, as in a real file.
 */
import { createWriteStream, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { messageHash } from '../../server/src/core/import/wire';

const SEED = resolve(__dirname, '../fixtures/claude-code/resume-continue/project');

/** Writes a session of about `bytes` to `path`; returns how many model calls it records. */
export async function writeBigSession(path: string, bytes: number): Promise<number> {
  const seedFile = readdirSync(SEED).find((f) => f.endsWith('.jsonl'))!;
  const seed = readFileSync(join(SEED, seedFile), 'utf8').trim().split('\n');
  // The seed up to and including its first request record: the start of any session.
  const first = seed.findIndex((line) => line.includes('"type":"api-request"'));
  const head = seed.slice(0, first + 1).map((l) => JSON.parse(l) as Record<string, unknown>);
  const request = head[head.length - 1]!;
  const attachment = seed.map((l) => JSON.parse(l) as Record<string, unknown>).find((r) => r.type === 'attachment')!;
  const sessionId = String(request.sessionId);
  const out = createWriteStream(path);
  const write = (record: unknown) =>
    new Promise<void>((done) => (out.write(`${JSON.stringify(record)}\n`) ? done() : out.once('drain', () => done())));
  let size = 0;
  for (const record of head) {
    await write(record);
    size += JSON.stringify(record).length + 1;
  }
  let previous = String(request.id);
  let kept = (request.tail as string[]).length;
  let parent = String(head.findLast((r) => typeof r.uuid === 'string')?.uuid ?? '');
  let calls = 1;
  const when = (n: number) => new Date(Date.UTC(2026, 10, 30, 9, 0, 0) + n * 1000).toISOString();
  for (let turn = 1; size < bytes; turn++) {
    const id = `toolu_big_${turn}`;
    const assistant = {
      role: 'assistant',
      content: [
        { type: 'tool_use', id, name: 'Bash', input: { command: `make step-${turn}`, description: `step ${turn}` } },
      ],
    };
    const output = Array.from(
      { length: 40 },
      (_, i) => `step ${turn} line ${i}: compiled module-${(turn * 7 + i) % 997}.o in ${(i * 13) % 89} ms`,
    ).join('\n');
    const result = {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: id, content: output, is_error: false }],
    };
    const records = [
      {
        parentUuid: parent,
        isSidechain: false,
        type: 'assistant',
        uuid: `a-${turn}`,
        timestamp: when(turn * 2),
        sessionId,
        version: '2.1.332',
        requestRef: previous,
        message: {
          id: `msg_big_${turn}`,
          type: 'message',
          model: 'claude-scripted',
          ...assistant,
          stop_reason: 'tool_use',
        },
      },
      {
        parentUuid: `a-${turn}`,
        isSidechain: false,
        type: 'user',
        uuid: `u-${turn}`,
        timestamp: when(turn * 2 + 1),
        sessionId,
        version: '2.1.332',
        message: result,
        toolUseResult: { stdout: output, stderr: '', interrupted: false, isImage: false },
      },
      { ...attachment, uuid: `att-${turn}`, parentUuid: `u-${turn}`, timestamp: when(turn * 2 + 1) },
      {
        ...request,
        id: `req-big-${turn}`,
        base: previous,
        keep: kept,
        tail: [messageHash(assistant), messageHash(result)],
        timestamp: when(turn * 2 + 1),
        cacheControl: [],
      },
    ];
    for (const record of records) {
      await write(record);
      size += JSON.stringify(record).length + 1;
    }
    previous = `req-big-${turn}`;
    kept += 2;
    parent = `att-${turn}`;
    calls++;
  }
  await new Promise<void>((done) => out.end(() => done()));
  return calls;
}
