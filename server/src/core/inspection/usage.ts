/**
 * Where each model call's tokens go, and what they cost with prompt caching. Pure: events in,
 * figures out. Each request's blocks are counted once per event as prefix sums by part (as the
 * outline counts them, rows.ts), so a run of 10,000 events is counted in one pass.
 *
 * Caching is simulated as the Messages API bills it: a request's cached prefix is the longest
 * run of it equal to the previous request (the system prompt and tools first, then messages);
 * those tokens are cache reads, the rest of the request is written to the cache. The prefix
 * breaks where the requests first differ: at a compaction (a new history), at a changed system
 * prompt or tool list, or where a history policy turned an earlier body into a reference.
 */
import type { ModelCallEvent, ToolCallFinishedEvent, TranscriptEvent } from '../../../../shared/events';
import type { Block, Message, View } from '../../../../shared/history';
import { PRICES_AS_OF, type Price, priceOf } from '../../../../shared/pricing';
import type { HistoryPolicy } from '../../../../shared/settings';
import { type ModelCallUsage, type Parts, type RunUsage, USAGE_PARTS, type UsagePart } from '../../../../shared/usage';
import { responseStarts } from '../history/modelCalls';
import { type BlockOwner, replayStructured, type Segment } from '../history/replay';
import { TOKENIZER } from '../text/tokens';
import { Turns } from '../turns';
import {
  blockSizes,
  estimateTokens,
  fullResultSizes,
  historyStart,
  keptFrom,
  olderSegments,
  roundStartsOf,
  segmentsOf,
} from './rows';

const zero = (): Parts => Object.fromEntries(USAGE_PARTS.map((p) => [p, 0])) as Parts;

/** Which part a block of a request is. */
function partOf(block: Block, message: Message, event: TranscriptEvent | undefined, whole: boolean): UsagePart {
  if (message.role === 'system') return 'system';
  switch (block.type) {
    case 'thinking':
      return 'thinking';
    case 'tool_use':
      return 'toolInputs';
    case 'tool_result': {
      if (whole || event?.type !== 'tool_call_finished') return 'toolResults';
      const text = typeof block.content === 'string' ? block.content : '';
      if (event.stub !== undefined && text === event.stub) return 'stubs';
      return text.startsWith('[retained #') ? 'references' : 'toolResults';
    }
    case 'text':
      if (message.role === 'assistant') return 'assistant';
      return event?.type === 'user' && event.injected ? 'system' : 'user';
    default:
      return 'user';
  }
}

/** Per event, its tokens by part (index i: the blocks event i owns), over the given histories. */
async function eventParts(
  events: readonly TranscriptEvent[],
  segments: readonly Segment[],
  turns: Turns,
  /** Every result in full, whatever the request sent in its place (the baseline without Retained Outputs). */
  full = false,
): Promise<{ parts: Parts[]; bytes: Float64Array }> {
  const parts = events.map(() => zero());
  const bytes = new Float64Array(events.length);
  for (const { messages, owners } of segments) {
    for (const [i, message] of messages.entries()) {
      await turns.maybe();
      message.content.forEach((block, j) => {
        const owner: BlockOwner = owners[i]![j]!;
        const event = events[owner.event];
        const whole =
          block.type === 'tool_result' &&
          !owner.synthetic &&
          event?.type === 'tool_call_finished' &&
          (full || block.content === event.result);
        const size = whole ? fullResultSizes(block, event as ToolCallFinishedEvent) : blockSizes(block);
        parts[owner.event]![partOf(block, message, event, whole)] += size.tokens;
        bytes[owner.event]! += size.bytes;
      });
    }
  }
  return { parts, bytes };
}

/** Prefix sums of per-event parts: index i, the events before i. */
function prefix(parts: readonly Parts[]): Parts[] {
  const out = [zero()];
  for (const p of parts) {
    const last = out[out.length - 1]!;
    out.push(Object.fromEntries(USAGE_PARTS.map((k) => [k, last[k] + p[k]])) as Parts);
  }
  return out;
}

const between = (sums: readonly Parts[], from: number, to: number): Parts =>
  Object.fromEntries(USAGE_PARTS.map((k) => [k, to > from ? sums[to]![k] - sums[from]![k] : 0])) as Parts;
const add = (a: Parts, b: Parts): Parts => Object.fromEntries(USAGE_PARTS.map((k) => [k, a[k] + b[k]])) as Parts;
const sumOf = (p: Parts): number => USAGE_PARTS.reduce((n, k) => n + p[k], 0);

/** The system prompt and tools a request_shape sent, by hash. */
function shapeParts(events: readonly TranscriptEvent[]): Map<string, Parts> {
  const shapes = new Map<string, Parts>();
  for (const e of events) {
    if (e.type !== 'request_shape' || shapes.has(e.hash)) continue;
    shapes.set(e.hash, {
      ...zero(),
      systemPrompt: e.system === undefined ? 0 : estimateTokens(JSON.stringify(e.system)),
      tools: e.tools?.length ? estimateTokens(JSON.stringify(e.tools)) : 0,
    });
  }
  return shapes;
}

export interface UsageOptions {
  view?: View;
  policy?: HistoryPolicy | undefined;
  prices?: Readonly<Record<string, Price>>;
  /** Every result in full: the same run without Retained Outputs (no policy applies). */
  full?: boolean;
}

export async function usageOf(
  events: readonly TranscriptEvent[],
  existingValues: ReadonlySet<string>,
  options: UsageOptions = {},
  turns = new Turns(),
): Promise<RunUsage> {
  const { view, full = false } = options;
  const policy = full ? undefined : options.policy;
  const replay = replayStructured({ events, existingValues, ...(view ? { view } : {}) });
  const sent = await eventParts(events, segmentsOf(replay), turns, full);
  const sentSums = prefix(sent.parts);
  const older = policy
    ? await eventParts(events, olderSegments(replay, events, existingValues, policy), turns)
    : undefined;
  const olderSums = older ? prefix(older.parts) : undefined;
  const roundStarts = roundStartsOf(events);
  const compactions = events.flatMap((e, i) => (e.type === 'compaction' ? [i] : []));
  const shapes = shapeParts(events);
  const first = events[0];
  const model = first?.type === 'run_started' ? first.model : undefined;
  const price = priceOf(model, options.prices);

  const cuts = [...responseStarts(events), events.length];
  /** Where request k's events switch from the policy's form to the form sent (its start when no policy). */
  const keptAt = (cut: number, start: number) =>
    policy ? Math.max(start, keptFrom(roundStarts, cut, policy.keepRounds)) : start;
  const requestParts = (start: number, from: number, to: number): Parts =>
    olderSums
      ? add(between(olderSums, start, Math.min(from, to)), between(sentSums, from, to))
      : between(sentSums, start, to);

  const modelCalls: ModelCallUsage[] = [];
  let previousCount: number | undefined;
  const unrecorded: number[] = [];
  let previous: { start: number; from: number; cut: number; shape: string | undefined; total: number } | undefined;
  cuts.forEach((cut, k) => {
    const start = historyStart(compactions, cut);
    const from = keptAt(cut, start);
    const call = events[cut]?.type === 'model_call' ? (events[cut] as ModelCallEvent) : undefined;
    const shape = call?.shape;
    const parts = add(requestParts(start, from, cut), shapes.get(shape ?? '') ?? zero());
    const total = sumOf(parts);
    // The prefix this request shares with the previous one.
    let read = 0;
    let breakAt: number | undefined;
    let breakReason: ModelCallUsage['breakReason'];
    if (!previous) breakReason = 'first';
    else if (previous.shape !== shape) {
      breakAt = start;
      breakReason = 'shape';
    } else {
      const shapeTokens = sumOf(shapes.get(shape ?? '') ?? zero());
      if (previous.start !== start) {
        read = shapeTokens;
        breakAt = start;
        breakReason = 'compaction';
      } else {
        // Events the policy turned into references since the previous request: the first whose form changed.
        let end = previous.cut;
        if (older)
          for (let e = previous.from; e < Math.min(from, previous.cut); e++)
            if (older.bytes[e] !== sent.bytes[e]) {
              end = e;
              breakAt = e;
              breakReason = 'reference';
              break;
            }
        read = shapeTokens + sumOf(requestParts(start, from, end));
      }
    }
    const write = Math.max(0, total - read);
    // The response this call produced: its assistant events, up to the next call.
    const next = cuts[k + 1] ?? events.length;
    let output = 0;
    let provider: ModelCallUsage['provider'];
    for (let e = cut; e < next; e++) {
      const event = events[e];
      if (event?.type !== 'assistant') continue;
      if (event.usage && !provider) {
        const counted = event.usage.input + event.usage.cacheRead + event.usage.cacheWrite;
        const added = previousCount !== undefined && breakReason !== 'compaction' ? counted - previousCount : undefined;
        const estimated = previous ? total - previous.total : undefined;
        provider = {
          ...event.usage,
          ...(added && added > 0 && estimated !== undefined ? { error: (estimated - added) / added } : {}),
        };
        unrecorded.push(counted - total);
      }
      output += estimateTokens(
        JSON.stringify({ text: event.text ?? '', thinking: event.thinking ?? [], toolCalls: event.toolCalls ?? [] }),
      );
    }
    const usd = price
      ? (read * price.cacheRead + write * price.cacheWrite + output * price.output) / 1_000_000
      : undefined;
    modelCalls.push({
      modelCall: k + 1,
      cut,
      parts,
      total,
      cache: { read, write },
      ...(breakAt !== undefined ? { breakAt } : {}),
      ...(breakReason ? { breakReason } : {}),
      output,
      ...(usd !== undefined ? { usd } : {}),
      ...(provider ? { provider } : {}),
    });
    previous = { start, from, cut, shape, total };
    previousCount = provider ? provider.input + provider.cacheRead + provider.cacheWrite : undefined;
  });
  // The calls made: the last entry is the next one, not made yet.
  const made = modelCalls.slice(0, -1);
  const totals = {
    parts: made.reduce((sum, call) => add(sum, call.parts), zero()),
    total: made.reduce((n, c) => n + c.total, 0),
    cache: { read: made.reduce((n, c) => n + c.cache.read, 0), write: made.reduce((n, c) => n + c.cache.write, 0) },
    output: made.reduce((n, c) => n + c.output, 0),
    ...(price ? { usd: made.reduce((n, c) => n + (c.usd ?? 0), 0) } : {}),
  };
  const compacted = compactions.map((at, i) => {
    const from = i === 0 ? 0 : compactions[i - 1]!;
    const values = events
      .slice(from, at)
      .flatMap((e) =>
        e.type === 'tool_call_finished' && e.valueId && existingValues.has(e.valueId)
          ? [{ valueId: e.valueId, tool: e.tool, bytes: e.bytes ?? 0 }]
          : [],
      );
    return {
      at,
      modelCall: cuts.findIndex((cut) => cut > at) + 1,
      dropped: { from, events: at - from, tokens: sumOf(between(sentSums, from, at)) },
      summaryTokens: sumOf(between(sentSums, at, at + 1)),
      values,
    };
  });
  const errors = made
    .flatMap((c) => (c.provider?.error !== undefined ? [Math.abs(c.provider.error)] : []))
    .sort((a, b) => a - b);
  unrecorded.sort((a, b) => a - b);
  return {
    modelCalls,
    totals,
    compactions: compacted,
    ...(errors.length
      ? {
          providerError: {
            calls: errors.length,
            median: errors[errors.length >> 1]!,
            max: errors[errors.length - 1]!,
            unrecorded: unrecorded[unrecorded.length >> 1]!,
          },
        }
      : {}),
    ...(model ? { model } : {}),
    ...(price ? { price: { ...price, asOf: PRICES_AS_OF } } : {}),
    tokenizer: `${TOKENIZER}; per block, bodies over 64 KiB scaled from a sample`,
  };
}
