import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { scanKernel } from '../../server/src/core/kernel/scanKernel';
import {
  BUILT_IN_CANDIDATES,
  candidateTables,
  landmarksLine,
  landmarkTest,
  needleMask,
} from '../../server/src/core/text/landmarks';
import { Scan, scanText } from '../../server/src/core/text/scan';
import { LANDMARK_KINDS, type LandmarkKind } from '../../shared/settings';

const findLandmarks = (text: string) => scanText(text, 0, 0).landmarks;

/** `[from, to)` pieces of a length, cut where `cuts` say (any numbers: taken modulo, in order). */
function pieces(length: number, cuts: readonly number[]): [number, number][] {
  const at = [0, ...[...new Set(cuts.map((c) => c % (length + 1)))].sort((a, b) => a - b), length];
  return at.slice(1).map((to, i) => [at[i]!, to]);
}

import { indexBuffer } from '../../server/src/core/store/lineIndex';
import { fileBytes } from '../../server/src/core/store/lineReader';
import { jsonStringBytes } from '../../server/src/core/text/sizes';
import { STUB_MAX_BYTES, stubFor } from '../../server/src/core/text/stub';
import { peekValue } from '../../server/src/core/values/peek';
import { check } from '../../shared/check';
import { PeekInput } from '../../shared/protocol';
import { DEFAULT_SETTINGS } from '../../shared/settings';
import { removeTempDirs, tempDir } from '../helpers/tmp';

/** A test run's output: the failure and its stack trace in the middle, the exit code at the end. */
function testLog(): string {
  const lines = Array.from({ length: 3000 }, (_, i) => `ok ${i + 1} - case ${i + 1}`);
  lines[1499] = 'not ok 1500 - FAILED parses the lock file';
  lines[1500] = 'Error: expected 3 to equal 4';
  lines[1501] = '    at Context.<anonymous> (test/lock.test.ts:42:10)';
  lines[2200] = 'npm warn deprecated glob@7';
  lines.push('Process exited with code 1');
  return lines.join('\n');
}

describe('landmarks', () => {
  after(removeTempDirs);

  it('finds the exit code and the first errors, failures, warnings and stack traces', () => {
    const found = findLandmarks(testLog());
    assert.deepEqual(found, { exitCode: 1, lines: { error: [1501], failure: [1500], warning: [2201], trace: [1502] } });
  });

  it('puts them in the stub, which stays under 2 KiB and deterministic', () => {
    const log = testLog();
    const stub = stubFor(
      { valueId: 'run_tests', tool: 'bash', text: log },
      { previewHeadLines: 10, previewTailLines: 10 },
    );
    assert.match(
      stub,
      /^Landmarks: exit code 1; error at line 1501; failure at line 1500; warning at line 2201; stack trace at line 1502\. Jump there with peek_value/m,
    );
    assert.ok(Buffer.byteLength(stub) < STUB_MAX_BYTES);
    assert.equal(
      stub,
      stubFor({ valueId: 'run_tests', tool: 'bash', text: log }, { previewHeadLines: 10, previewTailLines: 10 }),
    );
    assert.equal(landmarksLine(findLandmarks('all good\nnothing here')), undefined);
  });

  it('peek jumps to a landmark with context', async () => {
    const path = join(tempDir(), 'v.txt');
    writeFileSync(path, testLog());
    const answer = await peekValue(
      fileBytes(path),
      indexBuffer(readFileSync(path)),
      'run_tests',
      { landmark: 'failure' },
      DEFAULT_SETTINGS,
    );
    assert.equal(answer.matches, 1);
    assert.equal(
      answer.text,
      [
        '1497: ok 1497 - case 1497',
        '1498: ok 1498 - case 1498',
        '1499: ok 1499 - case 1499',
        '1500: not ok 1500 - FAILED parses the lock file',
        '1501: Error: expected 3 to equal 4',
        '1502:     at Context.<anonymous> (test/lock.test.ts:42:10)',
        '1503: ok 1503 - case 1503',
        '[peek: 1 matching line]',
      ].join('\n'),
    );
    assert.throws(
      () => check(PeekInput, { landmark: 'oops' }),
      /params\.landmark must be one of "error", "failure", "warning", "trace"/,
    );
  });
});

describe('landmark patterns from the settings', () => {
  after(removeTempDirs);

  it('shape the stub (recorded with it) and the peek jump', async () => {
    const text = Array.from({ length: 50 }, (_, i) => (i === 30 ? 'E: cannot stat' : `line ${i + 1}`)).join('\n');
    const preview = { previewHeadLines: 2, previewTailLines: 2, landmarkPatterns: { error: '^E: ' } };
    assert.match(stubFor({ valueId: 'v', tool: 't', text }, preview), /Landmarks: error at line 31\./);
    assert.doesNotMatch(
      stubFor({ valueId: 'v', tool: 't', text }, { previewHeadLines: 2, previewTailLines: 2 }),
      /Landmarks/,
    );
    const path = join(tempDir(), 'v.txt');
    writeFileSync(path, text);
    const answer = await peekValue(
      fileBytes(path),
      indexBuffer(readFileSync(path)),
      'v',
      { landmark: 'error', context: 0 },
      { ...DEFAULT_SETTINGS, landmarkPatterns: { error: '^E: ' } },
    );
    assert.equal(answer.text, '31: E: cannot stat\n[peek: 1 matching line]');
  });
});

describe('landmarks found in stretches', () => {
  it('property: the fast scan (one pass over whole stretches, in any pieces, text or bytes, patterns from the settings or not) finds what testing every line finds', () => {
    const line = fc.oneof(
      fc.string({ maxLength: 30, unit: fc.constantFrom('a', ' ', 'r', 'o', 'E', '1', 'x') }),
      fc.constantFrom(
        'error: boom',
        'ERROR x',
        'E1234 bad',
        'FAILED test',
        '  ✗ nope',
        'warning: careful',
        '    at f (src/a.ts:10:5)',
        'Traceback (most recent call last)',
        '  File "x.py", line 3',
        'goroutine 7 [running]:',
        "thread 'main' panicked at x",
        'fine',
        '\tindented',
      ),
    );
    // Patterns from the settings for some kinds: those are tested line by line, the others by needles.
    const overrides = fc.constantFrom<Partial<Record<LandmarkKind, string>>>(
      {},
      { warning: 'careful' },
      { error: 'boom' },
      { trace: '^\\s' },
      { failure: 'nope', warning: 'x' },
    );
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 400 }),
        fc.array(fc.nat(), { maxLength: 20 }),
        overrides,
        (lines, cuts, patterns) => {
          const text = `${lines.join('\n')}\n`;
          const naive: Partial<Record<LandmarkKind, number[]>> = {};
          for (const kind of LANDMARK_KINDS) {
            const test = landmarkTest(kind, patterns);
            const hits = lines.flatMap((l, i) => (test(l) ? [i + 1] : [])).slice(0, 3);
            if (hits.length) naive[kind] = hits;
          }
          const scan = new Scan(0, 0, patterns);
          for (const [from, to] of pieces(text.length, cuts)) scan.pushText(text.slice(from, to));
          assert.deepEqual(scan.figures().landmarks.lines, naive);
          // The same as bytes: ASCII pieces go through the kernel.
          const bytes = Buffer.from(text);
          const scanned = new Scan(0, 0, patterns);
          for (const [from, to] of pieces(bytes.length, cuts)) scanned.pushBytes(bytes.subarray(from, to));
          assert.deepEqual(scanned.figures().landmarks.lines, naive);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('the scan of bytes', () => {
  it('property: every line a built-in landmark test takes holds a needle of its kind, in text and in the kernel', () => {
    const words = ['error', 'Error', 'ERROR', 'fatal', 'Fatal', 'PANIC', 'panic', 'Exception', 'E404', 'FAILED'];
    const more = ['failure', 'Failure', 'WARN', 'warning', 'Warning', '✗', '✘', '✖', 'at f (a.ts:1:2)', 'Traceback'];
    const line = fc
      .array(
        fc.oneof(
          fc.constantFrom(...words, ...more, ' ', '\t', 'x', '1', '(', 'goroutine 7 [', "thread 'm' panicked at"),
        ),
        {
          maxLength: 8,
        },
      )
      .map((parts) => parts.join(''));
    const kernel = scanKernel();
    kernel.setNeedles(candidateTables());
    fc.assert(
      fc.property(line, (text) => {
        const taken = LANDMARK_KINDS.filter((kind) => landmarkTest(kind)(text));
        if (taken.length === 0) return;
        const candidate = new RegExp(BUILT_IN_CANDIDATES.source, BUILT_IN_CANDIDATES.flags.replace('g', ''));
        assert.ok(candidate.test(`\n${text}`), JSON.stringify(text));
        // ASCII text is searched in the kernel, for the needles of the kinds still wanted.
        const bytes = Buffer.from(`\n${text}`);
        if (bytes.length !== text.length + 1) return;
        kernel.load(bytes);
        for (const kind of taken) assert.notEqual(kernel.candidate(0, bytes.length, needleMask([kind])), -1, kind);
      }),
      { numRuns: 2000 },
    );
  });

  it('takes a blank first line once into the tail (a stretch starting with its newline)', () => {
    assert.deepEqual(scanText('\n\n', 0, 5).tail, [
      { text: '', bytes: 0 },
      { text: '', bytes: 0 },
    ]);
  });

  it('property: bytes in any pieces scan as their text does; the JSON size is exact', () => {
    const unit = fc.constantFrom(
      'a',
      'E',
      'rror ',
      '\n',
      '\t',
      '"',
      '\\',
      '\u0001',
      '\u001b',
      '\r',
      'é',
      '✗',
      '😀',
      ' at x (a.ts:1:2)',
    );
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 300 }), fc.array(fc.nat(), { maxLength: 12 }), (units, cuts) => {
        const text = units.join('');
        const bytes = Buffer.from(text);
        const scan = new Scan(3, 3);
        for (const [from, to] of pieces(bytes.length, cuts)) scan.pushBytes(bytes.subarray(from, to));
        const streamed = scan.figures();
        assert.equal(streamed.jsonBytes, jsonStringBytes(text));
        assert.equal(streamed.jsonBytes, Buffer.byteLength(JSON.stringify(text)));
        assert.deepEqual(streamed, scanText(text, 3, 3));
      }),
      { numRuns: 500 },
    );
  });
});

describe('the scan of a big stream', () => {
  it("finds what the scan of the whole text finds, in pieces of any size past the kernel's window", () => {
    const lines = Array.from({ length: 600_000 }, (_, i) => `${i} INFO step ${i} of the build${i % 9 ? '' : ' é'}`);
    lines[250_000] = 'error: the one in the middle';
    lines[590_000] = '    at Object.<anonymous> (src/a.ts:1:2)';
    const text = `${lines.join('\n')}\n`;
    const bytes = Buffer.from(text);
    assert.ok(bytes.length > 16 << 20);
    const scan = new Scan(3, 3);
    // Pieces of odd sizes, cutting characters in two.
    for (let at = 0, size = 65_531; at < bytes.length; size = Math.min(size * 3 - 7, 3 << 20)) {
      scan.pushBytes(bytes.subarray(at, at + size));
      at += size;
    }
    const figures = scan.figures();
    assert.deepEqual(figures, scanText(text, 3, 3));
    assert.deepEqual(figures.landmarks.lines, { error: [250_001], trace: [590_001] });
  });
});
