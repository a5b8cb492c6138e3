/**
 * Where each model call's tokens go, and what they cost with prompt caching. Pure: events in,
 * figures out, in two steps: `countUsage` counts each event's tokens by part once (as the outline
 * counts them, rows.ts: the only step that needs the tokenizer, and what the run index keeps),
 * and `usageOf` makes every request's figures from those counts as prefix sums, so a run of
 * 10,000 events is counted in one pass and a cold request for a run counted before counts nothing.
 *
 * Caching is simulated as the Messages API bills it: a request's cached prefix is the longest
 * run of it equal to the previous request (the system prompt and tools first, then messages);
 * those tokens are cache reads, the rest of the request is written to the cache. The prefix
 * breaks where the requests first differ: at a compaction (a new history), at a changed system
 * prompt or tool list, or where a history policy turned an earlier body into a reference.
 */
import type { ModelCallEvent, ToolCallFinishedEvent, TranscriptEvent } from '../../../../shared/events';
import type { Block, Message, View } from '../../../../shared/history';
import { type Counted, costOf, PRICES_AS_OF, type Price, priceOf } from '../../../../shared/pricing';
import type { HistoryPolicy } from '../../../../shared/settings';
import { isHandedIndex, startsWithMarker } from '../../../../shared/stubText';
import { type ModelCallUsage, type Parts, type RunUsage, USAGE_PARTS, type UsagePart } from '../../../../shared/usage';
import { responseStarts } from '../history/modelCalls';
import { type BlockOwner, replayStructured, type Segment } from '../history/replay';
import { TOKENIZER } from '../text/tokens';
import { Yielder } from '../yielder';
import { blockSizes, estimateTokens, fullResultSizes } from './blockSizes';
import { historyStart, keptFrom, olderSegments, roundStartsOf, segmentsOf } from './rounds';

const ZERO = Object.fromEntries(USAGE_PARTS.map((p) => [p, 0])) as Parts;
const zero = (): Parts => ({ ...ZERO });

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
      return startsWithMarker(text) ? 'references' : 'toolResults';
    }
    case 'text':
      if (message.role === 'assistant') return 'assistant';
      return event?.type === 'user' && event.injected ? 'system' : 'user';
    default:
      return 'user';
  }
}

/** Each part's place in the columns below. */
const PART_INDEX = new Map(USAGE_PARTS.map((part, i) => [part, i]));

/**
 * Per event, its tokens by part (column p, row i: part p of the blocks event i owns), over the
 * given histories; a column per part rather than an object per event, as a 10,000-event run
 * would otherwise make 10,000 objects for each pass.
 */
async function eventParts(
  events: readonly TranscriptEvent[],
  segments: readonly Segment[],
  yielder: Yielder,
  /** Every result in full, whatever the request sent in its place (the baseline without Retained Outputs). */
  full = false,
): Promise<{ parts: Float64Array[]; bytes: Float64Array }> {
  const parts = USAGE_PARTS.map(() => new Float64Array(events.length));
  const bytes = new Float64Array(events.length);
  for (const { messages, owners } of segments) {
    for (const [i, message] of messages.entries()) {
      await yielder.maybe();
      message.content.forEach((block, j) => {
        const owner: BlockOwner = owners[i]![j]!;
        const event = events[owner.event];
        const whole =
          block.type === 'tool_result' &&
          !owner.synthetic &&
          event?.type === 'tool_call_finished' &&
          (full || block.content === event.result);
        const size = whole ? fullResultSizes(block, event as ToolCallFinishedEvent) : blockSizes(block);
        parts[PART_INDEX.get(partOf(block, message, event, whole))!]![owner.event]! += size.tokens;
        bytes[owner.event]! += size.bytes;
      });
    }
  }
  return { parts, bytes };
}

/** Prefix sums of each part's column: row i, the events before i. */
function prefix(parts: readonly (ArrayLike<number> & { length: number })[]): Float64Array[] {
  return parts.map((column) => {
    const sums = new Float64Array(column.length + 1);
    for (let i = 0; i < column.length; i++) sums[i + 1] = sums[i]! + column[i]!;
    return sums;
  });
}

const between = (sums: readonly Float64Array[], from: number, to: number): Parts => {
  const out = zero();
  if (to > from)
    USAGE_PARTS.forEach((part, p) => {
      out[part] = sums[p]![to]! - sums[p]![from]!;
    });
  return out;
};
const add = (a: Parts, b: Parts): Parts => {
  const out = zero();
  for (const part of USAGE_PARTS) out[part] = a[part] + b[part];
  return out;
};
const sumOf = (p: Parts): number => USAGE_PARTS.reduce((n, k) => n + p[k], 0);

/**
 * A call's figures on the basis of what its provider counted. The parts split the provider's
 * total: what the estimate of the run as sent falls short of it is the `unrecorded` part (the
 * system prompt and tools a file does not hold); an estimate over it is scaled down to it. The
 * run as sent then is the provider's counts, exactly; another form (a simulation, the baseline)
 * is its own estimate on the same basis: the same unrecorded part (in the cached prefix, as a
 * system prompt is), the provider's output, and its writes at the lifetime the provider's were.
 */
function onProviderBasis(
  estimate: { parts: Parts; total: number; read: number; write: number; output: number },
  provider: Counted,
  { asSentTotal, asSentRead, exact }: { asSentTotal: number; asSentRead: number; exact: boolean },
): Pick<ModelCallUsage, 'parts' | 'total' | 'cache' | 'output' | 'basis'> {
  const counted = provider.input + provider.cacheRead + provider.cacheWrite;
  // As onCounted (basis.ts), part by part.
  const scale = asSentTotal > counted ? counted / Math.max(1, asSentTotal) : 1;
  const unrecorded = Math.max(0, counted - asSentTotal);
  const parts = zero();
  for (const part of USAGE_PARTS) parts[part] = Math.round(estimate.parts[part] * scale);
  parts.unrecorded += unrecorded;
  if (exact) {
    // Rounding's remainder goes to the largest part, so the parts add up to the provider's total.
    const largest = USAGE_PARTS.reduce((a, b) => (parts[b] > parts[a] ? b : a));
    parts[largest] += counted - sumOf(parts);
    return {
      parts,
      total: counted,
      cache: {
        read: provider.cacheRead,
        write: provider.cacheWrite,
        write1h: Math.min(provider.cacheWrite, provider.cacheWrite1h ?? 0),
        uncached: provider.input,
      },
      output: provider.output,
      basis: 'provider',
    };
  }
  // The provider's cache figures, moved by what this form reads and writes more or less than the
  // run as sent would (each simulated alike): a warm cache the provider read stays read.
  const total = sumOf(parts);
  const uncached = Math.min(total, provider.input);
  const moved = provider.cacheRead + scale * (estimate.read - asSentRead);
  const read = Math.max(0, Math.min(total - uncached, Math.round(moved)));
  const write = total - uncached - read;
  const longShare =
    provider.cacheWrite > 0 ? Math.min(provider.cacheWrite, provider.cacheWrite1h ?? 0) / provider.cacheWrite : 0;
  return {
    parts,
    total,
    cache: { read, write, write1h: Math.round(write * longShare), uncached },
    output: provider.output,
    basis: 'estimate',
  };
}

/** The system prompt and tools a request_shape sent, by hash: their tokens. */
function shapeTokens(events: readonly TranscriptEvent[]): Record<string, { systemPrompt: number; tools: number }> {
  // No prototype: a hash is the session file's (`__proto__` is a key like any other).
  const shapes: Record<string, { systemPrompt: number; tools: number }> = Object.create(null);
  for (const e of events) {
    if (e.type !== 'request_shape' || Object.hasOwn(shapes, e.hash)) continue;
    shapes[e.hash] = {
      systemPrompt: e.system === undefined ? 0 : estimateTokens(JSON.stringify(e.system)),
      tools: e.tools?.length ? estimateTokens(JSON.stringify(e.tools)) : 0,
    };
  }
  return shapes;
}

/**
 * What usage counts, before any figure is made of it: each event's tokens by part as sent (and
 * in the policy's older form), each assistant event's output tokens, each request shape's. The
 * only part that needs the tokenizer; the run index keeps it, so a cold `retained/usage` of a
 * run counted before reads it instead of counting again (see Inspection.usage).
 */
export interface UsageCounts {
  sent: { parts: number[][]; bytes: number[] };
  older?: { parts: number[][]; bytes: number[] };
  /** Per event: an assistant event's output tokens, else 0. */
  output: number[];
  shapes: Record<string, { systemPrompt: number; tools: number }>;
}

/** The key of what a usage request counts: its view, its policy, and whether every result is in full. */
export function usageKey(view: View | undefined, policy: HistoryPolicy | undefined, full: boolean): string {
  return `${view}:${policy && !full ? JSON.stringify(policy) : 'none'}:${full ? 'full' : 'sent'}`;
}

export async function countUsage(
  events: readonly TranscriptEvent[],
  existingValues: ReadonlySet<string>,
  options: Pick<UsageOptions, 'view' | 'policy' | 'full'>,
  yielder = new Yielder(),
): Promise<UsageCounts> {
  const { view, full = false } = options;
  const policy = full ? undefined : options.policy;
  const replay = replayStructured({ events, existingValues, ...(view ? { view } : {}) });
  const columns = (pass: { parts: Float64Array[]; bytes: Float64Array }) => ({
    parts: pass.parts.map((column) => Array.from(column)),
    bytes: Array.from(pass.bytes),
  });
  const sent = columns(await eventParts(events, segmentsOf(replay), yielder, full));
  const older = policy
    ? columns(await eventParts(events, olderSegments(replay, events, existingValues, policy), yielder))
    : undefined;
  const output = events.map((event) =>
    event.type === 'assistant'
      ? estimateTokens(
          JSON.stringify({ text: event.text ?? '', thinking: event.thinking ?? [], toolCalls: event.toolCalls ?? [] }),
        )
      : 0,
  );
  return { sent, ...(older ? { older } : {}), output, shapes: shapeTokens(events) };
}

export interface UsageOptions {
  view: View;
  policy?: HistoryPolicy | undefined;
  prices?: Readonly<Record<string, Price>>;
  /** Every result in full: the same run without Retained Outputs (no policy applies). */
  full?: boolean;
}

export async function usageOf(
  events: readonly TranscriptEvent[],
  existingValues: ReadonlySet<string>,
  options: UsageOptions,
  /** What an earlier request counted for the same run, view and policy (the run index's): else counted now. */
  counted?: UsageCounts,
  yielder = new Yielder(),
  /** The same for the run as sent, when `options` ask for another form (else counted now, where the provider counted). */
  countedAsSent?: UsageCounts,
): Promise<RunUsage> {
  const { full = false } = options;
  const policy = full ? undefined : options.policy;
  const counts = counted ?? (await countUsage(events, existingValues, options, yielder));
  // The provider's counts are of the run as sent: the form asked for is either that, or is set on
  // that basis (its unrecorded part, its output), which needs the estimate of the run as sent.
  const asSent = options.view === 'sent' && !full && !policy;
  const providerCounts = events.some((e) => e.type === 'assistant' && e.usage);
  const sentCounts = asSent
    ? counts
    : providerCounts
      ? (countedAsSent ?? (await countUsage(events, existingValues, { view: 'sent' }, yielder)))
      : undefined;
  const asSentSums = sentCounts ? (asSent ? undefined : prefix(sentCounts.sent.parts)) : undefined;
  const sent = counts.sent;
  const sentSums = prefix(sent.parts);
  const older = policy ? counts.older : undefined;
  const olderSums = older ? prefix(older.parts) : undefined;
  const roundStarts = roundStartsOf(events);
  const compactions = events.flatMap((e, i) => (e.type === 'compaction' ? [i] : []));
  const shapes = new Map(
    Object.entries(counts.shapes).map(([hash, tokens]) => [hash, { ...zero(), ...tokens }] as const),
  );
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
  let previous:
    | { start: number; from: number; cut: number; shape: string | undefined; total: number; unrecorded: number }
    | undefined;
  cuts.forEach((cut, k) => {
    const start = historyStart(compactions, cut);
    const from = keptAt(cut, start);
    const call = events[cut]?.type === 'model_call' ? (events[cut] as ModelCallEvent) : undefined;
    // The next call, not made yet, is sent with the system prompt and tools the last one was, and
    // with what the provider counted of them that the file does not hold: the agent sends them again.
    const upcoming = k === cuts.length - 1 && !call;
    const shape = upcoming ? previous?.shape : call?.shape;
    const parts = add(requestParts(start, from, cut), shapes.get(shape ?? '') ?? zero());
    if (upcoming && previous) parts.unrecorded += previous.unrecorded;
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
      const shapeTokens = sumOf(shapes.get(shape ?? '') ?? zero()) + (upcoming ? previous.unrecorded : 0);
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
      output += counts.output[e] ?? 0;
    }
    const estimate = { parts, total, read, write, output };
    const figures = provider
      ? onProviderBasis(estimate, provider, {
          asSentTotal: asSentSums
            ? sumOf(between(asSentSums, start, cut)) + sumOf(shapes.get(shape ?? '') ?? zero())
            : total,
          // What the run as sent read, simulated as this form's read is (no policy: no references).
          asSentRead:
            !previous || previous.shape !== shape
              ? 0
              : sumOf(shapes.get(shape ?? '') ?? zero()) +
                (previous.start !== start ? 0 : sumOf(between(asSentSums ?? sentSums, start, previous.cut))),
          exact: asSent,
        })
      : { ...estimate, cache: { read, write, write1h: 0, uncached: 0 }, basis: 'estimate' as const };
    const usd = price
      ? costOf(
          {
            input: figures.cache.uncached,
            cacheRead: figures.cache.read,
            cacheWrite: figures.cache.write,
            cacheWrite1h: figures.cache.write1h,
            output: figures.output,
          },
          price,
        )
      : undefined;
    modelCalls.push({
      modelCall: k + 1,
      cut,
      parts: figures.parts,
      total: figures.total,
      basis: figures.basis,
      cache: figures.cache,
      ...(breakAt !== undefined ? { breakAt } : {}),
      ...(breakReason ? { breakReason } : {}),
      output: figures.output,
      ...(usd !== undefined ? { usd } : {}),
      ...(provider ? { provider } : {}),
    });
    previous = { start, from, cut, shape, total, unrecorded: figures.parts.unrecorded };
    previousCount = provider ? provider.input + provider.cacheRead + provider.cacheWrite : undefined;
  });
  // The calls made: the last entry is the next one, not made yet.
  const made = modelCalls.slice(0, -1);
  const sum = (of: (c: ModelCallUsage) => number) => made.reduce((n, c) => n + of(c), 0);
  const totals = {
    parts: made.reduce((all, call) => add(all, call.parts), zero()),
    total: sum((c) => c.total),
    cache: {
      read: sum((c) => c.cache.read),
      write: sum((c) => c.cache.write),
      write1h: sum((c) => c.cache.write1h),
      uncached: sum((c) => c.cache.uncached),
    },
    output: sum((c) => c.output),
    ...(price ? { usd: sum((c) => c.usd ?? 0) } : {}),
    counted: made.filter((c) => c.basis === 'provider').length,
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
    const next = compactions[i + 1] ?? events.length;
    const handed = events.findIndex((e, j) => j > at && j < next && isHandedIndex(e));
    return {
      at,
      ...(handed >= 0 ? { handed } : {}),
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
