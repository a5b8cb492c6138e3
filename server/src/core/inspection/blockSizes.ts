/**
 * What a block of a request weighs, in bytes and estimated tokens: the measure the outline's
 * figures and the usage answer both take. A result sent in full is measured once per event.
 */

import type { ToolCallFinishedEvent, TranscriptEvent } from '../../../../shared/events';
import type { Block } from '../../../../shared/history';
import { utf8Bytes } from '../text/bytes';
import { TOKEN_SAMPLE_CHARS } from '../text/sizes';
import { bodySizes, countTokens } from '../text/tokens';

export function estimateTokens(json: string): number {
  if (json.length <= TOKEN_SAMPLE_CHARS) return countTokens(json);
  const sample = json.slice(0, TOKEN_SAMPLE_CHARS);
  return Math.round((countTokens(sample) * json.length) / sample.length);
}

/** A result's full body as it would be sent, by event: from the event (a result kept in a value), or measured once. */
const fullBodies = new WeakMap<TranscriptEvent, { jsonBytes: number; tokens: number }>();

function fullBody(event: ToolCallFinishedEvent): { jsonBytes: number; tokens: number } {
  if (event.result === undefined)
    return {
      jsonBytes: event.jsonBytes ?? (event.bytes ?? 0) + 2,
      tokens: event.tokens ?? Math.ceil((event.bytes ?? 0) / 4),
    };
  let sizes = fullBodies.get(event);
  if (!sizes) {
    sizes = bodySizes(event.result);
    fullBodies.set(event, sizes);
  }
  return sizes;
}

export function blockSizes(block: Block): { bytes: number; tokens: number } {
  const json = JSON.stringify(block);
  return { bytes: utf8Bytes(json), tokens: estimateTokens(json) };
}

/** A tool_result block carrying the event's full result: the block around it, plus the body's known sizes. */
export function fullResultSizes(
  block: Extract<Block, { type: 'tool_result' }>,
  event: ToolCallFinishedEvent,
): { bytes: number; tokens: number } {
  const shell = JSON.stringify({ ...block, content: '' });
  const body = fullBody(event);
  return { bytes: utf8Bytes(shell) - 2 + body.jsonBytes, tokens: countTokens(shell) + body.tokens };
}
