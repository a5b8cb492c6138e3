import assert from 'node:assert/strict';
import { join, resolve, sep } from 'node:path';
import fc from 'fast-check';
import { fnv1a64, isSanitizedId, sanitizeId, valueIdCandidates } from '../../shared/ids';

const SAFE = /^[A-Za-z0-9_-]{1,64}$/;

/** Hostile call ids: traversal, separators, NUL, unicode, huge, and ids equal after sanitizing. */
function hostileIds(): string[] {
  const ids = [
    '../',
    '..',
    '.',
    '',
    '/',
    '\\',
    '../../etc/passwd',
    'a/b',
    'a\\b',
    'a\0b',
    '\0',
    'toolu_01',
    'toolu_01 ',
    'é',
    'e\u0301',
    '😀',
    '\ud800',
    'CON',
    'a'.repeat(10_000),
    'a'.repeat(64),
    'a'.repeat(65),
    `${'a'.repeat(64)}b`,
    'x--0123456789abcdef',
    'x_',
    'x.',
    'x/',
    'x:',
    'x?',
    'x*',
    '..%2f',
    '%2e%2e/',
    '\n',
    '\r\n',
    ' ',
    '\t',
  ];
  for (let i = 0; i < 200; i++) ids.push(`call/${i}`, `call.${i}`, `call_${i}`, `call ${i}`, `../call${i}`);
  return ids;
}

describe('ids: the one sanitizer', () => {
  it('leaves clean provider ids untouched', () => {
    for (const id of ['toolu_01ABCdef', 'call_9x', 'fc-123', 'a', 'A'.repeat(64)]) assert.equal(sanitizeId(id), id);
  });

  it('maps every hostile id into the safe alphabet, ≤ 64 characters, inside the store', () => {
    const root = resolve('/store/runs/r.values');
    for (const raw of hostileIds()) {
      const id = sanitizeId(raw);
      assert.match(id, SAFE, `for ${JSON.stringify(raw.slice(0, 40))}`);
      assert.ok(isSanitizedId(id));
      assert.ok(resolve(join(root, `${id}.txt`)).startsWith(root + sep));
    }
  });

  it('never maps two different hostile ids to one name', () => {
    const seen = new Map<string, string>();
    for (const raw of hostileIds()) {
      const id = sanitizeId(raw);
      const before = seen.get(id);
      assert.ok(
        before === undefined || before === raw,
        `${JSON.stringify(before)} and ${JSON.stringify(raw)} both became ${id}`,
      );
      seen.set(id, raw);
    }
  });

  it('gives an id that sanitizing changed an FNV-1a suffix of the original', () => {
    assert.equal(sanitizeId('a/b'), `a_b--${fnv1a64('a/b')}`);
    assert.notEqual(sanitizeId('a/b'), sanitizeId('a_b'));
    assert.notEqual(sanitizeId('a/b'), sanitizeId('a.b'));
  });

  it('suffixes a clean id that looks suffixed, so it cannot collide with a sanitized one', () => {
    const lookalike = sanitizeId('a/b');
    assert.notEqual(sanitizeId(lookalike), lookalike);
  });

  it('property: output is always safe, stable, and injective over arbitrary strings', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), fc.string({ maxLength: 80 })), {
          minLength: 2,
          maxLength: 60,
        }),
        (raws) => {
          const seen = new Map<string, string>();
          for (const raw of raws) {
            const id = sanitizeId(raw);
            if (!SAFE.test(id)) return false;
            if (sanitizeId(raw) !== id) return false;
            const before = seen.get(id);
            if (before !== undefined && before !== raw) return false;
            seen.set(id, raw);
          }
          return true;
        },
      ),
      { numRuns: 300 },
    );
  });

  it('knows the two file names an id handed back by a model may mean', () => {
    const stubId = sanitizeId('a/b');
    assert.deepEqual(valueIdCandidates(stubId), [stubId, sanitizeId(stubId)]);
    assert.deepEqual(valueIdCandidates('a/b'), [stubId]);
    assert.deepEqual(valueIdCandidates('toolu_1'), ['toolu_1']);
  });
});
