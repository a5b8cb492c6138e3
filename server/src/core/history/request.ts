/**
 * The whole request a model call sent, rebuilt from a run: its messages (the replay of the
 * events before its cut), and, where the run records them (an import of a file that keeps its
 * agent's request records), the system prompt and tools of its request_shape, the request's
 * other fields and where it marked its cache breakpoints. Pure: events in, request out.
 */

import { FORMATS } from '../../../../shared/agents';
import type { RequestShapeEvent, TranscriptEvent } from '../../../../shared/events';
import type { RequestParts } from '../../../../shared/protocol';
import { modelCallEvent } from './modelCalls';

/** The recorded parts of model call `modelCall`'s request: its shape, its fields, its cache marks. */
export function requestParts(events: readonly TranscriptEvent[], modelCall: number): RequestParts {
  const call = modelCallEvent(events, modelCall);
  const first = events[0];
  const source = first?.type === 'run_started' ? first.source : undefined;
  const shape = call?.shape ? shapeOf(events, call.shape) : undefined;
  const { betas, ...fields } = call?.fields ?? {};
  return {
    ...(shape?.system !== undefined ? { system: shape.system } : {}),
    ...(shape?.tools !== undefined ? { tools: shape.tools } : {}),
    fields,
    headers: Array.isArray(betas) ? { 'anthropic-beta': betas.map(String).join(',') } : {},
    cacheControl: call?.cacheControl ?? [],
    ...(call?.rebuilt ? { rebuilt: call.rebuilt } : {}),
    notRecorded: source ? FORMATS[source.format].notRecorded : [],
  };
}

/** The request_shape event with this hash. */
export function shapeOf(events: readonly TranscriptEvent[], hash: string): RequestShapeEvent | undefined {
  for (const event of events) if (event.type === 'request_shape' && event.hash === hash) return event;
  return undefined;
}

/**
 * An Anthropic Messages request body: the recorded fields, system and tools, then the messages,
 * with the recorded cache marks put back where they were (a path the body does not have is
 * left alone).
 */
export function anthropicBody(parts: RequestParts, messages: readonly unknown[]): Record<string, unknown> {
  const body: Record<string, unknown> = {
    ...parts.fields,
    ...(parts.system !== undefined ? { system: structuredClone(parts.system) } : {}),
    ...(parts.tools !== undefined ? { tools: structuredClone(parts.tools) } : {}),
    messages: structuredClone(messages),
  };
  for (const mark of parts.cacheControl) {
    let at: unknown = body;
    for (const step of mark.path) at = at && typeof at === 'object' ? (at as Record<string, unknown>)[step] : undefined;
    if (at && typeof at === 'object' && !Array.isArray(at)) (at as Record<string, unknown>).cache_control = mark.value;
  }
  return body;
}

/** Events that are not items of a request (markers and the run's start). */
const NOT_SENT = new Set(['run_started', 'model_call', 'request_shape', 'turn_ended', 'compaction']);

/**
 * The input of the request a model call cut at `cut`, as the agent sent it, when every event
 * since the last compaction carries the items it was made from (a Codex rollout); else undefined.
 */
export function wireInput(events: readonly TranscriptEvent[], cut: number): unknown[] | undefined {
  let start = 0;
  for (let i = 0; i < cut; i++) if (events[i]!.type === 'compaction') start = i + 1;
  const items: unknown[] = [];
  for (let i = start; i < cut; i++) {
    const event = events[i]!;
    if (event.wire) items.push(...event.wire);
    else if (!NOT_SENT.has(event.type) && !isContinuation(events, i)) return undefined;
  }
  return items;
}

/** An assistant event that continues the response before it (its items are with that one's). */
function isContinuation(events: readonly TranscriptEvent[], i: number): boolean {
  const event = events[i]!;
  const before = events[i - 1];
  return (
    event.type === 'assistant' &&
    before?.type === 'assistant' &&
    event.response !== undefined &&
    event.response === before.response
  );
}
