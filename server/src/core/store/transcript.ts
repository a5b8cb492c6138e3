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
import type { FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { TranscriptEvent } from '../../../../shared/events';
import type { ReadResult } from '../../../../shared/protocol';
import { linesOf } from './jsonLines';
import { tempPath } from './layout';
import type { TailRead } from './runStore';
import { APPEND, CREATE_NEW, openFile, READ, writeAll } from './safeFs';
import { parseEvent } from './storedEvent';

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
export async function appendEvent(root: string, path: string, event: TranscriptEvent): Promise<void> {
  return appendParts(root, path, eventLine(event));
}

/** An event as the line it is stored as, stamped with the time when it has none; throws when over the limit. */
export function eventLine(event: TranscriptEvent): Buffer[] {
  const line = encodeLine(event.ts ? event : { ...event, ts: new Date().toISOString() });
  const bytes = line.reduce((n, b) => n + b.length, 0);
  if (bytes > EVENT_LINE_MAX_BYTES)
    throw new LineTooLong(
      `the event is ${bytes} bytes as JSON, over the ${EVENT_LINE_MAX_BYTES}-byte limit of one transcript line`,
    );
  return line;
}

/**
 * Appends one line (in parts) to a JSON-lines file of the store: after the appends to it this
 * process already queued, in one write, never behind a torn line.
 */
export function appendParts(root: string, path: string, line: Buffer[]): Promise<void> {
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
 * whole or not at all; with `replace`, renamed over the one there (the caller holds the run's lock).
 */
export async function writeEvents(
  root: string,
  path: string,
  events: readonly TranscriptEvent[],
  replace = false,
): Promise<void> {
  const tmp = tempPath(dirname(path), path);
  const handle = await openFile(root, tmp, CREATE_NEW);
  try {
    try {
      // Lines gathered into writes of about 1 MiB: one system call per batch, not per event.
      let batch: Buffer[] = [];
      let batched = 0;
      const flush = async () => {
        await writeAll(handle, batch);
        batch = [];
        batched = 0;
      };
      for (const event of events) {
        const parts = eventLine(event);
        const size = parts.reduce((n, b) => n + b.length, 0);
        batch.push(...parts);
        batched += size;
        if (batched >= 1 << 20 || batch.length >= 512) await flush();
      }
      await flush();
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (replace) await fs.rename(tmp, path);
    else await fs.link(tmp, path);
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
  const result: TailRead = { events: [], skipped: [], offsets: [], end: start, lines: 0 };
  let handle: FileHandle;
  try {
    handle = await openFile(root, path, READ);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return result;
    throw err;
  }
  try {
    let index = 0;
    for await (const lines of linesOf(handle, { start, maxLineBytes: READ_LINE_MAX_BYTES })) {
      for (const line of lines) {
        if (line.unterminated) {
          // A torn write, reported by a final read; a follower waits for its end.
          if (page.final && line.text) {
            const parsed = parseEvent(line.text.toString('utf8'));
            if (typeof parsed === 'string') result.skipped.push({ line: lineBase + result.lines + 1, reason: parsed });
          }
          break;
        }
        result.end = line.offset + line.bytes + 1;
        result.lines++;
        if (!line.text) {
          result.skipped.push({
            line: lineBase + result.lines,
            reason: `a line of ${line.bytes} bytes, over the ${READ_LINE_MAX_BYTES}-byte limit of a transcript line`,
          });
          continue;
        }
        const text = line.text.toString('utf8');
        if (text.trim() === '') continue;
        const parsed = parseEvent(text);
        if (typeof parsed === 'string') result.skipped.push({ line: lineBase + result.lines, reason: parsed });
        else if (index++ >= page.from) {
          result.events.push(parsed);
          result.offsets.push(line.offset);
        }
        if (result.events.length >= page.limit) return result;
      }
    }
  } finally {
    await handle.close();
  }
  return result;
}

/**
 * Reads the events whose lines start at `offsets` (known from an earlier read of the same
 * file): one read of the stretch they span. Undefined when a line there is not an event any
 * more (the file is not the one the offsets came from).
 */
export async function readEventsAt(
  root: string,
  path: string,
  offsets: readonly number[],
): Promise<TranscriptEvent[] | undefined> {
  if (offsets.length === 0) return [];
  const start = offsets[0]!;
  const last = offsets[offsets.length - 1]!;
  const handle = await openFile(root, path, READ);
  try {
    // Through the end of the last line: read on until its newline (a line is at most READ_LINE_MAX_BYTES).
    let span = Buffer.allocUnsafe(last - start + 64 * 1024);
    let read = 0;
    while (span.subarray(0, read).indexOf(0x0a, last - start) === -1) {
      if (read === span.length) span = Buffer.concat([span, Buffer.allocUnsafe(span.length)]);
      const { bytesRead } = await handle.read(span, read, span.length - read, start + read);
      if (bytesRead === 0 || read - (last - start) > READ_LINE_MAX_BYTES) return undefined;
      read += bytesRead;
    }
    const lines = span.subarray(0, read);
    const events: TranscriptEvent[] = [];
    for (const offset of offsets) {
      const at = offset - start;
      const end = lines.indexOf(0x0a, at);
      if (at < 0 || end === -1) return undefined;
      const parsed = parseEvent(lines.toString('utf8', at, end));
      if (typeof parsed === 'string') return undefined;
      events.push(parsed);
    }
    return events;
  } finally {
    await handle.close();
  }
}

/**
 * Reads events in order, from 0-based event position `from`, at most `limit` of them. Lines
 * that do not parse are reported in `skipped`, never fatal.
 */
export async function readEvents(root: string, path: string, from = 0, limit = Infinity): Promise<ReadResult> {
  const { events, skipped } = await readEventsFrom(root, path, 0, 0, { from, limit, final: true });
  return { events, skipped };
}

/** The run's first event, or undefined while it has none. */
export async function readFirstEvent(root: string, path: string): Promise<TranscriptEvent | undefined> {
  const { events } = await readEvents(root, path, 0, 1);
  return events[0];
}
