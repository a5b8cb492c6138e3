/**
 * The history policy: on later model calls, older tool-result bodies become bounded references to
 * stored values, so the context stops growing with every model call. The newest rounds stay intact;
 * every call keeps its result (a reference is still a tool_result, error flag and all).
 *
 * A pure function of the messages, the results and the policy. Which bodies are referenced
 * depends only on how old their round is, and a reference names a value derived from the call
 * id (or, for identical content, from the first call that produced it), so the same transcript
 * gives byte-identical projections on every replay and after a restart.
 */

import type { TranscriptEvent } from '../../../../shared/events';
import type { Message } from '../../../../shared/history';
import { sanitizeId } from '../../../../shared/ids';
import type { HistoryPolicy } from '../../../../shared/settings';
import { findMarkers, inputReference, resultReference } from '../../../../shared/stubText';
import { countLines, sha256Hex, utf8Bytes } from '../text/bytes';
import { type BlockOwner, resultText } from './replay';

/** What the policy needs to know of each result. */
export interface ResultInfo {
  callId: string;
  tool: string;
  /** The full result, when the event holds it (a result kept in a value has only its sizes here). */
  text?: string;
  bytes: number;
  lines: number;
  isError: boolean;
  sha256: string;
  /** The value that holds this result: its own, or the one a projection archives it to. */
  valueId: string;
  /** True when that value is stored already; else the projection must write it first. */
  stored: boolean;
}

/**
 * What the policy needs of each result of a transcript, by the event's index. A result's value
 * is the one its event names; an inline result is archived under its call id, or, when the run
 * uses that call id more than once, under the call id and its hash, so each result keeps a value
 * of its own and no reference names another's bytes.
 */
export function resultInfos(
  events: readonly TranscriptEvent[],
  existingValues: ReadonlySet<string>,
): Map<number, ResultInfo> {
  const uses = new Map<string, number>();
  for (const e of events) if (e.type === 'tool_call_finished') uses.set(e.callId, (uses.get(e.callId) ?? 0) + 1);
  const infos = new Map<number, ResultInfo>();
  events.forEach((e, index) => {
    if (e.type !== 'tool_call_finished') return;
    const base = { callId: e.callId, tool: e.tool, isError: e.isError ?? false };
    if (e.valueId && (e.result === undefined || existingValues.has(e.valueId))) {
      // A retained result: its value holds it (a deleted one is already a short notice, left alone).
      if (!existingValues.has(e.valueId)) return;
      infos.set(index, {
        ...base,
        bytes: e.bytes ?? 0,
        lines: e.lines ?? 0,
        sha256: e.sha256 ?? '',
        valueId: e.valueId,
        stored: true,
      });
      return;
    }
    const text = e.result ?? '';
    const sha256 = e.sha256 ?? sha256Hex(text);
    // A result that is a stub (a hooked session imported where its values are not) is never
    // archived under the id it names: that id means the whole output, not the stub's text.
    const named = findMarkers(text.slice(0, 200))[0]?.valueId;
    const shared = uses.get(e.callId)! > 1 || named === sanitizeId(e.callId);
    const valueId = sanitizeId(shared ? `${e.callId}\u0000${sha256}` : e.callId);
    infos.set(index, {
      ...base,
      text,
      bytes: utf8Bytes(text),
      lines: countLines(text),
      sha256,
      valueId,
      stored: existingValues.has(valueId),
    });
  });
  return infos;
}

/** A value the projection refers to that is not stored yet: the caller must write it first. */
export interface ArchiveNeed {
  valueId: string;
  callId: string;
  tool: string;
  text: string;
  isError: boolean;
}

export interface PolicyOutcome {
  messages: Message[];
  archive: ArchiveNeed[];
  /** Call ids whose bodies became references. */
  referenced: string[];
  /** Bytes of results and inputs replaced by references; all of it is retrievable. */
  elidedBytes: number;
}

/** The value id of an input string: derived from the call id and where in the arguments it sits. */
export function inputValueId(callId: string, path: string): string {
  return sanitizeId(`${callId}-input-${path}`);
}

/**
 * Replaces each string in `value` longer than `maxBytes` by `replace(path, text)`, keeping the
 * shape: objects stay objects, arrays stay arrays, so the call stays valid for every provider.
 */
function mapLargeStrings(
  value: unknown,
  maxBytes: number,
  replace: (path: string, text: string) => string,
  path = '',
): unknown {
  if (typeof value === 'string') return utf8Bytes(value) > maxBytes ? replace(path || 'input', value) : value;
  if (Array.isArray(value)) return value.map((item, i) => mapLargeStrings(item, maxBytes, replace, `${path}[${i}]`));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        key,
        mapLargeStrings(item, maxBytes, replace, path ? `${path}.${key}` : key),
      ]),
    );
  }
  return value;
}

/**
 * Applies the policy to a replay: `owners` (the replay's, parallel to `messages`) say which
 * event each block came from, so each result is found by its event, whatever its call id.
 */
export function applyHistoryPolicy(
  messages: readonly Message[],
  owners: readonly BlockOwner[][],
  results: ReadonlyMap<number, ResultInfo>,
  policy: HistoryPolicy,
): PolicyOutcome {
  // Identical content shares one value: the first result (in transcript order) that produced it.
  const holders = new Map<string, { valueId: string; need?: ArchiveNeed }>();
  for (const info of results.values()) {
    if (!info.sha256 || holders.has(info.sha256)) continue;
    holders.set(info.sha256, {
      valueId: info.valueId,
      ...(info.stored || info.text === undefined
        ? {}
        : {
            need: {
              valueId: info.valueId,
              callId: info.callId,
              tool: info.tool,
              text: info.text,
              isError: info.isError,
            },
          }),
    });
  }

  const roundStarts = messages.flatMap((m, i) =>
    m.role === 'assistant' && m.content.some((b) => b.type === 'tool_use') ? [i] : [],
  );
  const firstKept =
    roundStarts.length > policy.keepRounds
      ? (roundStarts[roundStarts.length - policy.keepRounds] ?? messages.length)
      : 0;
  const exempt = new Set(policy.exemptTools);
  const archive = new Map<string, ArchiveNeed>();
  const referenced: string[] = [];
  let elidedBytes = 0;

  /** The value that holds content with this hash: an existing holder, or a new one. */
  const holder = (sha256: string, bytes: number, fresh: () => ArchiveNeed): string => {
    let owner = holders.get(sha256);
    if (!owner) {
      const need = fresh();
      owner = { valueId: need.valueId, need };
      holders.set(sha256, owner);
    }
    if (owner.need && !archive.has(owner.valueId)) archive.set(owner.valueId, owner.need);
    elidedBytes += bytes;
    return owner.valueId;
  };

  const out = messages.map((message, index): Message => {
    if (index >= firstKept) return message;
    return {
      role: message.role,
      content: message.content.map((block, j) => {
        if (block.type === 'tool_use') {
          if (exempt.has(block.name)) return block;
          const input = mapLargeStrings(block.input, policy.inputMaxBytes, (path, text) => {
            const valueId = holder(sha256Hex(text), utf8Bytes(text), () => ({
              valueId: inputValueId(block.id, path),
              callId: block.id,
              tool: block.name,
              text,
              isError: false,
            }));
            return inputReference(valueId, block.name, path, utf8Bytes(text), countLines(text));
          });
          return { ...block, input };
        }
        if (block.type !== 'tool_result') return block;
        const owner = owners[index]?.[j];
        const info = owner && !owner.synthetic ? results.get(owner.event) : undefined;
        if (!info || exempt.has(info.tool) || utf8Bytes(resultText(block)) <= policy.inlineMaxBytes) return block;
        const valueId = info.stored
          ? info.valueId
          : holder(info.sha256, info.bytes, () => ({
              valueId: info.valueId,
              callId: info.callId,
              tool: info.tool,
              text: info.text!,
              isError: info.isError,
            }));
        if (info.stored) elidedBytes += info.bytes;
        referenced.push(block.tool_use_id);
        return { ...block, content: resultReference(valueId, info.tool, info.bytes, info.lines, info.isError) };
      }),
    };
  });
  return { messages: out, archive: [...archive.values()], referenced, elidedBytes };
}
