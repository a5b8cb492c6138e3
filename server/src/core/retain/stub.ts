/**
 * The stub the model sees in place of a retained result. A pure function of the result (as one
 * scan of it) and the preview settings, so the live turn and every replay produce the same bytes,
 * whether the result was held in memory or streamed.
 */
import type { PreviewSettings } from '../../../../shared/events';
import { gutterLine, omission, peekHint, stubHeader } from '../../../../shared/stubText';
import { cutToBytes, withCutMark } from '../text';
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
}

/** The stub-shaping part of the settings, as recorded with each retained value. */
export function previewOf(settings: PreviewSettings): PreviewSettings {
  const { previewHeadLines, previewTailLines, landmarkPatterns, peekTool } = settings;
  return {
    previewHeadLines,
    previewTailLines,
    ...(landmarkPatterns && Object.keys(landmarkPatterns).length ? { landmarkPatterns } : {}),
    ...(peekTool ? { peekTool } : {}),
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

/** The stub of a scanned result. */
export function stubOf(input: StubInput, scan: Omit<ScanResult, 'tokens'>, preview: PreviewSettings): string {
  const { valueId } = input;
  const { bytes, lines } = scan;
  const tool = cutToBytes(input.tool.replace(/[\r\n]/g, ' '), TOOL_NAME_MAX_BYTES).kept;
  const out: string[] = [stubHeader(valueId, tool, input.isError, bytes, lines)];

  const head = Math.min(preview.previewHeadLines, lines);
  const tail = Math.min(preview.previewTailLines, lines - head);
  if (head + tail > 0) {
    // Each shown line gets an equal share of the budget, minus its gutter and cut mark.
    const perLine = Math.max(16, Math.floor(PREVIEW_BUDGET_BYTES / (head + tail)) - 40);
    const shown = (line: LineHead) => {
      const { kept } = cutToBytes(line.text, perLine);
      return withCutMark(kept, line.bytes - Buffer.byteLength(kept));
    };
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
