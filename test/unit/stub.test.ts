import assert from 'node:assert/strict';
import fc from 'fast-check';
import { STUB_MAX_BYTES, stubFor } from '../../server/src/core/text/stub';

const preview = { previewHeadLines: 6, previewTailLines: 6 };
const numbered = (n: number) => `${Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n')}\n`;

describe('stub', () => {
  it('starts with [retained #id], the tool, bytes and lines; shows head and tail; names peek_value', () => {
    const text = numbered(100);
    const stub = stubFor({ valueId: 'toolu_1', tool: 'read_file', text }, preview);
    const lines = stub.split('\n');
    assert.equal(
      lines[0],
      `[retained #toolu_1] read_file result: ${Buffer.byteLength(text)} bytes, 100 lines, kept out of context`,
    );
    assert.equal(lines[1], '1: line 1');
    assert.equal(lines[6], '6: line 6');
    assert.equal(lines[7], '… 88 lines not shown (7-94) …');
    assert.equal(lines[8], '95: line 95');
    assert.equal(lines[13], '100: line 100');
    assert.match(lines[14]!, /peek_value/);
    assert.equal(lines.length, 15);
  });

  it('marks errors and shows short values whole without an omission line', () => {
    const stub = stubFor({ valueId: 'c', tool: 'bash', text: 'a\nb\nc', isError: true }, preview);
    assert.match(stub, /^\[retained #c\] bash error: 5 bytes, 3 lines/);
    assert.ok(stub.includes('1: a\n2: b\n3: c\n'));
    assert.ok(!stub.includes('not shown'));
  });

  it('honours the preview settings', () => {
    const stub = stubFor({ valueId: 'c', tool: 't', text: numbered(50) }, { previewHeadLines: 2, previewTailLines: 0 });
    assert.ok(stub.includes('1: line 1\n2: line 2\n… 48 lines not shown (3-50) …\nRead it'));
  });

  it('stays under 2 KiB for a single 10 MB line, cut by characters and marked', () => {
    const text = 'é'.repeat(5_000_000);
    const stub = stubFor(
      { valueId: 'big', tool: 'x'.repeat(500), text },
      { previewHeadLines: 10, previewTailLines: 10 },
    );
    assert.ok(Buffer.byteLength(stub) < STUB_MAX_BYTES, `${Buffer.byteLength(stub)} bytes`);
    assert.match(stub, /1: é+… \[line cut: \d+ more bytes\]/);
    assert.ok(!stub.includes('\ufffd'), 'cut at a character boundary');
  });

  it('never marks a cut longer than the bytes it cut: such a line is shown whole', () => {
    for (let length = 1; length <= 400; length += 7) {
      const text = Array.from({ length: 40 }, (_, i) => `${i}:${'x'.repeat(length)}`).join('\n');
      const stub = stubFor({ valueId: 'v', tool: 'Bash', text }, { previewHeadLines: 10, previewTailLines: 10 });
      for (const [mark, cut] of stub.matchAll(/… \[line cut: (\d+) more bytes\]/g))
        assert.ok(Number(cut) > Buffer.byteLength(mark!), `line of ${length}: "${mark}" for ${cut} bytes`);
    }
    const near = stubFor(
      { valueId: 'v', tool: 'Bash', text: Array.from({ length: 40 }, () => 'y'.repeat(40)).join('\n') },
      { previewHeadLines: 10, previewTailLines: 10 },
    );
    assert.match(near, /^1: y{40}$/m, 'a line just over its share is shown whole');
  });

  it('property: under 2 KiB for any text, tool and preview setting, and deterministic', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 20_000 }),
        fc.string({ maxLength: 300 }),
        fc.integer({ min: 0, max: 10 }),
        fc.integer({ min: 0, max: 10 }),
        fc.integer({ min: 1, max: 400 }),
        (text, tool, head, tail, lineLength) => {
          const body = Array.from({ length: 30 }, () => text.slice(0, lineLength)).join('\n');
          const input = { valueId: 'v'.repeat(64), tool, text: body };
          const settings = { previewHeadLines: head, previewTailLines: tail };
          const stub = stubFor(input, settings);
          return Buffer.byteLength(stub) < STUB_MAX_BYTES && stub === stubFor(input, settings);
        },
      ),
      { numRuns: 200 },
    );
  });
});
