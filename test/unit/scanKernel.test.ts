import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { compileKernel, KERNEL } from '../../scripts/kernel';
import { scanKernel, WINDOW_BYTES } from '../../server/src/core/kernel/scanKernel';
import { CANDIDATE_NEEDLES, candidateTables, KERNEL_PLACES } from '../../server/src/core/text/landmarks';

const kernel = scanKernel();
kernel.setNeedles(candidateTables());

/** Bytes like a command's output: mostly text and newlines, some escapes, now and then a byte past ASCII. */
const outputByte = fc.oneof(
  { weight: 12, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
  { weight: 3, arbitrary: fc.constantFrom(0x0a, 0x22, 0x5c, 0x09, 0x0d) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 0x1f }) },
  { weight: 1, arbitrary: fc.integer({ min: 0x80, max: 0xff }) },
);
const asciiByte = outputByte.filter((byte) => byte < 0x80);
/** Words the needles are made for, in any case, among other bytes. */
const needleText = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        'error',
        'FATAL',
        'Panic',
        'exception',
        'E404',
        'e12',
        'failed',
        'WARN',
        'rr',
        'a l',
        '\n  at',
        '\n\tx',
      ),
      fc.constantFrom('\nTraceback (', '\ngoroutine 1', "\nthread 'm'", '*t', '\n', ' ', 'x', '7'),
    ),
    { maxLength: 60 },
  )
  .map((parts) => Buffer.from(parts.join(''), 'latin1'));

function count(bytes: Uint8Array, start: number, end: number): number {
  let n = 0;
  for (let i = start; i < end; i++) if (bytes[i] === 0x0a) n++;
  return n;
}

/**
 * Whether a byte may be at a place of a needle, as the kernel tells: its low nibble is one of a
 * character's there and its high nibble one of a character's there, case aside (so a place of
 * several characters lets a few more through, never fewer).
 */
function atPlace(byte: number | undefined, chars: string): boolean {
  if (chars === '') return true;
  if (byte === undefined) return false;
  const folded = [...chars].map((c) => c.charCodeAt(0) | 0x20);
  const f = byte | 0x20;
  return folded.some((c) => (c & 15) === (f & 15)) && folded.some((c) => c >> 4 === f >> 4);
}

/** Where a needle of the mask begins, by the needles' definition at the places the kernel compares. */
function referenceCandidate(bytes: Uint8Array, start: number, end: number, mask: number): number {
  for (let at = start; at < end; at++) {
    const hit = CANDIDATE_NEEDLES.some(
      ({ at: places }, bit) => (mask >> bit) & 1 && KERNEL_PLACES.every((k) => atPlace(bytes[at + k], places[k]!)),
    );
    if (hit) return at;
  }
  return -1;
}

describe('the scan kernel', () => {
  it('is built from its text: the committed binary is what npm run build:kernel makes', async () => {
    const built = await compileKernel();
    assert.ok(built.equals(readFileSync(`${KERNEL}.wasm`)), 'run npm run build:kernel after changing scanKernel.wat');
  });

  it('property: sums up ASCII bytes as JSON.stringify and a newline count do, and refuses any other byte', () => {
    fc.assert(
      fc.property(fc.array(outputByte, { maxLength: 9000 }), (list) => {
        const bytes = Buffer.from(list);
        kernel.load(bytes);
        const summary = kernel.summary(bytes.length);
        if (list.some((byte) => byte >= 0x80)) return assert.equal(summary, undefined);
        const text = bytes.toString('latin1');
        assert.deepEqual(summary, {
          jsonExtra: Buffer.byteLength(JSON.stringify(text)) - 2 - bytes.length,
          newlines: count(bytes, 0, bytes.length),
        });
      }),
      { numRuns: 300 },
    );
  });

  it('counts past the 255 vectors a byte lane holds', () => {
    const bytes = Buffer.alloc(WINDOW_BYTES, '"\n\u0001');
    kernel.load(bytes);
    const thirds = Math.floor(WINDOW_BYTES / 3);
    const extra = (WINDOW_BYTES % 3 >= 1 ? 1 : 0) + (WINDOW_BYTES % 3 === 2 ? 1 : 0) + 7 * thirds;
    assert.deepEqual(kernel.summary(WINDOW_BYTES), { jsonExtra: extra, newlines: count(bytes, 0, WINDOW_BYTES) });
  });

  it('property: counts and finds newlines in any range', () => {
    fc.assert(
      fc.property(fc.array(outputByte, { maxLength: 3000 }), fc.nat(), fc.nat(), fc.nat(40), (list, a, b, n) => {
        const bytes = Buffer.from(list);
        kernel.load(bytes);
        const [start, end] = [a % (bytes.length + 1), b % (bytes.length + 1)].sort((x, y) => x - y) as [number, number];
        assert.equal(kernel.newlines(start, end), count(bytes, start, end));
        const at = [...bytes.subarray(start, end).keys()].filter((i) => bytes[start + i] === 0x0a);
        const nth = at[n] === undefined ? -1 : start + at[n]!;
        assert.equal(kernel.nthNewline(start, end, n + 1), nth);
      }),
      { numRuns: 500 },
    );
  });

  it('property: finds the first needle of the mask in any range, as the needles define it', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          needleText,
          fc.array(asciiByte, { maxLength: 400 }).map((list) => Buffer.from(list)),
        ),
        fc.nat(),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (bytes, a, b, mask) => {
          kernel.load(bytes);
          const [start, end] = [a % (bytes.length + 1), b % (bytes.length + 1)].sort((x, y) => x - y) as [
            number,
            number,
          ];
          // Past `end` the kernel reads what is loaded (a needle may run on), as the reference does.
          assert.equal(kernel.candidate(start, end, mask), referenceCandidate(bytes, start, end, mask));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('takes a window at a time at most', () => {
    assert.throws(() => kernel.load(Buffer.alloc(WINDOW_BYTES + 1)), /at a time/);
  });
});
