import assert from 'node:assert/strict';
import {
  gutterLine,
  INDEX_MAX_BYTES,
  type IndexedValue,
  NO_FINAL_NEWLINE,
  retainedIndex,
  startsWithMarker,
  stripGutters,
} from '../../shared/stubText';

describe('gutter', () => {
  it('prefixes a line with its number', () => {
    assert.equal(gutterLine(12, 'text'), '12: text');
  });

  it('strips one gutter from every line of a snippet', () => {
    assert.equal(stripGutters('3: const a = 1;\n4:   return a;\n5: '), 'const a = 1;\n  return a;\n');
  });

  it('strips stacked gutters when asked (a peek of a read that had its own), one layer otherwise', () => {
    assert.equal(stripGutters('12: 5: foo()\n13: 6:   bar()', { stacked: true }), 'foo()\n  bar()');
    assert.equal(stripGutters('12: 5: foo()\n13: 6:   bar()'), '5: foo()\n6:   bar()');
    assert.equal(stripGutters('1: 1→'), '1→', 'a line that looks like a gutter is content');
  });

  it('tolerates a trailing space an editor trimmed and cat -n arrows', () => {
    assert.equal(stripGutters('7: a\n8:\n9: b'), 'a\n\nb');
    assert.equal(stripGutters('  41→x\n  42→y', { stacked: true }), 'x\ny');
  });

  it('leaves text alone unless every non-empty line has a gutter', () => {
    const text = '1: first item\nsecond line without one';
    assert.equal(stripGutters(text), text);
    assert.equal(stripGutters('plain text'), 'plain text');
  });

  it('keeps each line its own ending: CRLF, and mixed endings', () => {
    assert.equal(stripGutters('1: a\r\n2: b'), 'a\r\nb');
    assert.equal(stripGutters('1: a\r\n2: b\n3: c\r'), 'a\r\nb\nc\r');
    assert.equal(stripGutters('1: a\r\n2:\r\n3: c'), 'a\r\n\r\nc', 'an empty CRLF line');
  });

  it('drops the notices a peek adds, and the newline the no-final-newline marker denies', () => {
    assert.equal(stripGutters(`1: a\n2: b\n${NO_FINAL_NEWLINE}`), 'a\nb');
    assert.equal(
      stripGutters(
        '4: x\n5: y\n[peek: cut at the 400-line cap: showing lines 4-5 of 900; continue with {"id":"v","start":6}]',
      ),
      'x\ny',
    );
    assert.equal(stripGutters(NO_FINAL_NEWLINE), NO_FINAL_NEWLINE, 'a lone marker is just text');
  });
});

describe('the marker', () => {
  it('begins a stub or a reference, and nothing else that merely mentions it', () => {
    assert.equal(startsWithMarker('[retained #toolu_01] Bash result: 3 bytes'), true);
    assert.equal(startsWithMarker('[retained #] nothing named'), false);
    assert.equal(startsWithMarker(' [retained #a] after a blank'), false);
    assert.equal(startsWithMarker('see [retained #a]'), false);
    assert.equal(startsWithMarker(`[retained #${'a'.repeat(65)}]`), false, 'an id longer than any the store writes');
  });
});

describe('the index after a compaction', () => {
  const value = (n: number, landmarked = false): IndexedValue => ({
    valueId: `toolu_${String(n).padStart(3, '0')}`,
    tool: 'Bash',
    bytes: 100_000 + n,
    lines: 1000 + n,
    isError: landmarked,
    createdAt: new Date(Date.UTC(2026, 11, 1, 10, 0, n)).toISOString(),
    subject: { text: `make step-${n}` },
    stub: landmarked
      ? `[retained #x] …\nLandmarks: error at line ${n}. Jump there with peek_value {"landmark":"error"}.`
      : '[retained #x] …',
  });

  it('is bounded, newest first with the landmarked kept first, the rest counted, and the same text for the same values', () => {
    const values = Array.from({ length: 60 }, (_, i) => value(i + 1, i === 2 || i === 40));
    const index = retainedIndex(values, 'session-1');
    assert.ok(Buffer.byteLength(index) <= INDEX_MAX_BYTES, `${Buffer.byteLength(index)} bytes`);
    const ids = [...index.matchAll(/^\[retained #(\S+)\]/gm)].map((m) => m[1]!);
    // The oldest landmarked one is kept although 57 newer ones are not all.
    assert.ok(ids.includes('toolu_003') && ids.includes('toolu_041'), ids.join(' '));
    assert.ok(ids.includes('toolu_060'), 'the newest');
    assert.deepEqual(ids, [...ids].sort().reverse(), 'newest first');
    assert.match(index, new RegExp(`… and ${60 - ids.length} more: list_retained \\{"runId":"session-1"\\}`));
    assert.match(index, /error at line 41/);
    assert.equal(retainedIndex([...values].reverse(), 'session-1'), index, 'the order given does not matter');
    assert.equal(retainedIndex([], 'session-1'), '');
  });
});
