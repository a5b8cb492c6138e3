import assert from 'node:assert/strict';
import { gutterLine, NO_FINAL_NEWLINE, stripGutters } from '../../shared/stubText';

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
