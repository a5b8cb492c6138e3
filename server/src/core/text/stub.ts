/**
 * The stub the model sees in place of a retained result. A pure function of the result (as one
 * scan of it) and the preview settings, so the retain as it happens and every replay produce the same bytes,
 * whether the result was held in memory or streamed.
 */
import type { Exit, PreviewSettings } from '../../../../shared/events';
import { gutterLine, omission, peekHint, readLine, readRest, stubHeader } from '../../../../shared/stubText';
import { cutToBytes, withCutMark } from './bytes';
import { landmarksLine } from './landmarks';
import { type LineHead, type ScanResult, scanText } from './scan';

export type { PreviewSettings };

export const STUB_MAX_BYTES = 2048;
/** Room for the preview lines; the header, landmarks, omission line and hint take the rest. */
const PREVIEW_BUDGET_BYTES = 1100;
const TOOL_NAME_MAX_BYTES = 64;
/** The range the peek hint offers: one peek's most lines. */
const PEEK_MAX_LINES = 400;

export interface StubInput {
  valueId: string;
  tool: string;
  isError?: boolean | undefined;
  /** How the command ended, when the result is a command's. */
  exit?: Exit | undefined;
}

/** The stub-shaping part of the settings, as recorded with each retained value. */
export function previewOf(settings: PreviewSettings): PreviewSettings {
  const { previewHeadLines, previewTailLines, landmarkPatterns, peekTool, style, firstLine } = settings;
  return {
    previewHeadLines,
    previewTailLines,
    ...(landmarkPatterns && Object.keys(landmarkPatterns).length ? { landmarkPatterns } : {}),
    ...(peekTool ? { peekTool } : {}),
    ...(style ? { style } : {}),
    ...(firstLine !== undefined && firstLine !== 1 ? { firstLine } : {}),
  };
}

/** The stub of a result held in memory. */
export function stubFor(input: StubInput & { text: string }, preview: PreviewSettings): string {
  return stubOf(
    input,
    scanText(input.text, preview.previewHeadLines, preview.previewTailLines, preview.landmarkPatterns),
    preview,
  );
}

/**
 * A preview line cut to its share of the budget, marked when cut; a line whose mark would be
 * longer than what it cuts is shown whole instead ("[line cut: 9 more bytes]" saved nothing).
 */
function shownLine(line: LineHead, perLine: number): string {
  const { kept } = cutToBytes(line.text, perLine);
  const cut = line.bytes - Buffer.byteLength(kept);
  const marked = withCutMark(kept, cut);
  const whole = Buffer.byteLength(line.text) === line.bytes;
  return whole && Buffer.byteLength(marked) >= line.bytes ? line.text : marked;
}

/** The stub of a scanned result. */
export function stubOf(input: StubInput, scan: Omit<ScanResult, 'tokens'>, preview: PreviewSettings): string {
  const { valueId } = input;
  const { bytes, lines } = scan;
  const tool = cutToBytes(input.tool.replace(/[\r\n]/g, ' '), TOOL_NAME_MAX_BYTES).kept;
  const header = stubHeader(valueId, tool, input.isError, bytes, lines, input.exit);
  if (preview.style === 'read') return readStub(valueId, header, scan, preview);
  const out: string[] = [header];

  const head = Math.min(preview.previewHeadLines, lines);
  const tail = Math.min(preview.previewTailLines, lines - head);
  if (head + tail > 0) {
    // Each shown line gets an equal share of the budget, minus its gutter and cut mark.
    const perLine = Math.max(16, Math.floor(PREVIEW_BUDGET_BYTES / (head + tail)) - 40);
    const shown = (line: LineHead) => shownLine(line, perLine);
    for (const [i, line] of scan.head.slice(0, head).entries()) out.push(gutterLine(i + 1, shown(line)));
    const hidden = lines - head - tail;
    if (hidden > 0) out.push(omission(hidden, head + 1, lines - tail));
    const firstTail = lines - tail + 1;
    for (const [i, line] of scan.tail.slice(scan.tail.length - tail).entries())
      out.push(gutterLine(firstTail + i, shown(line)));
  }

  const landmarks = landmarksLine(scan.landmarks, preview.peekTool);
  if (landmarks) out.push(landmarks);
  out.push(peekHint(valueId, PEEK_MAX_LINES, preview.peekTool));
  return out.join('\n');
}

/**
 * A stub for a file read that the agent numbers itself (Claude Code's Read numbers every line of
 * what it gets, `N<tab>line`, from a start line): written in that numbering, so every number the
 * model sees is the file's own. The header is line `firstLine - 1` (0 for a whole file: no file
 * has a line 0), the head follows under its own numbers, and one last line says what is left out
 * and how to read it; no tail (its numbers would not follow on) and no landmarks (a file's code).
 */
function readStub(valueId: string, header: string, scan: Omit<ScanResult, 'tokens'>, preview: PreviewSettings): string {
  const first = preview.firstLine ?? 1;
  const head = Math.min(preview.previewHeadLines, scan.lines);
  const perLine = head > 0 ? Math.max(16, Math.floor(PREVIEW_BUDGET_BYTES / head) - 40) : 0;
  // The agent drops a line's trailing carriage return when it numbers it; so does the stub.
  const out = [readLine(first - 1, header)];
  for (const [i, line] of scan.head.slice(0, head).entries())
    out.push(readLine(first + i, shownLine(line, perLine).replace(/\r$/, '')));
  if (head < scan.lines)
    out.push(readLine(first + head, readRest(valueId, head + 1, scan.lines, first, PEEK_MAX_LINES, preview.peekTool)));
  else out.push(readLine(first + head, peekHint(valueId, PEEK_MAX_LINES, preview.peekTool)));
  return out.join('\n');
}
