/**
 * Figures on the provider's basis. Where an agent's file keeps the provider's own count of a
 * model call, that count is the call's truth for the run as sent; any other form of the run (with
 * Retained Outputs, every result in full, a history policy) is estimated on the same basis: its
 * estimate scaled by how far the estimate of the run as sent is over the count, plus what that
 * estimate falls short of it (the system prompt and tools no file holds).
 */
import type { TranscriptEvent } from '../../../../shared/events';

/** A form's estimate of one call, set on the provider's `counted` total. */
export function onCounted(estimate: number, asSent: number, counted: number): number {
  const scale = asSent > counted ? counted / Math.max(1, asSent) : 1;
  return Math.round(estimate * scale) + Math.max(0, counted - asSent);
}

/** Per model call (from each cut to the next), the provider's count of its input, where the file keeps one. */
export function countedInputs(events: readonly TranscriptEvent[], cuts: readonly number[]): (number | undefined)[] {
  return cuts.map((cut, k) => {
    const next = cuts[k + 1] ?? events.length;
    for (let e = cut; e < next; e++) {
      const event = events[e];
      if (event?.type === 'assistant' && event.usage)
        return event.usage.input + event.usage.cacheRead + event.usage.cacheWrite;
    }
    return undefined;
  });
}
