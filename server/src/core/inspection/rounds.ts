/**
 * The shape of a run's history that the figures walk: its segments (one per compaction, then
 * the live one), where rounds start, which rounds a policy keeps intact, where a model call's
 * history begins. Both the outline and the usage answer read a run through these.
 */

import type { TranscriptEvent } from '../../../../shared/events';
import type { HistoryPolicy } from '../../../../shared/settings';
import { applyHistoryPolicy, resultInfos } from '../history/policy';
import type { Segment, StructuredReplay } from '../history/replay';

export function segmentsOf(replay: StructuredReplay): Segment[] {
  return [...replay.compacted, { messages: replay.messages, owners: replay.owners }];
}

/** The histories with every result the policy would ever turn into a reference turned (no round kept): what older rounds are sent as. */
export function olderSegments(
  replay: StructuredReplay,
  events: readonly TranscriptEvent[],
  existingValues: ReadonlySet<string>,
  policy: HistoryPolicy,
): Segment[] {
  const infos = resultInfos(events, existingValues);
  return segmentsOf(replay).map((segment) => ({
    ...segment,
    messages: applyHistoryPolicy(segment.messages, segment.owners, infos, { ...policy, keepRounds: 0 }).messages,
  }));
}

/** Where the newest `keepRounds` rounds before `cut` begin (the policy leaves them intact). */
export function keptFrom(roundStarts: readonly number[], cut: number, keepRounds: number): number {
  // How many rounds start before `cut`: a binary search, as this runs once per model call.
  let lo = 0;
  let hi = roundStarts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (roundStarts[mid]! < cut) lo = mid + 1;
    else hi = mid;
  }
  if (lo <= keepRounds) return 0;
  return keepRounds === 0 ? cut : roundStarts[lo - keepRounds]!;
}

/** The ids of every call an assistant event made. */
export function calledIds(events: readonly TranscriptEvent[]): Set<string> {
  return new Set(events.flatMap((e) => (e.type === 'assistant' ? (e.toolCalls ?? []).map((c) => c.id) : [])));
}

/** Where rounds start: at an assistant event with calls, or at a result no call recorded (replay gives it its own call). */
export function roundStartsOf(events: readonly TranscriptEvent[], called = calledIds(events)): number[] {
  return events.flatMap((e, i) =>
    (e.type === 'assistant' && e.toolCalls?.length) || (e.type === 'tool_call_finished' && !called.has(e.callId))
      ? [i]
      : [],
  );
}

/** The start of the history the model call at `cut` sent: the last compaction before it, else the run's start. */
export function historyStart(compactions: readonly number[], cut: number): number {
  let start = 0;
  for (const at of compactions) if (at < cut) start = at;
  return start;
}
