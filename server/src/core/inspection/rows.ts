/**
 * The inspector's view of a run: every transcript event beside what the model was sent for
 * it as of a chosen model call, plus bytes and estimated tokens per model call. Pure: events in,
 * rows out. Bodies are clipped to a cell's worth, so a run with 50 MB results pages cheaply;
 * the full text is always one click away (the value file, or a search over the transcript).
 *
 * Model call k is the one that produced the k-th response (an assistant event, or several
 * sharing one provider response id); it was sent the history of every event before that one.
 * Model call R+1 (R responses) is the next one: what a resume would send now.
 */

import { blockText, contentText } from '../../../../shared/blocks';
import type { ModelCallEvent, ToolCallFinishedEvent, TranscriptEvent } from '../../../../shared/events';
import type { View } from '../../../../shared/history';
import type {
  CallCell,
  Clip,
  FullCell,
  ModelCallFigures,
  ModelCell,
  Outline,
  RunCounts,
} from '../../../../shared/protocol';
import type { HistoryPolicy } from '../../../../shared/settings';
import { cutOf, responseStarts } from '../history/modelCalls';
import { type ArchiveNeed, applyHistoryPolicy, resultInfos } from '../history/policy';
import { replayStructured, resultText, type Segment } from '../history/replay';
import { countLines, cutToBytes, utf8Bytes } from '../text/bytes';
import { TOKENIZER } from '../text/tokens';
import { Yielder } from '../yielder';
import { countedInputs, onCounted } from './basis';
import { blockSizes, estimateTokens, fullResultSizes } from './blockSizes';
import { calledIds, historyStart, keptFrom, olderSegments, roundStartsOf, segmentsOf } from './rounds';

export const CELL_MAX_BYTES = 8192;
export const CELL_MAX_LINES = 200;

/** The start of `text`: at most `maxLines` lines and `maxBytes` bytes. */
export function clip(text: string, maxBytes = CELL_MAX_BYTES, maxLines = CELL_MAX_LINES): Clip {
  const bytes = utf8Bytes(text);
  const lines = countLines(text);
  let end = text.length;
  if (lines > maxLines) {
    end = -1;
    for (let n = 0; n < maxLines; n++) end = text.indexOf('\n', end + 1);
  }
  const { kept } = cutToBytes(end < text.length ? text.slice(0, end) : text, maxBytes);
  return { text: kept, bytes, lines, cut: kept.length < text.length };
}

function argsText(args: unknown): string {
  return JSON.stringify(args ?? {}, null, 2) ?? 'undefined';
}

function callCells(calls: readonly { id: string; name: string; arguments?: unknown; input?: unknown }[]): CallCell[] {
  return calls.map((c) => ({
    id: c.id,
    name: c.name,
    arguments: clip(argsText('input' in c ? c.input : c.arguments)),
  }));
}

/**
 * The left column's cell of an event. A result kept in a value is shown from `head`, the first
 * bytes of its value file (read by the caller: this module does no I/O).
 */
export function fullCell(event: TranscriptEvent, existingValues: ReadonlySet<string>, head?: string): FullCell {
  const base = event.ts ? { ts: event.ts } : {};
  switch (event.type) {
    case 'run_started':
      return {
        kind: 'run_started',
        ...base,
        tools: event.tools,
        ...(event.model ? { model: event.model } : {}),
        ...(event.agent ? { agent: event.agent } : {}),
      };
    case 'user':
      return { kind: 'user', ...base, text: clip(event.text), ...(event.injected ? { injected: true } : {}) };
    case 'system':
      return { kind: 'system', ...base, text: clip(event.text) };
    case 'compaction':
      return {
        kind: 'compaction',
        ...base,
        ...(event.summary !== undefined ? { text: clip(event.summary) } : {}),
        ...(event.reason ? { reason: event.reason } : {}),
      };
    case 'assistant':
      return {
        kind: 'assistant',
        ...base,
        // Some models open with blank lines; the cell starts at the first word.
        ...(event.text?.trim() ? { text: clip(event.text.replace(/^(?:[ \t]*\r?\n)+/, '')) } : {}),
        ...(event.thinking?.length ? thinkingCells(event.thinking) : {}),
        ...(event.toolCalls?.length ? { calls: callCells(event.toolCalls) } : {}),
      };
    case 'tool_call_finished':
      return {
        kind: 'tool_result',
        ...base,
        text: resultClip(event, head),
        tool: event.tool,
        callId: event.callId,
        ...(event.durationMs !== undefined ? { durationMs: event.durationMs } : {}),
        ...(event.isError ? { isError: true } : {}),
        ...(event.valueId && existingValues.has(event.valueId) ? { valueId: event.valueId } : {}),
        ...(event.sent !== undefined ? { sent: clip(contentText(event.sent)) } : {}),
        ...(event.lost ? { lost: event.lost } : {}),
        ...(event.withheld ? { withheld: event.withheld } : {}),
      };
    case 'turn_ended':
      return { kind: 'turn_ended', ...base, stopReason: event.stopReason };
    case 'request_shape':
      return {
        kind: 'request_shape',
        ...base,
        text: clip(systemText(event.system)),
        tools: (event.tools ?? []).map(toolName),
        toolsBytes: utf8Bytes(JSON.stringify(event.tools ?? [])),
      };
    case 'model_call':
      // A request the file could not give back exactly says why (`reason`).
      return {
        kind: 'model_call',
        ...base,
        ...(event.rebuilt ? { reason: `rebuilt from the conversation: ${event.rebuilt}` } : {}),
      };
  }
}

/** A system prompt's text: a string, or text blocks (Anthropic). */
export function systemText(system: unknown): string {
  if (typeof system === 'string') return system;
  if (!Array.isArray(system)) return '';
  return system
    .flatMap((b) => (b && typeof b === 'object' && typeof b.text === 'string' ? [b.text as string] : []))
    .join('\n');
}

/** A tool definition's name, in any provider's shape. */
function toolName(tool: unknown): string {
  const t = tool as { name?: unknown; function?: { name?: unknown }; type?: unknown } | null;
  const name = t?.name ?? t?.function?.name ?? t?.type;
  return typeof name === 'string' ? name : '?';
}

/** A result's clip: from the event, or from its value's first bytes; a deleted value says so. */
function resultClip(event: ToolCallFinishedEvent, head: string | undefined): Clip {
  if (event.result !== undefined) return clip(event.result);
  const bytes = event.bytes ?? 0;
  const lines = event.lines ?? 0;
  if (head === undefined)
    return { text: '[the value holding this result was deleted from the store]', bytes, lines, cut: true };
  const shown = clip(head);
  return { text: shown.text, bytes, lines, cut: utf8Bytes(shown.text) < bytes };
}

/**
 * Bytes and tokens per event over histories (a replay's segments), as prefix sums (index i:
 * events before i): the blocks as sent, or (`full`) with every result in full, the same history.
 */
async function prefixSizes(
  events: readonly TranscriptEvent[],
  segments: readonly Segment[],
  full: boolean,
  yielder: Yielder,
): Promise<{ bytes: Float64Array; tokens: Float64Array }> {
  const bytes = new Float64Array(events.length + 1);
  const tokens = new Float64Array(events.length + 1);
  for (const { messages, owners } of segments) {
    for (const [i, message] of messages.entries()) {
      // Counting tokens is the slow part: the server answers others between slices.
      await yielder.maybe();
      message.content.forEach((block, j) => {
        const owner = owners[i]![j]!;
        const event = events[owner.event]!;
        const whole =
          block.type === 'tool_result' &&
          !owner.synthetic &&
          event.type === 'tool_call_finished' &&
          (full || block.content === event.result);
        const size = whole ? fullResultSizes(block, event as ToolCallFinishedEvent) : blockSizes(block);
        bytes[owner.event + 1]! += size.bytes;
        tokens[owner.event + 1]! += size.tokens;
      });
    }
  }
  for (let i = 1; i <= events.length; i++) {
    bytes[i]! += bytes[i - 1]!;
    tokens[i]! += tokens[i - 1]!;
  }
  return { bytes, tokens };
}

export interface OutlineOptions {
  view: View;
  /** The history policy, applied to the model's view (Retained Outputs' own feature). */
  policy?: HistoryPolicy | undefined;
}

/**
 * Counts and per-model-call figures. Sizes are summed per block (JSON of each block), so they are
 * an estimate of the request body sent to the provider; tokens of bodies over 64 KiB are scaled from a sample.
 * "Full" is the same history with every result in full; "sent" is the view asked for.
 */
export async function buildOutline(
  events: readonly TranscriptEvent[],
  existingValues: ReadonlySet<string>,
  options: OutlineOptions,
  yielder = new Yielder(),
): Promise<Outline> {
  const { view, policy } = options;
  const replay = replayStructured({ events, existingValues, ...(view ? { view } : {}) });
  const naive = await prefixSizes(events, segmentsOf(replay), true, yielder);
  const sent = await prefixSizes(events, segmentsOf(replay), false, yielder);
  const older = policy
    ? await prefixSizes(events, olderSegments(replay, events, existingValues, policy), false, yielder)
    : undefined;
  const called = calledIds(events);
  const roundStarts = roundStartsOf(events, called);
  const compactions = events.flatMap((e, i) => (e.type === 'compaction' ? [i] : []));

  const cuts = [...responseStarts(events), events.length];
  const shapes = shapeSizes(events);
  // The provider's counts are of the run as sent: the figures of every form are set on them (basis.ts).
  const counted = countedInputs(events, cuts);
  const asSentView = view === 'sent';
  const asSent =
    counted.some((n) => n !== undefined) && !asSentView
      ? await prefixSizes(
          events,
          segmentsOf(replayStructured({ events, existingValues, view: 'sent' })),
          false,
          yielder,
        )
      : sent;
  /** The last call's shape and what its provider counted that the file does not hold: the next call sends both again (usage.ts alike). */
  let previous: { shape: string | undefined; unrecorded: number } | undefined;
  const modelCalls = cuts.map((cut, k): ModelCallFigures => {
    const start = historyStart(compactions, cut);
    // The system prompt and tools it sent, where the run records them, count as sent in either view.
    const call = events[cut]?.type === 'model_call' ? (events[cut] as ModelCallEvent) : undefined;
    const upcoming = k === cuts.length - 1 && !call;
    const shapeId = upcoming ? previous?.shape : call?.shape;
    const shape = (shapeId && shapes.get(shapeId)) || { bytes: 0, tokens: 0 };
    let bytesSent = sent.bytes[cut]! - sent.bytes[start]! + shape.bytes;
    let tokensSent = sent.tokens[cut]! - sent.tokens[start]! + shape.tokens;
    if (older && policy) {
      const from = Math.max(start, keptFrom(roundStarts, cut, policy.keepRounds));
      bytesSent = older.bytes[from]! - older.bytes[start]! + sent.bytes[cut]! - sent.bytes[from]! + shape.bytes;
      tokensSent = older.tokens[from]! - older.tokens[start]! + sent.tokens[cut]! - sent.tokens[from]! + shape.tokens;
    }
    let tokensFull = naive.tokens[cut]! - naive.tokens[start]! + shape.tokens;
    const count = counted[k];
    let unrecorded = 0;
    if (count !== undefined) {
      const estimate = asSent.tokens[cut]! - asSent.tokens[start]! + shape.tokens;
      tokensSent = asSentView && !policy ? count : onCounted(tokensSent, estimate, count);
      tokensFull = onCounted(tokensFull, estimate, count);
      unrecorded = Math.max(0, count - estimate);
    } else if (upcoming && previous) {
      tokensSent += previous.unrecorded;
      tokensFull += previous.unrecorded;
    }
    previous = { shape: shapeId, unrecorded };
    return {
      modelCall: k + 1,
      cut,
      bytesFull: naive.bytes[cut]! - naive.bytes[start]! + shape.bytes,
      bytesSent,
      tokensFull,
      tokensSent,
      ...(call?.rebuilt ? { rebuilt: call.rebuilt } : {}),
    };
  });
  // The calls made: the last entry is the next one, not made yet.
  const sum = (key: 'bytesFull' | 'bytesSent' | 'tokensFull' | 'tokensSent') =>
    modelCalls.slice(0, -1).reduce((n, r) => n + r[key], 0);
  // In the order an index has always kept them (runIndex.ts's FORMAT holds the digest).
  const { modelCalls: _places, source, view: shown, ...counts } = runCounts(events, existingValues, view, called);
  return {
    ...counts,
    modelCalls,
    totals: {
      bytesFull: sum('bytesFull'),
      bytesSent: sum('bytesSent'),
      tokensFull: sum('tokensFull'),
      tokensSent: sum('tokensSent'),
    },
    tokenizer: `${TOKENIZER}; per block, bodies over 64 KiB scaled from a sample`,
    ...(source ? { source } : {}),
    view: shown,
  };
}

/**
 * A run's counts and where each model call's history ends: what the rows need, without
 * counting a token (so without loading the tokenizer's tables).
 */
export function runCounts(
  events: readonly TranscriptEvent[],
  existingValues: ReadonlySet<string>,
  view: View,
  called = calledIds(events),
): RunCounts {
  const cuts = [...responseStarts(events), events.length];
  let toolCalls = 0;
  let errors = 0;
  let retained = 0;
  let keptOutBytes = 0;
  for (const e of events) {
    if (e.type === 'assistant') toolCalls += e.toolCalls?.length ?? 0;
    if (e.type !== 'tool_call_finished') continue;
    if (!called.has(e.callId)) toolCalls++;
    if (e.isError) errors++;
    if (e.valueId && existingValues.has(e.valueId)) {
      retained++;
      keptOutBytes += e.bytes ?? utf8Bytes(e.result ?? '');
    }
  }
  return {
    events: events.length,
    userMessages: events.filter((e) => e.type === 'user' && !e.injected).length,
    assistantMessages: cuts.length - 1,
    toolCalls,
    errors,
    retained,
    keptOutBytes,
    modelCalls: cuts.map((cut, k) => {
      const call = events[cut]?.type === 'model_call' ? (events[cut] as ModelCallEvent) : undefined;
      return { modelCall: k + 1, cut, ...(call?.rebuilt ? { rebuilt: call.rebuilt } : {}) };
    }),
    ...sourceOf(events),
    view,
  };
}

/** The size of each request_shape as sent (its system prompt and tools), by hash. */
function shapeSizes(events: readonly TranscriptEvent[]): Map<string, { bytes: number; tokens: number }> {
  const sizes = new Map<string, { bytes: number; tokens: number }>();
  for (const e of events) {
    if (e.type !== 'request_shape' || sizes.has(e.hash)) continue;
    const json = JSON.stringify({ system: e.system ?? null, tools: e.tools ?? [] });
    sizes.set(e.hash, { bytes: utf8Bytes(json), tokens: estimateTokens(json) });
  }
  return sizes;
}

function sourceOf(events: readonly TranscriptEvent[]): Pick<Outline, 'source'> {
  const first = events[0];
  if (first?.type !== 'run_started' || !first.source) return {};
  const { format, fidelity, version } = first.source;
  return { source: { format, fidelity, ...(version ? { version } : {}) } };
}

export interface ModelSide {
  /** The model's side of events `from`…`to`: each cell made when first asked for (a page clips a hundred, not the run). */
  cells(from: number, to: number): ModelCell[];
  /** Values the view refers to that are not stored yet: write them before showing it. */
  archive: ArchiveNeed[];
}

/**
 * The model's side of every event as model call `modelCall` sent it: the real replay of the events
 * before its cut, in the view asked for, with the history policy applied when given, mapped back
 * onto events through the replay's block owners.
 */
export function modelSide(
  events: readonly TranscriptEvent[],
  existingValues: ReadonlySet<string>,
  modelCall: number,
  options: OutlineOptions,
): ModelSide {
  const { view, policy } = options;
  const cut = cutOf(events, modelCall);
  const prefix = events.slice(0, cut);
  const replay = replayStructured({ events: prefix, existingValues, ...(view ? { view } : {}) });
  let { messages } = replay;
  let archive: ArchiveNeed[] = [];
  let referenced = new Set<string>();
  if (policy) {
    // The policy replaces block contents only, so the owners still line up.
    const outcome = applyHistoryPolicy(messages, replay.owners, resultInfos(prefix, existingValues), policy);
    messages = outcome.messages;
    archive = outcome.archive;
    referenced = new Set(outcome.referenced);
  }
  // Each event's blocks in the history (message, block), in order: a cell is made from them when asked for.
  const blocksOf: [number, number][][] = [];
  messages.forEach((message, i) => {
    message.content.forEach((_, j) => {
      const { event } = replay.owners[i]![j]!;
      blocksOf[event] ??= [];
      blocksOf[event].push([i, j]);
    });
  });
  // The request_shape the model call sent, where the run records it: its system prompt, sent whole.
  const call = events[cut]?.type === 'model_call' ? (events[cut] as ModelCallEvent) : undefined;
  const cellOf = (index: number): ModelCell => {
    const event = events[index]!;
    if (event.type === 'request_shape' && event.hash === call?.shape)
      return { sent: true, text: clip(systemText(event.system)), form: 'verbatim', savedBytes: 0 };
    const cell: ModelCell = { sent: false, savedBytes: 0 };
    for (const [i, j] of blocksOf[index] ?? []) {
      const block = messages[i]!.content[j]!;
      const owner = replay.owners[i]![j]!;
      cell.sent = true;
      if (block.type === 'thinking') continue;
      if (block.type === 'text') cell.text = clip(block.text);
      else if (block.type === 'provider') cell.text = clip(blockText(block.block));
      else if (block.type === 'tool_use') {
        const [made] = callCells([block]);
        cell.calls ??= [];
        cell.calls.push(made!);
        if (event.type === 'assistant') {
          const original = event.toolCalls?.find((c) => c.id === block.id);
          if (original) cell.savedBytes += Math.max(0, utf8Bytes(argsText(original.arguments)) - made!.arguments.bytes);
        }
      } else if (owner.synthetic) {
        cell.synthetic ??= [];
        cell.synthetic.push(resultText(block));
      } else if (event.type === 'tool_call_finished') {
        const text = resultText(block);
        cell.text = clip(text);
        cell.form = referenced.has(block.tool_use_id)
          ? 'reference'
          : text === event.result
            ? 'verbatim'
            : block.content === event.sent
              ? 'truncated'
              : 'stub';
        cell.savedBytes += Math.max(0, (event.bytes ?? utf8Bytes(event.result ?? '')) - cell.text.bytes);
      }
    }
    return cell;
  };
  const made: ModelCell[] = [];
  return {
    cells: (from, to) => {
      const shown: ModelCell[] = [];
      for (let index = from; index < Math.min(to, events.length); index++) {
        const cell = made[index] ?? cellOf(index);
        made[index] = cell;
        shown.push(cell);
      }
      return shown;
    },
    archive,
  };
}

/** The first model call that sends each event: one more than the responses up to it. */
export function firstModelCalls(events: readonly TranscriptEvent[]): number[] {
  const starts = new Set(responseStarts(events));
  let seen = 0;
  return events.map((_, i) => {
    if (starts.has(i)) seen++;
    return seen + 1;
  });
}

function thinkingCells(thinking: readonly { text: string }[]): Pick<FullCell, 'thinking' | 'thinkingText'> {
  const text = thinking
    .map((block) => block.text)
    .filter((t) => t.trim())
    .join('\n\n');
  return { thinking: thinking.length, ...(text ? { thinkingText: clip(text) } : {}) };
}
