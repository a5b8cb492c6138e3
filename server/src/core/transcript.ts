/**
 * The run transcript: one JSON event per line in `runs/<runId>.jsonl`, appended as things
 * happen. It always holds every full tool result, retained or not, so the UI and replay can
 * rebuild anything.
 *
 * Appends are serialized per file inside a process, and each event is one `write()` on an
 * O_APPEND descriptor, so events from several processes never interleave. A crash mid-append
 * leaves a torn last line, which readers report and skip.
 */
import { promises as fs } from 'node:fs';
import type { PreviewSettings } from './stub';
import { createInterface } from 'node:readline';
import { createReadStream } from 'node:fs';

export type StopReason = 'end_turn' | 'interrupted' | 'aborted' | 'error';
export const STOP_REASONS: readonly StopReason[] = ['end_turn', 'interrupted', 'aborted', 'error'];

export interface ToolCall {
  id: string;
  name: string;
  /** The arguments object; for a custom (free-form) tool, the raw input string. */
  arguments: unknown;
  /** A free-form tool (OpenAI Responses `custom_tool_call`, e.g. Codex's apply_patch): its input is text, not JSON. */
  custom?: boolean;
}

interface EventBase {
  /** ISO time; filled in when the event is appended without one. */
  ts?: string;
  /** The turn (model request) this event belongs to, when the writer tracks it. */
  turn?: number;
}

/** Where an imported run came from: the agent's own session file. */
export interface RunSource {
  format: 'claude-code' | 'codex' | 'copilot';
  /** The session file, as it was given to the import. */
  path: string;
  /** The agent's session id and version, when the file names them. */
  session?: string;
  version?: string;
  /**
   * How faithfully the agent's requests could be rebuilt: `exact` from the request records the
   * file keeps (Claude Code 2.1.3xx `api-request`), `conversation` from its messages alone.
   */
  fidelity: 'exact' | 'conversation';
}

export interface RunStartedEvent extends EventBase {
  type: 'run_started';
  tools: string[];
  model?: string;
  agent?: string;
  /** Set on an imported run: the agent sent its own outputs, never Retained Outputs' stubs. */
  source?: RunSource;
}
export interface UserEvent extends EventBase {
  type: 'user';
  text: string;
  /** Text the agent added to the user's turn (a system reminder, a command record), not typed by the user. */
  injected?: boolean;
  /** Starts a user message of its own, even right after another (an agent that sends two in a row). */
  split?: boolean;
}
/** A `role: "system"` message the agent put into the conversation (Claude Code's attachments). */
export interface SystemEvent extends EventBase {
  type: 'system';
  text: string;
}
/**
 * A reasoning block as the provider returned it, kept verbatim: Anthropic's thinking with its
 * signature, or OpenAI's reasoning item with its encrypted content. Never stubbed.
 */
export interface Thinking {
  text: string;
  signature?: string;
  encryptedContent?: string;
}

export interface AssistantEvent extends EventBase {
  type: 'assistant';
  thinking?: Thinking[];
  text?: string;
  toolCalls?: ToolCall[];
  /**
   * The provider's id of the response this event is part of. Consecutive assistant events with
   * the same id are one response (one model call): an import splits a response whose blocks
   * come in an order one event cannot hold (text, thinking, text).
   */
  response?: string;
}

/** A tool result as content blocks, as some agents send it (Claude Code's subagent hand-back). */
export type TextBlocks = { type: 'text'; text: string }[];

export interface ToolCallFinishedEvent extends EventBase {
  type: 'tool_call_finished';
  callId: string;
  tool: string;
  /** The full result. */
  result: string;
  isError?: boolean;
  durationMs?: number;
  /** The call's arguments, for a result whose call no assistant event recorded. */
  arguments?: unknown;
  /** Set when the result was retained: the value file and what the stub was made with. */
  valueId?: string;
  bytes?: number;
  lines?: number;
  sha256?: string;
  preview?: PreviewSettings;
  /**
   * In an imported run: what the agent actually sent the model, when that is not `result`
   * (Claude Code's 2 KB persisted-output preview, Codex's truncation, content blocks).
   */
  sent?: string | TextBlocks;
  /** In an imported run: why the full output could not be recovered (its file is gone). */
  lost?: string;
}
export interface TurnEndedEvent extends EventBase {
  type: 'turn_ended';
  stopReason: StopReason;
}
/**
 * The history restarts here: later requests send the summary (as a user message), then what
 * follows. An agent's compaction, or a rewind to an earlier point (`reason: 'rewind'`).
 */
export interface CompactionEvent extends EventBase {
  type: 'compaction';
  summary?: string;
  reason?: 'manual' | 'auto' | 'rewind';
}

/**
 * The agent called the model here, sending the history before this event (from the last
 * compaction). Recorded where the agent's file says so (an import); without these, each
 * response marks the call that produced it.
 */
export interface ModelCallEvent extends EventBase {
  type: 'model_call';
}

export type TranscriptEvent = RunStartedEvent | UserEvent | SystemEvent | AssistantEvent | ToolCallFinishedEvent | TurnEndedEvent | CompactionEvent | ModelCallEvent;
export type EventType = TranscriptEvent['type'];
export const EVENT_TYPES: readonly EventType[] = ['run_started', 'user', 'system', 'assistant', 'tool_call_finished', 'turn_ended', 'compaction', 'model_call'];

/** The text of a result's content, whichever form it has. */
export function contentText(content: string | TextBlocks): string {
  return typeof content === 'string' ? content : content.map((b) => b.text).join('\n');
}

export interface ReadResult {
  events: TranscriptEvent[];
  /** Lines that could not be parsed (a torn last line after a crash), with their line numbers. */
  skipped: { line: number; reason: string }[];
}

const queues = new Map<string, Promise<unknown>>();

/** Appends one event as one line. Resolves when it is on disk (written, not fsynced). */
export function appendEvent(path: string, event: TranscriptEvent): Promise<void> {
  const stamped = event.ts ? event : { ...event, ts: new Date().toISOString() };
  const line = encodeLine(stamped);
  const previous = queues.get(path) ?? Promise.resolve();
  const next = previous.catch(() => undefined).then(() => writeLine(path, line));
  queues.set(path, next);
  const forget = () => {
    if (queues.get(path) === next) queues.delete(path);
  };
  next.then(forget, forget);
  return next;
}

const ENCODE_CHUNK = 4 << 20;

/**
 * The event as one JSON line, in parts. A big result is escaped slice by slice straight into
 * buffers, so a 200 MB result is not copied into one more 200 MB string on the way.
 */
function encodeLine(event: TranscriptEvent): Buffer[] {
  if (event.type !== 'tool_call_finished' || event.result.length <= ENCODE_CHUNK) {
    return [Buffer.from(`${JSON.stringify(event)}\n`, 'utf8')];
  }
  const { result, ...rest } = event;
  const head = JSON.stringify(rest);
  const parts = [Buffer.from(`${head.slice(0, -1)},"result":"`, 'utf8')];
  for (let at = 0; at < result.length; ) {
    let end = Math.min(result.length, at + ENCODE_CHUNK);
    // Keep a surrogate pair in one slice.
    if (end < result.length && /[\ud800-\udbff]/.test(result[end - 1]!)) end--;
    parts.push(Buffer.from(JSON.stringify(result.slice(at, end)).slice(1, -1), 'utf8'));
    at = end;
  }
  parts.push(Buffer.from('"}\n'));
  return parts;
}

/**
 * Writes a whole transcript at once, for a run made in one go (an import): to a temp file
 * beside it, then renamed into place, so the run appears whole or not at all.
 */
export async function writeEvents(path: string, events: readonly TranscriptEvent[]): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}-${Date.now()}`;
  const handle = await fs.open(tmp, 'wx', 0o644);
  try {
    try {
      for (const event of events) {
        const parts = encodeLine(event.ts ? event : { ...event, ts: new Date().toISOString() });
        await handle.writev(parts);
      }
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(tmp, path);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
}

async function writeLine(path: string, parts: Buffer[]): Promise<void> {
  const handle = await fs.open(path, 'a+');
  try {
    // A torn last line (a writer killed mid-append, a full disk) must not swallow this event.
    const { size } = await handle.stat();
    const data = [...parts];
    if (size > 0) {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, size - 1);
      if (last[0] !== 0x0a) data.unshift(Buffer.from('\n'));
    }
    // One write call for the whole line: with O_APPEND the kernel places it atomically.
    const total = data.reduce((n, b) => n + b.length, 0);
    const { bytesWritten } = await handle.writev(data);
    if (bytesWritten !== total) throw new Error(`short write: ${bytesWritten} of ${total} bytes reached ${path}`);
  } finally {
    await handle.close();
  }
}

/**
 * Reads events in order, from 0-based event position `from`, at most `limit` of them.
 * Lines that do not parse are reported in `skipped`, never fatal.
 */
export async function readEvents(path: string, from = 0, limit = Infinity): Promise<ReadResult> {
  const result: ReadResult = { events: [], skipped: [] };
  let stream;
  try {
    await fs.access(path);
    stream = createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 });
  } catch {
    return result;
  }
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let lineNo = 0;
  let position = 0;
  for await (const text of lines) {
    lineNo++;
    if (text.trim() === '') continue;
    const parsed = parseEvent(text);
    if (typeof parsed === 'string') {
      result.skipped.push({ line: lineNo, reason: parsed });
      continue;
    }
    if (position >= from && result.events.length < limit) result.events.push(parsed);
    position++;
    if (result.events.length >= limit) break;
  }
  lines.close();
  stream.destroy();
  return result;
}

export interface TailRead extends ReadResult {
  /** Byte offset just past the last complete line read: where the next read starts. */
  end: number;
  /** Lines read (for numbering the lines of the next read). */
  lines: number;
}

/**
 * Reads the events of the complete lines from byte `start` on, for a reader that follows a
 * growing transcript. A last line without its newline may still be being written, so it is
 * left for the next read (a writer ends a torn line before appending, so it is read then).
 */
export async function readEventsFrom(path: string, start = 0, lineBase = 0): Promise<TailRead> {
  const result: TailRead = { events: [], skipped: [], end: start, lines: 0 };
  let size: number;
  try {
    size = (await fs.stat(path)).size;
  } catch {
    return result;
  }
  if (size <= start) return result;
  let pending: Buffer[] = [];
  for await (const chunk of createReadStream(path, { start, end: size - 1, highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    let from = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, from)) {
      pending.push(chunk.subarray(from, nl));
      const line = Buffer.concat(pending);
      pending = [];
      result.end += line.length + 1;
      const text = line.toString('utf8');
      result.lines++;
      from = nl + 1;
      if (text.trim() === '') continue;
      const parsed = parseEvent(text);
      if (typeof parsed === 'string') result.skipped.push({ line: lineBase + result.lines, reason: parsed });
      else result.events.push(parsed);
    }
    if (from < chunk.length) pending.push(chunk.subarray(from));
  }
  return result;
}

/** The event, or a string saying why the line is not one. */
function parseEvent(text: string): TranscriptEvent | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return `not JSON (a torn line?): ${text.slice(0, 60)}`;
  }
  const problem = validateEvent(value);
  return problem ?? (value as TranscriptEvent);
}

/** undefined when `value` is a well-formed event; else what is wrong with it, naming the field. */
export function validateEvent(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'event must be an object';
  const e = value as Record<string, unknown>;
  const str = (field: string) => (typeof e[field] === 'string' ? undefined : `event.${field} must be a string`);
  const optStr = (field: string) => (e[field] === undefined || typeof e[field] === 'string' ? undefined : `event.${field} must be a string`);
  const optBool = (field: string) => (e[field] === undefined || typeof e[field] === 'boolean' ? undefined : `event.${field} must be a boolean`);
  if (e.ts !== undefined && typeof e.ts !== 'string') return 'event.ts must be a string';
  if (e.turn !== undefined && !(Number.isInteger(e.turn) && (e.turn as number) >= 0)) return 'event.turn must be a whole number';
  switch (e.type) {
    case 'run_started':
      if (!Array.isArray(e.tools) || !e.tools.every((t) => typeof t === 'string')) return 'event.tools must be an array of strings';
      return optStr('model') ?? optStr('agent') ?? validateSource(e.source);
    case 'user':
      return str('text') ?? optBool('injected') ?? optBool('split');
    case 'system':
      return str('text');
    case 'assistant': {
      const textProblem = optStr('text') ?? optStr('response');
      if (textProblem) return textProblem;
      if (e.thinking !== undefined) {
        if (!Array.isArray(e.thinking)) return 'event.thinking must be an array';
        for (const [i, t] of e.thinking.entries()) {
          const block = t as Record<string, unknown> | null;
          if (typeof block !== 'object' || block === null || typeof block.text !== 'string') return `event.thinking[${i}].text must be a string`;
          if (block.signature !== undefined && typeof block.signature !== 'string') return `event.thinking[${i}].signature must be a string`;
          if (block.encryptedContent !== undefined && typeof block.encryptedContent !== 'string') return `event.thinking[${i}].encryptedContent must be a string`;
        }
      }
      if (e.toolCalls === undefined) return undefined;
      if (!Array.isArray(e.toolCalls)) return 'event.toolCalls must be an array';
      for (const [i, call] of e.toolCalls.entries()) {
        const c = call as Record<string, unknown> | null;
        if (typeof c !== 'object' || c === null) return `event.toolCalls[${i}] must be an object`;
        if (typeof c.id !== 'string' || c.id === '') return `event.toolCalls[${i}].id must be a non-empty string`;
        if (typeof c.name !== 'string' || c.name === '') return `event.toolCalls[${i}].name must be a non-empty string`;
        if (c.custom !== undefined && c.custom !== true) return `event.toolCalls[${i}].custom must be true when given`;
        if (c.custom === true && typeof c.arguments !== 'string') return `event.toolCalls[${i}].arguments must be a string for a custom tool`;
      }
      return undefined;
    }
    case 'tool_call_finished':
      if (typeof e.callId !== 'string' || e.callId === '') return 'event.callId must be a non-empty string';
      if (e.isError !== undefined && typeof e.isError !== 'boolean') return 'event.isError must be a boolean';
      if (e.sent !== undefined && typeof e.sent !== 'string' && !isTextBlocks(e.sent)) return 'event.sent must be a string or a list of text blocks';
      return str('tool') ?? str('result') ?? optStr('valueId') ?? optStr('lost');
    case 'turn_ended':
      if (!STOP_REASONS.includes(e.stopReason as StopReason)) return `event.stopReason must be one of ${STOP_REASONS.join(', ')}`;
      return undefined;
    case 'model_call':
      return undefined;
    case 'compaction':
      if (e.reason !== undefined && !['manual', 'auto', 'rewind'].includes(e.reason as string)) return 'event.reason must be one of manual, auto, rewind';
      return optStr('summary');
    default:
      return `event.type must be one of ${EVENT_TYPES.join(', ')} (got ${JSON.stringify(e.type)})`;
  }
}

function isTextBlocks(value: unknown): value is TextBlocks {
  return Array.isArray(value) && value.every((b) => typeof b === 'object' && b !== null && (b as { type?: unknown }).type === 'text' && typeof (b as { text?: unknown }).text === 'string');
}

function validateSource(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const s = value as Record<string, unknown> | null;
  if (typeof s !== 'object' || s === null) return 'event.source must be an object';
  if (s.format !== 'claude-code' && s.format !== 'codex' && s.format !== 'copilot') return 'event.source.format must be claude-code, codex or copilot';
  if (typeof s.path !== 'string') return 'event.source.path must be a string';
  if (s.fidelity !== 'exact' && s.fidelity !== 'conversation') return 'event.source.fidelity must be exact or conversation';
  for (const key of ['session', 'version'] as const) if (s[key] !== undefined && typeof s[key] !== 'string') return `event.source.${key} must be a string`;
  return undefined;
}

/** The run's first event, or undefined while it has none. */
export async function readFirstEvent(path: string): Promise<TranscriptEvent | undefined> {
  const { events } = await readEvents(path, 0, 1);
  return events[0];
}
