/**
 * The tokens of results kept in values whose events have none: a streamed result (a command's
 * output through the CLI, the MCP server, the hook) is recorded without a count, as counting
 * loads the tokenizer's tables, tens of MB a command line should not take for one figure. The
 * readers that show figures count it here, from the value's first characters, once per content.
 */
import type { TranscriptEvent } from '../../../../shared/events';
import type { RunStore } from '../store/runStore';
import { TOKEN_SAMPLE_CHARS } from '../text/sizes';
import { tokensOf } from '../text/tokens';

/** Counts by value content (its sha256): the same output in many runs is counted once. */
const counted = new Map<string, number>();
const COUNTED_MAX = 10_000;

/** Gives each retained result of `events` without a count its count (the events are the caller's copy). */
export async function countValueTokens(
  store: RunStore,
  runId: string,
  events: readonly TranscriptEvent[],
): Promise<void> {
  for (const event of events) {
    if (event.type !== 'tool_call_finished' || event.tokens !== undefined || event.result !== undefined) continue;
    if (!event.valueId || event.bytes === undefined) continue;
    const key = event.sha256 ?? `${runId}\u0000${event.valueId}`;
    let tokens = counted.get(key);
    if (tokens === undefined) {
      // A sample's characters take at most 4 bytes each.
      const head = await store.values.readHead(runId, event.valueId, TOKEN_SAMPLE_CHARS * 4).catch(() => undefined);
      if (head === undefined) continue;
      const sample = head.slice(0, TOKEN_SAMPLE_CHARS);
      // Whole when the file was read to its end and the sample took all of it.
      const whole = event.bytes <= TOKEN_SAMPLE_CHARS * 4 && sample.length === head.length;
      tokens = tokensOf(sample, event.jsonBytes ?? event.bytes + 2, whole);
      if (counted.size >= COUNTED_MAX) counted.clear();
      counted.set(key, tokens);
    }
    (event as { tokens?: number }).tokens = tokens;
  }
}
