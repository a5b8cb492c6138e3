/**
 * The stub the model sees in place of a retained result. A pure function of the result and
 * the preview settings, so the live turn and every replay produce the same bytes.
 */

import type { LandmarkKind } from '../../../../shared/settings';
import { gutterLine, omission, peekHint, stubHeader } from '../../../../shared/stubText';
import { countLines, cutToBytes, headLines, markedCut, tailLines, utf8Bytes } from '../text';
import { findLandmarks, landmarksLine } from './landmarks';

export const STUB_MAX_BYTES = 2048;
/** Room for the preview lines; the header, landmarks, omission line and hint take the rest. */
const PREVIEW_BUDGET_BYTES = 1100;
const TOOL_NAME_MAX_BYTES = 64;
/** The range the peek hint offers: one peek's most lines. */
const PEEK_MAX_LINES = 400;

export interface StubInput {
  valueId: string;
  tool: string;
  text: string;
  isError?: boolean;
}

export interface PreviewSettings {
  previewHeadLines: number;
  previewTailLines: number;
  /** Landmark pattern overrides in force when the stub was made (absent: the built-in ones). */
  landmarkPatterns?: Partial<Record<LandmarkKind, string>>;
}

/** The stub-shaping part of the settings, as recorded with each retained value. */
export function previewOf(settings: PreviewSettings): PreviewSettings {
  const { previewHeadLines, previewTailLines, landmarkPatterns } = settings;
  return {
    previewHeadLines,
    previewTailLines,
    ...(landmarkPatterns && Object.keys(landmarkPatterns).length ? { landmarkPatterns } : {}),
  };
}

export function stubFor(input: StubInput, preview: PreviewSettings): string {
  const { valueId, text } = input;
  const bytes = utf8Bytes(text);
  const lines = countLines(text);
  const tool = cutToBytes(input.tool.replace(/[\r\n]/g, ' '), TOOL_NAME_MAX_BYTES).kept;
  const out: string[] = [stubHeader(valueId, tool, input.isError, bytes, lines)];

  const head = Math.min(preview.previewHeadLines, lines);
  const tail = Math.min(preview.previewTailLines, lines - head);
  if (head + tail > 0) {
    // Each shown line gets an equal share of the budget, minus its gutter and cut mark.
    const perLine = Math.max(16, Math.floor(PREVIEW_BUDGET_BYTES / (head + tail)) - 40);
    for (const [i, line] of headLines(text, head).entries()) out.push(gutterLine(i + 1, markedCut(line, perLine)));
    const hidden = lines - head - tail;
    if (hidden > 0) out.push(omission(hidden, head + 1, lines - tail));
    const firstTail = lines - tail + 1;
    for (const [i, line] of tailLines(text, tail).entries())
      out.push(gutterLine(firstTail + i, markedCut(line, perLine)));
  }

  const landmarks = landmarksLine(findLandmarks(text, preview.landmarkPatterns));
  if (landmarks) out.push(landmarks);
  out.push(peekHint(valueId, PEEK_MAX_LINES));
  return out.join('\n');
}
