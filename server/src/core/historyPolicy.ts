/**
 * The history policy: on later turns, older tool-result bodies become bounded references to
 * stored values, so the context stops growing with every turn. The newest rounds stay intact;
 * every call keeps its result (a reference is still a tool_result, error flag and all).
 *
 * A pure function of the messages, the results and the policy. Which bodies are referenced
 * depends only on how old their round is, and a reference names a value derived from the call
 * id (or, for identical content, from the first call that produced it), so the same transcript
 * gives byte-identical projections on every replay and after a restart.
 */
import { sanitizeId } from './ids';
import { resultText, type Message } from './replay';
import type { TranscriptEvent } from './transcript';
import { countLines, sha256Hex, utf8Bytes } from './text';

export interface HistoryPolicy {
  /** Rounds (an assistant message with tool calls and its results) at the end kept intact. */
  keepRounds: number;
  /** An older body of at most this many UTF-8 bytes stays inline. */
  inlineMaxBytes: number;
  /** An older tool input string (an argument) of at most this many UTF-8 bytes stays inline. */
  inputMaxBytes: number;
  /** Tools whose results always stay as they are. */
  exemptTools: string[];
}

export const DEFAULT_HISTORY_POLICY: Readonly<HistoryPolicy> = Object.freeze({ keepRounds: 1, inlineMaxBytes: 1024, inputMaxBytes: 1024, exemptTools: [] });

/** What the policy needs to know of each result, by call id. */
export interface ResultInfo {
  tool: string;
  /** The full result. */
  text: string;
  isError: boolean;
  sha256: string;
  /** Set when the result is already a value whose file exists. */
  valueId?: string;
}

/**
 * What the policy needs of each result in a transcript. A result's value is the one its event
 * names, or the one an earlier projection archived under its call id, while the file exists.
 */
export function resultInfos(events: readonly TranscriptEvent[], existingValues: ReadonlySet<string>): Map<string, ResultInfo> {
  const infos = new Map<string, ResultInfo>();
  for (const e of events) {
    if (e.type !== 'tool_call_finished') continue;
    const archived = sanitizeId(e.callId);
    const valueId = e.valueId && existingValues.has(e.valueId) ? e.valueId : existingValues.has(archived) ? archived : undefined;
    infos.set(e.callId, { tool: e.tool, text: e.result, isError: e.isError ?? false, sha256: e.sha256 ?? sha256Hex(e.result), ...(valueId ? { valueId } : {}) });
  }
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

/** The reference that stands for an elided input string, inside the call's arguments. */
export function inputReferenceText(valueId: string, tool: string, path: string, text: string): string {
  return `[retained #${valueId}] ${tool} input ${path}: ${utf8Bytes(text)} bytes, ${countLines(text)} lines, elided from an earlier call; read it with peek_value`;
}

/** The value id of an input string: derived from the call id and where in the arguments it sits. */
export function inputValueId(callId: string, path: string): string {
  return sanitizeId(`${callId}-input-${path}`);
}

/**
 * Replaces each string in `value` longer than `maxBytes` by `replace(path, text)`, keeping the
 * shape: objects stay objects, arrays stay arrays, so the call stays valid for every provider.
 */
function mapLargeStrings(value: unknown, maxBytes: number, replace: (path: string, text: string) => string, path = ''): unknown {
  if (typeof value === 'string') return utf8Bytes(value) > maxBytes ? replace(path || 'input', value) : value;
  if (Array.isArray(value)) return value.map((item, i) => mapLargeStrings(item, maxBytes, replace, `${path}[${i}]`));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mapLargeStrings(item, maxBytes, replace, path ? `${path}.${key}` : key)]));
  }
  return value;
}

export function referenceText(valueId: string, tool: string, text: string, isError: boolean): string {
  return `[retained #${valueId}] ${tool} ${isError ? 'error' : 'result'}: ${utf8Bytes(text)} bytes, ${countLines(text)} lines, an earlier result kept out of context; read it with peek_value`;
}

/** Checks a policy from a request, filling what it leaves out from `defaults`; throws an Error naming the field. */
export function resolveHistoryPolicy(input: unknown, defaults: HistoryPolicy = DEFAULT_HISTORY_POLICY): HistoryPolicy {
  if (input === undefined || input === null || input === true) return { ...defaults, exemptTools: [...defaults.exemptTools] };
  if (typeof input !== 'object' || Array.isArray(input)) throw new Error('policy must be an object');
  const p = input as Record<string, unknown>;
  const whole = (key: string, min: number, fallback: number) => {
    const value = p[key] ?? fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min) throw new Error(`policy.${key} must be a whole number of at least ${min}`);
    return value;
  };
  const exempt = p.exemptTools ?? defaults.exemptTools;
  if (!Array.isArray(exempt) || !exempt.every((t) => typeof t === 'string')) throw new Error('policy.exemptTools must be an array of tool names');
  return {
    keepRounds: whole('keepRounds', 0, defaults.keepRounds),
    inlineMaxBytes: whole('inlineMaxBytes', 0, defaults.inlineMaxBytes),
    inputMaxBytes: whole('inputMaxBytes', 0, defaults.inputMaxBytes),
    exemptTools: [...(exempt as string[])],
  };
}

export function applyHistoryPolicy(messages: readonly Message[], results: ReadonlyMap<string, ResultInfo>, policy: HistoryPolicy): PolicyOutcome {
  // Identical content shares one value: the first result (in transcript order) that produced it.
  const owners = new Map<string, { valueId: string; need?: ArchiveNeed }>();
  for (const [callId, info] of results) {
    if (owners.has(info.sha256)) continue;
    const valueId = info.valueId ?? sanitizeId(callId);
    owners.set(info.sha256, { valueId, ...(info.valueId ? {} : { need: { valueId, callId, tool: info.tool, text: info.text, isError: info.isError } }) });
  }

  const roundStarts = messages.flatMap((m, i) => (m.role === 'assistant' && m.content.some((b) => b.type === 'tool_use') ? [i] : []));
  const firstKept = roundStarts.length > policy.keepRounds ? roundStarts[roundStarts.length - policy.keepRounds] ?? messages.length : 0;
  const exempt = new Set(policy.exemptTools);
  const archive = new Map<string, ArchiveNeed>();
  const referenced: string[] = [];
  let elidedBytes = 0;

  /** The value that holds `text`: an existing owner of the same content, or a new one. */
  const holder = (text: string, fresh: () => ArchiveNeed): string => {
    const key = sha256Hex(text);
    let owner = owners.get(key);
    if (!owner) {
      const need = fresh();
      owner = { valueId: need.valueId, need };
      owners.set(key, owner);
    }
    if (owner.need && !archive.has(owner.valueId)) archive.set(owner.valueId, owner.need);
    elidedBytes += utf8Bytes(text);
    return owner.valueId;
  };

  const out = messages.map((message, index): Message => {
    if (index >= firstKept) return message;
    return {
      role: message.role,
      content: message.content.map((block) => {
        if (block.type === 'tool_use') {
          if (exempt.has(block.name)) return block;
          const input = mapLargeStrings(block.input, policy.inputMaxBytes, (path, text) => {
            const valueId = holder(text, () => ({ valueId: inputValueId(block.id, path), callId: block.id, tool: block.name, text, isError: false }));
            return inputReferenceText(valueId, block.name, path, text);
          });
          return { ...block, input };
        }
        if (block.type !== 'tool_result') return block;
        const info = results.get(block.tool_use_id);
        if (!info || exempt.has(info.tool) || utf8Bytes(resultText(block)) <= policy.inlineMaxBytes) return block;
        const valueId = holder(info.text, () => ({ valueId: sanitizeId(block.tool_use_id), callId: block.tool_use_id, tool: info.tool, text: info.text, isError: info.isError }));
        referenced.push(block.tool_use_id);
        return { ...block, content: referenceText(valueId, info.tool, info.text, info.isError) };
      }),
    };
  });
  return { messages: out, archive: [...archive.values()], referenced, elidedBytes };
}
