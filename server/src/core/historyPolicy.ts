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
import type { Message } from './replay';
import { countLines, utf8Bytes } from './text';

export interface HistoryPolicy {
  /** Rounds (an assistant message with tool calls and its results) at the end kept intact. */
  keepRounds: number;
  /** An older body of at most this many UTF-8 bytes stays inline. */
  inlineMaxBytes: number;
  /** Tools whose results always stay as they are. */
  exemptTools: string[];
}

export const DEFAULT_HISTORY_POLICY: Readonly<HistoryPolicy> = Object.freeze({ keepRounds: 1, inlineMaxBytes: 1024, exemptTools: [] });

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
  return { keepRounds: whole('keepRounds', 0, defaults.keepRounds), inlineMaxBytes: whole('inlineMaxBytes', 0, defaults.inlineMaxBytes), exemptTools: [...(exempt as string[])] };
}

export function applyHistoryPolicy(messages: readonly Message[], results: ReadonlyMap<string, ResultInfo>, policy: HistoryPolicy): PolicyOutcome {
  // Identical content shares one value: the first call (in transcript order) that produced it.
  const firstBySha = new Map<string, string>();
  for (const [callId, info] of results) if (!firstBySha.has(info.sha256)) firstBySha.set(info.sha256, callId);

  const roundStarts = messages.flatMap((m, i) => (m.role === 'assistant' && m.content.some((b) => b.type === 'tool_use') ? [i] : []));
  const firstKept = roundStarts.length > policy.keepRounds ? roundStarts[roundStarts.length - policy.keepRounds] ?? messages.length : 0;
  const exempt = new Set(policy.exemptTools);
  const archive = new Map<string, ArchiveNeed>();
  const referenced: string[] = [];

  const out = messages.map((message, index) => {
    if (index >= firstKept || message.role !== 'user') return message;
    return {
      role: message.role,
      content: message.content.map((block) => {
        if (block.type !== 'tool_result') return block;
        const info = results.get(block.tool_use_id);
        if (!info || exempt.has(info.tool) || utf8Bytes(block.content) <= policy.inlineMaxBytes) return block;
        const owner = firstBySha.get(info.sha256) ?? block.tool_use_id;
        const ownerInfo = results.get(owner) ?? info;
        const valueId = ownerInfo.valueId ?? sanitizeId(owner);
        if (!ownerInfo.valueId && !archive.has(valueId)) {
          archive.set(valueId, { valueId, callId: owner, tool: ownerInfo.tool, text: ownerInfo.text, isError: ownerInfo.isError });
        }
        referenced.push(block.tool_use_id);
        return { ...block, content: referenceText(valueId, info.tool, info.text, info.isError) };
      }),
    };
  });
  return { messages: out, archive: [...archive.values()], referenced };
}
