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
import { APPEND, CREATE_NEW, openFile, READ } from './safeFs';
import type { PreviewSettings } from './stub';

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

/**
 * A tool's result. Its body is in the event (`result`) or, once retained, only in its value
 * file (`valueId`, with the stub the model got and the sizes the figures need): a run's
 * transcript then stays as small as what the model saw, and reading it never reads a retained
 * output. The value is durable, immutable and hashed before the event is written.
 */
export interface ToolCallFinishedEvent extends EventBase {
  type: 'tool_call_finished';
  callId: string;
  tool: string;
  /** The full result, when it is kept here rather than in a value file. */
  result?: string;
  isError?: boolean;
  durationMs?: number;
  /** The call's arguments, for a result whose call no assistant event recorded. */
  arguments?: unknown;
  /** Set when the result was retained: its value file, size, hash and stub. */
  valueId?: string;
  bytes?: number;
  lines?: number;
  sha256?: string;
  /** The stub the model got, as it was sent. */
  stub?: string;
  /** The full result's size as a JSON string, and its tokens (estimated), for figures without reading it. */
  jsonBytes?: number;
  tokens?: number;
  /** The settings an older event's stub was made with (it carries `result`, not `stub`). */
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

/** The longest line a writer makes: an event whose line would be longer is refused (its result belongs in a value). */
export const EVENT_LINE_MAX_BYTES = 64 << 20;
/** The longest line a reader reads; a longer one (a store from an older version, a hostile file) is skipped, never built. */
export const READ_LINE_MAX_BYTES = 256 << 20;

/** An event too big for one line; the caller stores its result in a value instead. */
export class LineTooLong extends Error {}

const queues = new Map<string, Promise<unknown>>();

/**
 * Appends one event as one line. Resolves when it is on disk (written, not fsynced); a failed
 * or short write takes back what it wrote, so the transcript is as it was.
 */
export function appendEvent(root: string, path: string, event: TranscriptEvent): Promise<void> {
  const stamped = event.ts ? event : { ...event, ts: new Date().toISOString() };
  const line = encodeLine(stamped);
  const bytes = line.reduce((n, b) => n + b.length, 0);
  if (bytes > EVENT_LINE_MAX_BYTES) return Promise.reject(new LineTooLong(`the event is ${bytes} bytes as JSON, over the ${EVENT_LINE_MAX_BYTES}-byte limit of one transcript line`));
  const previous = queues.get(path) ?? Promise.resolve();
  const next = previous.catch(() => undefined).then(() => writeLine(root, path, line));
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
  if (event.type !== 'tool_call_finished' || event.result === undefined || event.result.length <= ENCODE_CHUNK) {
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
 * beside it, then linked into place (failing if a transcript is there), so the run appears
 * whole or not at all.
 */
export async function writeEvents(root: string, path: string, events: readonly TranscriptEvent[]): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}-${Date.now()}`;
  const handle = await openFile(root, tmp, CREATE_NEW);
  try {
    try {
      for (const event of events) {
        const parts = encodeLine(event.ts ? event : { ...event, ts: new Date().toISOString() });
        if (parts.reduce((n, b) => n + b.length, 0) > EVENT_LINE_MAX_BYTES) throw new LineTooLong(`an event of the run is over the ${EVENT_LINE_MAX_BYTES}-byte limit of one transcript line`);
        await handle.writev(parts);
      }
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.link(tmp, path);
  } finally {
    await fs.rm(tmp, { force: true });
  }
}

async function writeLine(root: string, path: string, parts: Buffer[]): Promise<void> {
  const handle = await openFile(root, path, APPEND);
  try {
    // A torn last line (a writer killed mid-append) must not swallow this event.
    const { size } = await handle.stat();
    const data = [...parts];
    if (size > 0) {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, size - 1);
      if (last[0] !== 0x0a) data.unshift(Buffer.from('\n'));
    }
    // One write call for the whole line: with O_APPEND the kernel places it atomically.
    const total = data.reduce((n, b) => n + b.length, 0);
    let written = 0;
    try {
      written = (await handle.writev(data)).bytesWritten;
      if (written !== total) throw new Error(`short write: ${written} of ${total} bytes reached ${path}`);
    } catch (err) {
      // Take back a partial line (a full disk), unless another writer appended after it.
      const now = (await handle.stat().catch(() => undefined))?.size;
      if (now !== undefined && now > size && now <= size + total) await handle.truncate(size).catch(() => undefined);
      throw err;
    }
  } finally {
    await handle.close();
  }
}

export interface TailRead extends ReadResult {
  /** Byte offset just past the last complete line read: where the next read starts. */
  end: number;
  /** Lines read (for numbering the lines of the next read). */
  lines: number;
}

/**
 * Reads the events of the complete lines from byte `start` on, a chunk at a time: for a reader
 * that follows a growing transcript, and for reading a whole one (`start` 0). A last line
 * without its newline may still be being written, so it is left for the next read (a writer
 * ends a torn line before appending, so it is read then). A line over READ_LINE_MAX_BYTES is
 * reported in `skipped` without being held.
 */
export async function readEventsFrom(
  root: string,
  path: string,
  start = 0,
  lineBase = 0,
  page: { from: number; limit: number; final?: boolean } = { from: 0, limit: Infinity },
): Promise<TailRead> {
  const result: TailRead = { events: [], skipped: [], end: start, lines: 0 };
  let handle;
  try {
    handle = await openFile(root, path, READ);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return result;
    throw err;
  }
  try {
    const chunk = Buffer.allocUnsafe(1 << 20);
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let position = start;
    let index = 0;
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      let from = 0;
      for (let nl = chunk.indexOf(0x0a, 0); nl !== -1 && nl < bytesRead; nl = chunk.indexOf(0x0a, from)) {
        const lineBytes = pendingBytes + (nl - from);
        const oversized = lineBytes > READ_LINE_MAX_BYTES;
        const line = oversized ? undefined : Buffer.concat([...pending, chunk.subarray(from, nl)], lineBytes);
        pending = [];
        pendingBytes = 0;
        result.end += lineBytes + 1;
        result.lines++;
        from = nl + 1;
        if (oversized) {
          result.skipped.push({ line: lineBase + result.lines, reason: `a line of ${lineBytes} bytes, over the ${READ_LINE_MAX_BYTES}-byte limit of a transcript line` });
          continue;
        }
        const text = line!.toString('utf8');
        if (text.trim() === '') continue;
        const parsed = parseEvent(text);
        if (typeof parsed === 'string') result.skipped.push({ line: lineBase + result.lines, reason: parsed });
        else if (index++ >= page.from) result.events.push(parsed);
        if (result.events.length >= page.limit) return result;
      }
      if (from < bytesRead) {
        const part = chunk.subarray(from, bytesRead);
        pendingBytes += part.length;
        // Past the cap, only count the line's bytes: it is skipped whole.
        if (pendingBytes <= READ_LINE_MAX_BYTES) pending.push(Buffer.from(part));
        else pending = [];
      }
    }
    // A last line with no newline: a torn write, reported by a final read; a follower waits for its end.
    if (page.final && pendingBytes > 0 && pendingBytes <= READ_LINE_MAX_BYTES) {
      const parsed = parseEvent(Buffer.concat(pending, pendingBytes).toString('utf8'));
      if (typeof parsed === 'string') result.skipped.push({ line: lineBase + result.lines + 1, reason: parsed });
    }
  } finally {
    await handle.close();
  }
  return result;
}

/**
 * Reads events in order, from 0-based event position `from`, at most `limit` of them. Lines
 * that do not parse are reported in `skipped`, never fatal.
 */
export async function readEvents(root: string, path: string, from = 0, limit = Infinity): Promise<ReadResult> {
  const { events, skipped } = await readEventsFrom(root, path, 0, 0, { from, limit, final: true });
  return { events, skipped };
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
      if (e.result === undefined && (typeof e.valueId !== 'string' || typeof e.stub !== 'string' || typeof e.bytes !== 'number' || typeof e.lines !== 'number')) {
        return 'event.result must be a string (or the event names its value: valueId, stub, bytes, lines)';
      }
      return str('tool') ?? optStr('result') ?? optStr('valueId') ?? optStr('stub') ?? optStr('lost');
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
export async function readFirstEvent(root: string, path: string): Promise<TranscriptEvent | undefined> {
  const { events } = await readEvents(root, path, 0, 1);
  return events[0];
}
