/**
 * Landmarks: where in a long output the useful part is. The commonest complaint about
 * truncation is that the error in the middle is lost; a stub that names the exit code and the
 * line numbers of the first errors, failures, warnings and stack traces lets the model peek
 * straight there. A pure function of the text, so stubs stay deterministic.
 */

import { RE2JS } from 're2js';
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
    pattern = RE2JS.compile(source);
    compiled.set(source, pattern);
  }
  return pattern;
}

/**
 * Where in a stretch of whole lines a built-in landmark may be: one pass of every kind's
 * literals at once (a line-start literal as `\n` and it; a stretch's first line is tested on
 * its own). A match only picks a line to test; the kind's exact test decides. Every prefilter
 * match is a match here (landmarks.test.ts holds it); written case-blind with shared endings
 * (`rror` for error, ERROR and Error), it runs at twice the speed of the prefilters joined.
 */
export const BUILT_IN_CANDIDATES =
  /rror|atal|anic|xception|e\d{3}|fail|warn|[✗✘✖]|\n[ \t]|\ntraceback \(|\ngoroutine |\nthread '/gi;

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
  for (const kind of LANDMARK_KINDS) {
    const lines = landmarks.lines[kind];
    if (lines?.length) parts.push(`${kind === 'trace' ? 'stack trace' : kind} at line ${lines.join(', ')}`);
  }
  return parts.length ? landmarksText(parts, tool) : undefined;
}
