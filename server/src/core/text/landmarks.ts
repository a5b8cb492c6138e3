/**
 * Landmarks: where in a long output the useful part is. The commonest complaint about
 * truncation is that the error in the middle is lost; a stub that names the exit code and the
 * line numbers of the first errors, failures, warnings and stack traces lets the model peek
 * straight there. A pure function of the text, so stubs stay deterministic.
 */

import type { RE2JS } from 're2js';
import { re2js } from '../../../../shared/query';
import { LANDMARK_KINDS, type LandmarkKind } from '../../../../shared/settings';
import { landmarksText } from '../../../../shared/stubText';

/**
 * One pattern per kind, tested on each line, in the one query dialect (RE2: linear time, so no
 * line, however hostile, costs more than its length). A cheap prefilter of plain literals
 * (fixed length, so linear for any engine) picks the lines worth the exact test; only a line's
 * first LANDMARK_LINE_MAX characters are tested, so one huge line stays cheap too.
 */
const BUILT_IN: Readonly<Record<LandmarkKind, { prefilter: RegExp; pattern: string }>> = Object.freeze({
  error: {
    prefilter: /error|ERROR|Error|fatal|FATAL|Fatal|panic|PANIC|xception|E\d{3}/,
    pattern: '\\b(?:error|ERROR|Error|fatal|FATAL|Fatal|panic|PANIC|Exception|exception)\\b|\\bE\\d{3,}\\b',
  },
  failure: {
    prefilter: /FAIL|Fail|fail|✗|✘|✖/,
    pattern: '\\b(?:FAIL|FAILED|Failed|failed|failure|Failure|FAILURE)\\b|✗|✘|✖',
  },
  warning: { prefilter: /warn|WARN|Warn/, pattern: '\\b(?:warning|WARNING|Warning|WARN|warn)\\b' },
  trace: {
    prefilter: /^[ \t]|^Traceback \(|^goroutine |^thread '/,
    pattern:
      '^\\s+at \\S.*[(\\s]\\S+:\\d+(?::\\d+)?\\)?$|^Traceback \\(most recent call last\\)|^\\s+File ".+", line \\d+|^goroutine \\d+ \\[|^thread \'.+\' panicked at',
  },
});

/** Characters of a line a landmark pattern is tested on. */
export const LANDMARK_LINE_MAX = 4096;

export const EXIT_CODE =
  /\b(?:exit(?:ed)?(?: with)?(?: code| status)|exit_code|exitCode|return code|status code)["']?\s*[:=]?\s*(-?\d{1,3})\b/i;
/** Landmarks named per kind in a stub. */
export const LANDMARKS_PER_KIND = 3;
/** How far from the end an exit code is looked for (tools print it last). */
export const EXIT_CODE_TAIL_LINES = 20;

export interface Landmarks {
  exitCode?: number;
  /** Per kind, the 1-based numbers of the first matching lines. */
  lines: Partial<Record<LandmarkKind, number[]>>;
}

/** Tests one line for one kind of landmark. */
export type LandmarkTest = (line: string) => boolean;

const compiled = new Map<string, RE2JS>();

function re2(source: string): RE2JS {
  let pattern = compiled.get(source);
  if (!pattern) {
    pattern = re2js().compile(source);
    compiled.set(source, pattern);
  }
  return pattern;
}

const DIGITS = '0123456789';

/**
 * Where a built-in landmark may be: four characters, one of which every prefilter match starts
 * with (landmarks.test.ts holds it), a line-start literal as the newline before it (a
 * stretch's first line is tested on its own). A needle only picks a line to test; the kind's
 * exact test decides. Each place is the characters that may be there, letters in either case
 * ('' for any). ASCII text is searched for them sixteen bytes at a time (scanKernel.wat,
 * at most eight needles); other text with BUILT_IN_CANDIDATES, made from them.
 */
export const CANDIDATE_NEEDLES: readonly { kind: LandmarkKind; at: readonly [string, string, string, string] }[] = [
  { kind: 'error', at: ['r', 'r', 'o', 'r'] }, // error, Error, ERROR
  { kind: 'error', at: ['a', 't', 'a', 'l'] }, // fatal
  { kind: 'error', at: ['a', 'n', 'i', 'c'] }, // panic
  { kind: 'error', at: ['x', 'c', 'e', 'p'] }, // exception
  { kind: 'error', at: ['E', DIGITS, DIGITS, DIGITS] }, // E404
  { kind: 'failure', at: ['f', 'a', 'i', 'l'] },
  { kind: 'warning', at: ['w', 'a', 'r', 'n'] },
  // An indented line, Traceback, goroutine, thread.
  { kind: 'trace', at: ['\n', ' \tTgt', '', ''] },
];

/** Failure marks outside ASCII: only text can hold them. */
const FAILURE_MARKS = '✗✘✖';

/** The needles of these kinds, as the kernel's mask: a bit per needle. */
export function needleMask(kinds: readonly LandmarkKind[]): number {
  let mask = 0;
  CANDIDATE_NEEDLES.forEach(({ kind }, bit) => {
    if (kinds.includes(kind)) mask |= 1 << bit;
  });
  return mask;
}

/** The places of a needle the kernel compares: three are rare enough, and a fourth costs a quarter more. */
export const KERNEL_PLACES = [0, 1, 3] as const;

/**
 * The needles as the kernel reads them (ScanKernel.setNeedles): for each place it compares, a
 * bit per needle at the low nibble and at the high nibble of each byte that may be there, its
 * case bit set (0x20: the kernel sets it on the text too, so letters match in either case).
 */
export function candidateTables(): Uint8Array {
  if (CANDIDATE_NEEDLES.length > 8) throw new Error('the kernel looks for 8 needles at most');
  const tables = new Uint8Array(KERNEL_PLACES.length * 32);
  CANDIDATE_NEEDLES.forEach(({ at }, bit) => {
    KERNEL_PLACES.forEach((place, k) => {
      const chars = at[place]!;
      // Any byte: every nibble, low and high (the bytes past the text's end, 0xff, too).
      const bytes =
        chars === '' ? ANY_NIBBLE.map((nibble) => nibble * 0x11) : [...chars].map((c) => c.charCodeAt(0) | 0x20);
      for (const byte of bytes) {
        if (chars !== '' && byte >= 0x80)
          throw new Error(`a needle's characters are ASCII (got ${JSON.stringify(chars)})`);
        tables[k * 32 + (byte & 15)]! |= 1 << bit;
        tables[k * 32 + 16 + (byte >> 4)]! |= 1 << bit;
      }
    });
  });
  return tables;
}

const ANY_NIBBLE = Array.from({ length: 16 }, (_, nibble) => nibble);

/** A place of a needle in a pattern: a character, or a class of them. */
function charClass(chars: string): string {
  const escaped = chars.replace(/[\\\]^\-.*+?()[{}|$/]/g, '\\$&');
  return chars.length === 1 ? escaped : `[${escaped}]`;
}

/** The needles and marks as one case-blind pattern, for text that is not ASCII. */
export const BUILT_IN_CANDIDATES = new RegExp(
  [
    ...CANDIDATE_NEEDLES.map(({ at }) => {
      const places = [...at];
      while (places.at(-1) === '') places.pop();
      return places.map((chars) => (chars === '' ? '[^]' : charClass(chars))).join('');
    }),
    `[${FAILURE_MARKS}]`,
  ].join('|'),
  'gi',
);

/**
 * The test for a kind: the override (a pattern from the settings, already checked) or the
 * built-in one with its prefilter.
 */
export function landmarkTest(kind: LandmarkKind, overrides: Partial<Record<LandmarkKind, string>> = {}): LandmarkTest {
  const source = overrides[kind];
  if (source) {
    const pattern = re2(source);
    return (line) => pattern.test(line.length > LANDMARK_LINE_MAX ? line.slice(0, LANDMARK_LINE_MAX) : line);
  }
  const { prefilter, pattern } = BUILT_IN[kind];
  const exact = re2(pattern);
  return (line) => {
    const head = line.length > LANDMARK_LINE_MAX ? line.slice(0, LANDMARK_LINE_MAX) : line;
    return prefilter.test(head) && exact.test(head);
  };
}

/** The stub's landmarks line, or undefined when there are none. */
export function landmarksLine(landmarks: Landmarks, tool?: string): string | undefined {
  const parts: string[] = [];
  if (landmarks.exitCode !== undefined) parts.push(`exit code ${landmarks.exitCode}`);
  const found = LANDMARK_KINDS.filter((kind) => landmarks.lines[kind]?.length);
  for (const kind of found)
    parts.push(`${kind === 'trace' ? 'stack trace' : kind} at line ${landmarks.lines[kind]!.join(', ')}`);
  return parts.length ? landmarksText(parts, found, tool) : undefined;
}
