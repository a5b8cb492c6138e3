import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { indexBuffer, LineIndexBuilder, parseIndex, serializeIndex } from '../../server/src/core/store/lineIndex';
import { fileBytes } from '../../server/src/core/store/lineReader';
import { peekValue } from '../../server/src/core/values/peek';
import { check } from '../../shared/check';
import { PeekInput, type PeekInput as PeekRequest } from '../../shared/protocol';
import { DEFAULT_SETTINGS } from '../../shared/settings';
import { isPeekRange, NO_FINAL_NEWLINE, stripGutters } from '../../shared/stubText';
import { removeTempDirs, tempDir } from '../helpers/tmp';

const limits = { peekMaxLines: DEFAULT_SETTINGS.peekMaxLines, peekMaxBytes: DEFAULT_SETTINGS.peekMaxBytes };

async function valueFile(text: string) {
  const path = join(tempDir(), 'v.txt');
  writeFileSync(path, text);
  return { path, index: indexBuffer(readFileSync(path)) };
}

async function peek(text: string, request: PeekRequest, lim = limits) {
  const { path, index } = await valueFile(text);
  return peekValue(fileBytes(path), index, 'v1', request, lim);
}

/** The lines of a peek answer without its closing notice. */
function bodyLines(text: string): string[] {
  return text.split('\n').filter((line) => !line.startsWith('[peek:'));
}

/** A checkpoint every 256 lines or 64 KiB, whichever comes first, by the definition: newline by newline. */
function naiveCheckpoints(data: Buffer, lines: number): { lines: number[]; offsets: number[] } {
  const found = { lines: [1], offsets: [0] };
  let line = 1;
  for (let at = 0; at < data.length; at++) {
    if (data[at] !== 0x0a) continue;
    line++;
    if (line > lines) break;
    if (line - found.lines.at(-1)! >= 256 || at + 1 - found.offsets.at(-1)! >= 64 * 1024) {
      found.lines.push(line);
      found.offsets.push(at + 1);
    }
  }
  return found;
}

describe('line index', () => {
  after(removeTempDirs);

  it('is the same built in chunks of any size as in one go, as its definition says, and survives serialization', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 300, size: 'max' }), { maxLength: 800, size: 'max' }),
        fc.integer({ min: 1, max: 5000 }),
        (lines, chunk) => {
          const data = Buffer.from(lines.join('\n'));
          const whole = indexBuffer(data);
          const builder = new LineIndexBuilder();
          for (let at = 0; at < data.length; at += chunk) builder.push(data.subarray(at, at + chunk));
          const chunked = builder.finish();
          assert.deepEqual(chunked, whole);
          assert.deepEqual(
            { lines: whole.checkpointLines, offsets: whole.checkpointOffsets },
            naiveCheckpoints(data, whole.lines),
          );
          assert.deepEqual(parseIndex(serializeIndex(whole), data.length), whole);
          const expected =
            data.length === 0 ? 0 : data.toString().split('\n').length - (data.toString().endsWith('\n') ? 1 : 0);
          assert.equal(whole.lines, expected);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('keeps a checkpoint at the first line 64 KiB past the last one, not a byte before', () => {
    for (const [length, expected] of [
      [65_535, [1, 2]],
      [65_534, [1]],
    ] as const) {
      const data = Buffer.from(`${'a'.repeat(length)}\nb\n`);
      assert.deepEqual(indexBuffer(data).checkpointLines, expected, `a first line of ${length} bytes`);
    }
    const lines = Buffer.from('x\n'.repeat(600));
    assert.deepEqual(indexBuffer(lines).checkpointLines, [1, 257, 513]);
  });

  it('rejects an index made for another size, or torn', () => {
    const index = serializeIndex(indexBuffer(Buffer.from('a\nb\n')));
    assert.equal(parseIndex(index, 5), undefined);
    assert.equal(parseIndex(index.subarray(0, index.length - 3), 4), undefined);
  });
});

describe('peek by range', () => {
  after(removeTempDirs);
  const text = `${Array.from({ length: 3000 }, (_, i) => `row ${i + 1}`).join('\n')}\n`;

  it('returns numbered lines, 1-based and inclusive', async () => {
    const answer = await peek(text, { start: 2445, end: 2447 });
    assert.equal(answer.text, '2445: row 2445\n2446: row 2446\n2447: row 2447');
    assert.equal(answer.truncated, false);
    assert.equal(answer.totalLines, 3000);
  });

  it('caps at 400 lines and says where to continue', async () => {
    const answer = await peek(text, { start: 1, end: 3000 });
    const lines = bodyLines(answer.text);
    assert.equal(lines.length, 400);
    assert.equal(answer.truncated, true);
    assert.equal(answer.nextStart, 401);
    assert.match(
      answer.text,
      /\[peek: cut at the 400-line cap: showing lines 1-400 of 3000; continue with \{"id":"v1","start":401\}\]$/,
    );
  });

  it('caps the answer at 16 KiB and says where to continue', async () => {
    const wide = Array.from({ length: 1000 }, (_, i) => `${i}`.padEnd(100, 'x')).join('\n');
    const answer = await peek(wide, { start: 1, end: 400 });
    assert.ok(Buffer.byteLength(answer.text) <= limits.peekMaxBytes);
    assert.equal(answer.truncated, true);
    assert.match(answer.text, /16384-byte answer cap/);
    assert.equal(bodyLines(answer.text).length, answer.nextStart! - 1);
  });

  it('cuts and marks a line longer than the cap, at a character boundary', async () => {
    const answer = await peek(`short\n${'ü'.repeat(100_000)}\nend\n`, { start: 2, end: 2 });
    assert.ok(Buffer.byteLength(answer.text) <= limits.peekMaxBytes);
    assert.match(answer.text, /^2: ü+… \[line cut: \d+ more bytes\]$/);
    assert.ok(!answer.text.includes('\ufffd'));
  });

  it('says clearly when start is past the end or end before start', async () => {
    await assert.rejects(peek(text, { start: 3001 }), /start \(3001\) is past the end: the value has 3000 lines/);
    await assert.rejects(peek(text, { start: 5, end: 4 }), /end \(4\) must not be before start \(5\)/);
    // A field of the wrong kind is refused where the request comes in, naming it.
    assert.throws(() => check(PeekInput, { start: 0 }), /params\.start must be a whole number of at least 1 \(got 0\)/);
    assert.throws(() => check(PeekInput, { context: 21 }), /params\.context must be a whole number from 0 to 20/);
  });

  it("keeps a value that already has a gutter: both show; stripGutters removes the peek's, or both when stacked", async () => {
    const answer = await peek('5: alpha\n6: beta\n', { start: 1 });
    assert.equal(answer.text, '1: 5: alpha\n2: 6: beta');
    assert.equal(stripGutters(answer.text), '5: alpha\n6: beta');
    assert.equal(stripGutters(answer.text, { stacked: true }), 'alpha\nbeta');
  });

  it('tells a range copied from a peek from ordinary text that starts with a number and a colon', async () => {
    const answer = await peek(text, { start: 10, end: 14 });
    assert.ok(isPeekRange(answer.text), 'a peek answer');
    assert.ok(isPeekRange(answer.text.split('\n').slice(1, 3).join('\n')), 'two of its lines');
    assert.ok(isPeekRange('7: last\n\\ No newline at end of file'), 'one line with the peek mark');
    for (const plain of ['200: OK', '200: OK\n', '3: c\n2: b', '1: a\nplain', 'HTTP/1.1 200: OK\n404: gone'])
      assert.ok(!isPeekRange(plain), JSON.stringify(plain));
  });

  it('property: range peeks, followed with nextStart, then stripGutters, rebuild any value byte for byte', async () => {
    // Lines of any characters, \r included (CRLF, mixed endings), with or without a final newline.
    const line = fc.string({
      maxLength: 120,
      unit: fc.constantFrom('a', 'b', ' ', '\r', '\t', 'é', '😀', ':', '1', '→', '[', '\\'),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 1500 }), fc.boolean(), async (lines, finalNewline) => {
        const value = lines.join('\n') + (finalNewline ? '\n' : '');
        const { path, index } = await valueFile(value);
        const pages: string[] = [];
        let marked = false;
        for (let start = 1; start <= index.lines; ) {
          const answer = await peekValue(
            fileBytes(path),
            index,
            'v',
            { start },
            { peekMaxLines: 400, peekMaxBytes: 4096 },
          );
          marked ||= answer.text.endsWith(`\n${NO_FINAL_NEWLINE}`);
          pages.push(stripGutters(answer.text));
          start = answer.nextStart ?? index.lines + 1;
        }
        // Each page holds whole lines; every line ends with a newline but where the marker says not.
        const rebuilt = pages.length ? pages.join('\n') + (marked ? '' : '\n') : '';
        assert.equal(rebuilt, value);
      }),
      { numRuns: 60 },
    );
  });

  it('says when the value ends without a newline, as diff does, and not otherwise', async () => {
    assert.equal((await peek('a\nb', { start: 1 })).text, `1: a\n2: b\n${NO_FINAL_NEWLINE}`);
    assert.equal((await peek('a\nb\n', { start: 1 })).text, '1: a\n2: b');
    assert.equal(
      (await peek('a\nb', { start: 1, end: 1 })).text,
      '1: a',
      'not on a range that stops before the last line',
    );
    assert.equal(
      (await peek('x\nneedle', { query: 'needle' })).text,
      `2: needle\n${NO_FINAL_NEWLINE}\n[peek: 1 matching line]`,
    );
  });
});

describe('peek by query', () => {
  after(removeTempDirs);
  const text = ['alpha', 'Beta one', 'gamma', 'beta two', 'delta', 'BETA three', 'x'].join('\n');

  it('finds a literal substring, case-sensitively by default', async () => {
    const answer = await peek(text, { query: 'beta' });
    assert.equal(answer.text, '4: beta two\n[peek: 1 matching line]');
    assert.equal(answer.matches, 1);
  });

  it('can ignore case and match a regular expression', async () => {
    assert.equal((await peek(text, { query: 'beta', ignoreCase: true })).matches, 3);
    assert.equal((await peek(text, { query: '^b.ta', regex: true })).text, '4: beta two\n[peek: 1 matching line]');
    assert.equal((await peek(text, { query: '^b.ta', regex: true, ignoreCase: true })).matches, 3);
  });

  it('shows context lines, merging windows that touch, with -- between groups', async () => {
    const answer = await peek(text, { query: 'gamma', context: 1 });
    assert.equal(answer.text, '2: Beta one\n3: gamma\n4: beta two\n[peek: 1 matching line]');
    const two = await peek(text, { query: 'a', context: 0, regex: true });
    assert.equal(two.matches, 5);
    const apart = await peek(text, { query: 'alpha|delta', regex: true });
    assert.equal(apart.text, '1: alpha\n--\n5: delta\n[peek: 2 matching lines]');
  });

  it('says when nothing matches, and rejects a bad query with the reason', async () => {
    assert.match((await peek(text, { query: 'zeta' })).text, /no line matches "zeta"/);
    await assert.rejects(peek(text, { query: '(', regex: true }), /query is not a valid regular expression/);
    await assert.rejects(peek(text, { query: '' }), /query must not be empty/);
  });

  it('cuts at the cap, counts all matches, and continues from nextStart', async () => {
    const many = Array.from({ length: 5000 }, (_, i) => `match ${i + 1} ${'y'.repeat(50)}`).join('\n');
    const first = await peek(many, { query: 'match' });
    assert.equal(first.matches, 5000);
    assert.equal(first.truncated, true);
    assert.ok(Buffer.byteLength(first.text) <= limits.peekMaxBytes);
    const { path, index } = await valueFile(many);
    const next = await peekValue(fileBytes(path), index, 'v1', { query: 'match', start: first.nextStart! }, limits);
    assert.ok(next.text.startsWith(`${first.nextStart}: match ${first.nextStart} `));
  });

  it('agrees with a naive line scan on random text (literal, ignoreCase, regex)', async () => {
    await fc.assert(
      fc.asyncProperty(
        // Pattern characters too: a literal is a literal, case-blind or not.
        fc.array(fc.stringMatching(/^[abAB .*(|[\\\n]{0,30}$/), { maxLength: 300 }),
        fc.stringMatching(/^[abAB.*(|[\\]{1,3}$/),
        fc.boolean(),
        async (parts, needle, ignoreCase) => {
          const value = parts.join('\n');
          const lines = value === '' ? [] : value.replace(/\n$/, '').split('\n');
          const expected = lines.filter((l) =>
            ignoreCase ? l.toLowerCase().includes(needle.toLowerCase()) : l.includes(needle),
          ).length;
          const { path, index } = await valueFile(value);
          const answer = await peekValue(fileBytes(path), index, 'v', { query: needle, ignoreCase }, limits);
          assert.equal(answer.matches, expected);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('peek caps', () => {
  after(removeTempDirs);

  it('property: every form of peek (range, query with context, landmark) stays within the line and byte caps of any setting', async () => {
    // Lines short and long, some matching the query or a landmark, for any caps the settings allow.
    const line = fc.oneof(
      fc.string({ maxLength: 40, unit: fc.constantFrom('a', 'x', ' ', 'é', '😀') }),
      fc.constant('error: something failed here'),
      fc.constant(`x${'y'.repeat(3000)}`),
    );
    const request = fc.oneof(
      fc.record({
        start: fc.integer({ min: 1, max: 50 }),
        end: fc.option(fc.integer({ min: 50, max: 3000 }), { nil: undefined }),
      }),
      fc.record({ query: fc.constantFrom('a', 'x', 'error', 'é'), context: fc.integer({ min: 0, max: 20 }) }),
      fc.record({
        query: fc.constantFrom('a+', 'x|y', '^e'),
        regex: fc.constant(true),
        context: fc.integer({ min: 0, max: 20 }),
      }),
      fc.record({ landmark: fc.constant('error' as const), context: fc.integer({ min: 0, max: 20 }) }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { minLength: 1, maxLength: 1200 }),
        fc.integer({ min: 1, max: 400 }),
        fc.integer({ min: 256, max: 16_384 }),
        request,
        async (lines, peekMaxLines, peekMaxBytes, asked) => {
          const { path, index } = await valueFile(`${lines.join('\n')}\n`);
          const within = 'start' in asked ? { ...asked, start: Math.min(asked.start, lines.length) } : asked;
          const answer = await peekValue(fileBytes(path), index, 'v', within, { peekMaxLines, peekMaxBytes });
          const shown = answer.text.split('\n').filter((l) => /^\d+[:-] /.test(l));
          assert.ok(shown.length <= peekMaxLines, `${shown.length} numbered lines, cap ${peekMaxLines}`);
          assert.ok(
            Buffer.byteLength(answer.text) <= peekMaxBytes,
            `${Buffer.byteLength(answer.text)} bytes, cap ${peekMaxBytes}`,
          );
        },
      ),
      { numRuns: 150 },
    );
  });

  it('does not echo a long query in its notice', async () => {
    const query = `${'q'.repeat(990)}z`;
    const answer = await peek('nothing here\n', { query }, { peekMaxLines: 400, peekMaxBytes: 256 });
    assert.ok(Buffer.byteLength(answer.text) <= 256);
    assert.ok(!answer.text.includes(query));
  });
});

describe('literal search in the raw bytes', () => {
  after(removeTempDirs);

  it('property: finds the same lines as a naive scan, whatever the chunk size, line lengths and where the needle straddles', async () => {
    const { searchLines, lineMatch } = await import('../../server/src/core/values/lineSearch');
    const line = fc.oneof(
      fc.string({ maxLength: 12, unit: fc.constantFrom('a', 'b', 'ab', 'é', ' ') }),
      fc.string({ minLength: 100, maxLength: 700, unit: fc.constantFrom('a', 'b', 'é') }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { minLength: 1, maxLength: 300 }),
        fc.constantFrom('ab', 'aba', 'é', 'bb', 'aé'),
        fc.integer({ min: 4, max: 64 }),
        fc.integer({ min: 1, max: 40 }),
        async (lines, needle, chunk, fromLine) => {
          const { path, index } = await valueFile(`${lines.join('\n')}\n`);
          const expected = lines.flatMap((l, i) => (i + 1 >= fromLine && l.includes(needle) ? [i + 1] : []));
          const found = await searchLines(
            fileBytes(path),
            index,
            lineMatch({ query: needle }),
            fromLine,
            index.lines,
            10_000,
            Infinity,
            chunk,
          );
          assert.deepEqual(found.lines, expected);
          assert.equal(found.total, expected.length);
        },
      ),
      { numRuns: 200 },
    );
  });
});
