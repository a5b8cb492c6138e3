/**
 * Landmarks: where in a long output the useful part is. The commonest complaint about
 * truncation is that the error in the middle is lost; a stub that names the exit code and the
 * line numbers of the first errors, failures, warnings and stack traces lets the model peek
 * straight there. A pure function of the text, so stubs stay deterministic.
 */

export type LandmarkKind = 'error' | 'failure' | 'warning' | 'trace';
export const LANDMARK_KINDS: readonly LandmarkKind[] = ['error', 'failure', 'warning', 'trace'];

/** One regular expression per kind, tested on each line. */
export const LANDMARK_PATTERNS: Readonly<Record<LandmarkKind, RegExp>> = Object.freeze({
  error: /\b(?:error|ERROR|Error|fatal|FATAL|Fatal|panic|PANIC|Exception|exception)\b|\bE\d{3,}\b/,
  failure: /\b(?:FAIL|FAILED|Failed|failed|failure|Failure|FAILURE)\b|✗|✘|✖/,
  warning: /\b(?:warning|WARNING|Warning|WARN|warn)\b/,
  trace: /^\s+at \S.*[(\s]\S+:\d+(?::\d+)?\)?$|^Traceback \(most recent call last\)|^\s+File ".+", line \d+|^goroutine \d+ \[|^thread '.+' panicked at/,
});

const EXIT_CODE = /\b(?:exit(?:ed)?(?: with)?(?: code| status)|exit_code|exitCode|return code|status code)["']?\s*[:=]?\s*(-?\d{1,3})\b/i;
/** Landmarks named per kind in a stub. */
export const LANDMARKS_PER_KIND = 3;
/** How far from the end an exit code is looked for (tools print it last). */
const EXIT_CODE_TAIL_LINES = 20;

export interface Landmarks {
  exitCode?: number;
  /** Per kind, the 1-based numbers of the first matching lines. */
  lines: Partial<Record<LandmarkKind, number[]>>;
}

const compiled = new Map<string, RegExp>();

/** The pattern for a kind: the override (a regex source from the settings) or the built-in one. */
export function landmarkPattern(kind: LandmarkKind, overrides: Partial<Record<LandmarkKind, string>> = {}): RegExp {
  const source = overrides[kind];
  if (!source) return LANDMARK_PATTERNS[kind];
  let re = compiled.get(source);
  if (!re) compiled.set(source, (re = new RegExp(source, 'u')));
  return re;
}

export function findLandmarks(text: string, overrides: Partial<Record<LandmarkKind, string>> = {}): Landmarks {
  const patterns = Object.fromEntries(LANDMARK_KINDS.map((kind) => [kind, landmarkPattern(kind, overrides)])) as Record<LandmarkKind, RegExp>;
  const found: Partial<Record<LandmarkKind, number[]>> = {};
  let remaining = LANDMARK_KINDS.length;
  let lineNumber = 0;
  let start = 0;
  while (start < text.length && remaining > 0) {
    const end = text.indexOf('\n', start);
    const line = text.slice(start, end === -1 ? text.length : end);
    lineNumber++;
    for (const kind of LANDMARK_KINDS) {
      const list = (found[kind] ??= []);
      if (list.length >= LANDMARKS_PER_KIND || !patterns[kind].test(line)) continue;
      list.push(lineNumber);
      if (list.length === LANDMARKS_PER_KIND) remaining--;
    }
    if (end === -1) break;
    start = end + 1;
  }
  const lines: Partial<Record<LandmarkKind, number[]>> = {};
  for (const kind of LANDMARK_KINDS) if (found[kind]?.length) lines[kind] = found[kind];
  const tail = text.slice(-4096).split('\n').slice(-EXIT_CODE_TAIL_LINES).reverse();
  for (const line of tail) {
    const match = EXIT_CODE.exec(line);
    if (match) return { exitCode: Number(match[1]), lines };
  }
  return { lines };
}

/** The stub's landmarks line, or undefined when there are none. */
export function landmarksLine(landmarks: Landmarks): string | undefined {
  const parts: string[] = [];
  if (landmarks.exitCode !== undefined) parts.push(`exit code ${landmarks.exitCode}`);
  for (const kind of LANDMARK_KINDS) {
    const lines = landmarks.lines[kind];
    if (lines?.length) parts.push(`${kind === 'trace' ? 'stack trace' : kind} at line ${lines.join(', ')}`);
  }
  return parts.length ? `Landmarks: ${parts.join('; ')}. Jump there with peek_value {"landmark":"error"} (or failure, warning, trace).` : undefined;
}
