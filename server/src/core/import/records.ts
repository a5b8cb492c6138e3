/**
 * Reads an agent's session file (JSON Lines) as records, as a stream: only a regular file,
 * within a size limit, a line at a time, so a FIFO, a device or a runaway file can neither
 * stall the server nor fill its memory. A UTF-8 byte order mark is dropped; lines that are not
 * JSON objects are counted by line number, never fatal.
 */
import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { linesOf } from '../store/jsonLines';
import { Yielder } from '../yielder';

/** Opens for reading without waiting: a FIFO would otherwise block the open until a writer comes. */
export const READ_NOW = constants.O_RDONLY | constants.O_NONBLOCK;

/** The largest session file an import reads. */
export const IMPORT_MAX_BYTES = 1 << 30;
/** The longest line kept; a longer one is skipped (no agent writes one record that big). */
export const RECORD_MAX_BYTES = 64 << 20;
/** The most line numbers an answer lists of the lines that were not records (all are counted). */
const SKIPPED_LINES_LISTED = 1000;
/** The largest session file that is one JSON document (a Copilot Chat replay), parsed whole. */
export const JSON_SESSION_MAX_BYTES = 64 << 20;

export type Json = Record<string, unknown>;

export interface SessionRecords {
  /** The records wanted, in file order. */
  records: Json[];
  /** 1-based numbers of the first lines that were not JSON objects (torn, foreign, or too long). */
  skippedLines: number[];
  /** How many lines were not JSON objects. */
  skippedLineCount: number;
  /** Records not wanted, counted by kind: they are never held. */
  dropped: Record<string, number>;
  bytes: number;
}

/** Why a file cannot be imported; the message names the path and the reason. */
export class UnreadableSession extends Error {}

/**
 * Opens a session file to read: without waiting on a FIFO, a regular file only, at most
 * `maxBytes` (`limit` says which limit, in the error).
 */
async function openSession(path: string, maxBytes: number, limit: string): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(path, READ_NOW);
  } catch (err) {
    throw new UnreadableSession(`${path} could not be opened: ${(err as Error).message}`);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new UnreadableSession(`${path} is not a regular file`);
    if (stat.size > maxBytes) throw new UnreadableSession(`${path} is ${stat.size} bytes, over ${limit}`);
    return handle;
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/**
 * Reads the records of a JSON Lines session; each is held as `wanted` gives it back (the whole
 * record, or what of it the import needs), and one it gives nothing for is counted by kind and
 * not held: a file of records the import does not use costs no memory.
 */
export async function readSessionRecords(
  path: string,
  wanted: (record: Json) => Json | undefined = (record) => record,
): Promise<SessionRecords> {
  const handle = await openSession(path, IMPORT_MAX_BYTES, `the import limit of ${IMPORT_MAX_BYTES}`);
  try {
    const out: SessionRecords = { records: [], skippedLines: [], skippedLineCount: 0, dropped: {}, bytes: 0 };
    const skip = (line: number) => {
      if (out.skippedLineCount++ < SKIPPED_LINES_LISTED) out.skippedLines.push(line);
    };
    let lineNo = 0;
    const yielder = new Yielder();
    const onRead = (bytes: number) => {
      out.bytes += bytes;
      // A file that grows past the limit while read (a FIFO pretending, a log being written) stops here.
      if (out.bytes > IMPORT_MAX_BYTES)
        throw new UnreadableSession(`${path} grew past the import limit of ${IMPORT_MAX_BYTES} bytes`);
    };
    for await (const batch of linesOf(handle, { maxLineBytes: RECORD_MAX_BYTES, onRead })) {
      for (const line of batch) {
        lineNo++;
        if ((lineNo & 255) === 0) await yielder.maybe();
        if (!line.text) {
          skip(lineNo);
          continue;
        }
        let text = line.text.toString('utf8');
        if (lineNo === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
        if (text.length === 0 || text.trim() === '') continue;
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch {
          skip(lineNo);
          continue;
        }
        if (typeof value !== 'object' || value === null || Array.isArray(value)) {
          skip(lineNo);
          continue;
        }
        const kept = wanted(value as Json);
        if (kept) out.records.push(kept);
        else {
          const kind = recordKind(value as Json);
          out.dropped[kind] = (out.dropped[kind] ?? 0) + 1;
        }
      }
    }
    return out;
  } finally {
    await handle.close();
  }
}

/** Reads a session file that is one JSON document (Copilot's chat replay), with the same limits. */
export async function readSessionJson(path: string): Promise<unknown> {
  const handle = await openSession(
    path,
    JSON_SESSION_MAX_BYTES,
    `the limit of ${JSON_SESSION_MAX_BYTES} for a session that is one JSON document`,
  );
  try {
    let text = await handle.readFile('utf8');
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    try {
      return JSON.parse(text) as unknown;
    } catch (err) {
      throw new UnreadableSession(`${path} is not JSON: ${(err as Error).message}`);
    }
  } finally {
    await handle.close();
  }
}

/** A record's kind for counting what was not imported: `type`, with its subtype where it has one. */
export function recordKind(record: Json): string {
  const type = typeof record.type === 'string' ? record.type : 'unknown';
  const sub =
    typeof record.subtype === 'string'
      ? record.subtype
      : typeof (record.attachment as Json | undefined)?.type === 'string'
        ? ((record.attachment as Json).type as string)
        : typeof (record.data as Json | undefined)?.type === 'string'
          ? ((record.data as Json).type as string)
          : typeof (record.payload as Json | undefined)?.type === 'string'
            ? ((record.payload as Json).type as string)
            : undefined;
  return sub ? `${type}/${sub}` : type;
}
