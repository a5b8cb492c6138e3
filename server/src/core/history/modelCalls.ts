/**
 * Model calls in a run's events: where each one cut the history it sent, and the model_call
 * event that records it where the run has them (an import knows its agent's calls).
 */
import type { ModelCallEvent, TranscriptEvent } from '../../../../shared/events';

/**
 * Where each model call cut the history: the index of each `model_call` event where the run
 * records them (an import knows its agent's calls), else of the first event of each response
 * (model call k produced response k; events sharing a response id, or a copy a compaction kept
 * verbatim, are one response).
 */
export function responseStarts(events: readonly TranscriptEvent[]): number[] {
  // Plain loops: this runs over every event of a run on each open.
  const marked: number[] = [];
  for (let i = 0; i < events.length; i++) if (events[i]!.type === 'model_call') marked.push(i);
  if (marked.length) return marked;
  const starts: number[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    if (e.type !== 'assistant') continue;
    if (e.response !== undefined) {
      if (seen.has(e.response)) continue;
      seen.add(e.response);
    }
    starts.push(i);
  }
  return starts;
}

/** The event index at which model call `modelCall` (1-based) cut the history. */
export function cutOf(events: readonly TranscriptEvent[], modelCall: number): number {
  const starts = responseStarts(events);
  return modelCall >= 1 && modelCall <= starts.length ? starts[modelCall - 1]! : events.length;
}

/** The model_call event that model call `modelCall` (1-based) is, if the run records them. */
export function modelCallEvent(events: readonly TranscriptEvent[], modelCall: number): ModelCallEvent | undefined {
  let seen = 0;
  for (const event of events) if (event.type === 'model_call' && ++seen === modelCall) return event;
  return undefined;
}
