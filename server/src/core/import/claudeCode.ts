/**
 * Claude Code session files (`~/.claude/projects/<slug>/<session>.jsonl`) as runs.
 *
 * What the file holds: one line per content block of a model response (lines of one response
 * share `message.id`, and Claude Code starts running tools, and writing their results, before
 * the response's last tool_use line); each tool result on a `user` line; compaction as a
 * `compact_boundary` followed by a summary; since 2.1.3xx, per model request an `api-request`
 * record (`base`: the previous request, `keep`: its messages kept, `tail`: hashes of the messages
 * added) with `api-request-blob` records for message content found nowhere else.
 *
 * Two ways to rebuild what the model was sent:
 * - exact, where the request records exist: every request's messages are resolved by hash
 *   (blobs, merged responses, grouped results), and the events are what each request added;
 *   the replay of the events then gives back each request, system reminders and `role: "system"`
 *   messages included. Checked against Claude Code's logged request bodies in the tests.
 * - from the conversation alone, for older files: the messages along the chain of `parentUuid`
 *   from the last line, responses merged, results in the order they finished, compactions. What
 *   such files do not record (reminders and attachments Claude Code added) is not there.
 */

import type { CompactionEvent, RunSource, TranscriptEvent } from '../../../../shared/events';
import { type Conversion, countKind, sessionInfo } from './conversion';
import { type Json, recordKind } from './records';
import {
  blocksOf,
  EventWriter,
  followRequests,
  messageHash,
  type SentRequest,
  type SessionFacts,
  sameMessage,
  type WireBlock,
  type WireMessage,
} from './wire';

const PERSISTED = /^<persisted-output>\n[^\n]*Full output saved to: ([^\n]+)\n/;

const isLine = (r: Json) =>
  (r.type === 'user' || r.type === 'assistant') && typeof r.message === 'object' && r.message !== null;
const messageOf = (r: Json) => r.message as WireMessage & { id?: string };
const contentBlocks = (r: Json): WireBlock[] => {
  const content = messageOf(r).content;
  return Array.isArray(content) ? content : [];
};

/** Everything the converters need to know about the file's lines, indexed once. */
class Session implements SessionFacts {
  readonly lines: Json[];
  /** Assistant lines by response (message.id), in file order. */
  readonly responses = new Map<string, Json[]>();
  /** The line holding each tool_result, by tool_use id. */
  readonly resultLines = new Map<string, Json>();
  /** Tool names by call id, from every tool_use seen. */
  readonly toolNames = new Map<string, string>();
  /** Texts the user typed (not reminders, command records or summaries). */
  readonly typed = new Set<string>();
  readonly summaries = new Map<string, Json>();

  constructor(readonly records: readonly Json[]) {
    this.lines = records.filter(isLine);
    for (const line of this.lines) {
      const message = messageOf(line);
      if (line.type === 'assistant') {
        const id = typeof message.id === 'string' ? message.id : `line-${String(line.uuid)}`;
        const list = this.responses.get(id) ?? [];
        list.push(line);
        this.responses.set(id, list);
        for (const b of contentBlocks(line))
          if (b.type === 'tool_use' && typeof b.id === 'string' && typeof b.name === 'string')
            this.toolNames.set(b.id, b.name);
        continue;
      }
      if (line.isCompactSummary === true) {
        if (typeof line.parentUuid === 'string') this.summaries.set(line.parentUuid, line);
        continue;
      }
      for (const b of contentBlocks(line))
        if (b.type === 'tool_result' && typeof b.tool_use_id === 'string') this.resultLines.set(b.tool_use_id, line);
      if (line.isMeta === true) continue;
      const texts =
        typeof message.content === 'string'
          ? [message.content]
          : contentBlocks(line).flatMap((b) => (b.type === 'text' && typeof b.text === 'string' ? [b.text] : []));
      for (const text of texts) if (!text.startsWith('<')) this.typed.add(text);
    }
  }

  /** A response's lines merged back into the one message the API returned. */
  response(id: string): WireMessage {
    return { role: 'assistant', content: (this.responses.get(id) ?? []).flatMap(contentBlocks) };
  }

  /** The id of the response a message is (a copy a compaction kept, say). */
  responseIdOf(message: WireMessage): string | undefined {
    for (const id of this.responses.keys()) if (sameMessage(this.response(id), message)) return id;
    return undefined;
  }

  isTyped(text: string): boolean {
    return this.typed.has(text);
  }

  toolName(callId: string): string | undefined {
    return this.toolNames.get(callId);
  }

  resultTime(callId: string): string | undefined {
    const time = this.resultLines.get(callId)?.timestamp;
    return typeof time === 'string' ? time : undefined;
  }

  /** Claude Code's `<persisted-output>`: the file the full output went to. */
  savedOutput(sent: string): string | undefined {
    return PERSISTED.exec(sent)?.[1]?.trim();
  }

  /** Call ids of a response's tool uses. */
  callsOf(id: string): string[] {
    return blocksOf(this.response(id)).flatMap((b) => (b.type === 'tool_use' ? [String(b.id)] : []));
  }
}

interface Rebuilt extends SentRequest {
  id: string;
}

/** Every request the records describe, resolved to its messages; or why that cannot be done. */
function rebuildRequests(session: Session): Rebuilt[] | string {
  const blobs = new Map<string, WireMessage>();
  for (const r of session.records)
    if (r.type === 'api-request-blob' && typeof r.hash === 'string' && r.message)
      blobs.set(r.hash, r.message as WireMessage);
  const candidates = new Map<string, WireMessage>();
  const add = (message: WireMessage) => candidates.set(messageHash(message), message);
  for (const id of session.responses.keys()) {
    add(session.response(id));
    // Its results as one user message, in the order they were written (finished).
    const calls = new Set(session.callsOf(id));
    const results = session.lines.filter(
      (l) =>
        l.type === 'user' && contentBlocks(l).some((b) => b.type === 'tool_result' && calls.has(String(b.tool_use_id))),
    );
    if (results.length) add({ role: 'user', content: results.flatMap(contentBlocks) });
  }
  for (const line of session.lines) if (line.type === 'user') add({ role: 'user', content: messageOf(line).content });

  const built = new Map<string, Rebuilt>();
  const requests: Rebuilt[] = [];
  for (const r of session.records) {
    if (r.type !== 'api-request' || typeof r.id !== 'string' || !Array.isArray(r.tail)) continue;
    const base = typeof r.base === 'string' ? built.get(r.base) : undefined;
    if (typeof r.base === 'string' && !base)
      return `request ${requests.length + 1} builds on a request the file does not have`;
    const keep = typeof r.keep === 'number' ? r.keep : 0;
    const messages = base ? base.messages.slice(0, keep) : [];
    for (const [i, hash] of (r.tail as unknown[]).entries()) {
      const message = typeof hash === 'string' ? (blobs.get(hash) ?? candidates.get(hash)) : undefined;
      if (!message)
        return `request ${requests.length + 1}: message ${keep + i + 1} (hash ${String(hash).slice(0, 12)}) is in no record of the file`;
      messages.push(message);
    }
    const request = { id: r.id, ts: typeof r.timestamp === 'string' ? r.timestamp : undefined, messages };
    built.set(r.id, request);
    requests.push(request);
  }
  return requests;
}

function exactConversion(session: Session, requests: readonly Rebuilt[], start: TranscriptEvent): Conversion | string {
  const writer = new EventWriter(session);
  writer.events.push(start);
  const problem = followRequests(writer, requests, {
    restart(request, previous) {
      // The history restarted: a compaction (its summary comes first), or a rewind.
      const first = request.messages[0];
      const summary = first && summaryOf(session, first);
      const boundary = boundaryBetween(session.records, previous?.id, request.id);
      const reason = (boundary?.compactMetadata as Json | undefined)?.trigger;
      const compaction: CompactionEvent = {
        type: 'compaction',
        ...(summary !== undefined ? { summary } : {}),
        reason: boundary ? (reason === 'auto' ? 'auto' : 'manual') : 'rewind',
        ...(typeof boundary?.timestamp === 'string' ? { ts: boundary.timestamp } : {}),
      };
      return { compaction, summaryMessage: summary !== undefined };
    },
    answered(request) {
      // The response to this request, from its lines.
      for (const [id, lines] of session.responses) {
        if (lines[0]?.requestRef !== request.id) continue;
        writer.response(
          blocksOf(session.response(id)),
          id,
          typeof lines[0].timestamp === 'string' ? lines[0].timestamp : undefined,
        );
      }
    },
  });
  if (problem) return problem;
  // Results of the last response: written, never sent.
  const last = writer.events[writer.events.length - 1];
  if (last?.type === 'assistant' && last.response) {
    const calls = new Set(session.callsOf(last.response));
    for (const line of session.lines) {
      if (line.type !== 'user') continue;
      for (const b of contentBlocks(line))
        if (b.type === 'tool_result' && calls.has(String(b.tool_use_id)))
          writer.result(b, typeof line.timestamp === 'string' ? line.timestamp : undefined);
    }
  }
  return {
    format: 'claude-code',
    events: writer.events,
    fidelity: 'exact',
    outputs: writer.outputs,
    skipped: {},
    notes: dedupe(writer.notes),
  };
}

/** The summary text when `message` is the summary a compaction left. */
function summaryOf(session: Session, message: WireMessage): string | undefined {
  if (message.role !== 'user') return undefined;
  const text =
    blocksOf(message).length === 1 && blocksOf(message)[0]!.type === 'text'
      ? String(blocksOf(message)[0]!.text)
      : undefined;
  for (const line of session.summaries.values()) {
    const content = messageOf(line).content;
    const own =
      typeof content === 'string'
        ? content
        : contentBlocks(line)
            .map((b) => String(b.text ?? ''))
            .join('\n');
    if (own === text) return text;
  }
  return undefined;
}

/** The compact_boundary record between two api-request records, if any. */
function boundaryBetween(records: readonly Json[], from: string | undefined, to: string): Json | undefined {
  let inside = from === undefined;
  for (const r of records) {
    if (r.type === 'api-request' && r.id === from) inside = true;
    else if (r.type === 'api-request' && r.id === to) return undefined;
    else if (inside && r.type === 'system' && r.subtype === 'compact_boundary') return r;
  }
  return undefined;
}

/**
 * The lines of the conversation the file ends on: the parentUuid chain from its last line
 * (across compactions), so branches a rewind left behind are out; with every line of the
 * responses on it and the results of their calls, which hang off the chain as siblings (each
 * parallel result points at its own tool_use line). A file without the links is taken whole.
 */
function chainOf(session: Session): Set<Json> {
  const main = session.lines.some((l) => l.isSidechain !== true)
    ? session.lines.filter((l) => l.isSidechain !== true)
    : session.lines;
  if (!main.some((l) => typeof l.parentUuid === 'string')) return new Set(main);
  const byUuid = new Map<string, Json>();
  for (const r of session.records) if (typeof r.uuid === 'string') byUuid.set(r.uuid, r);
  const chain = new Set<Json>();
  for (let at: Json | undefined = main[main.length - 1]; at && !chain.has(at); ) {
    chain.add(at);
    const parent =
      typeof at.parentUuid === 'string'
        ? at.parentUuid
        : typeof at.logicalParentUuid === 'string'
          ? at.logicalParentUuid
          : undefined;
    at = parent ? byUuid.get(parent) : undefined;
  }
  const responses = new Set(
    [...chain].flatMap((l) =>
      l.type === 'assistant' && typeof messageOf(l).id === 'string' ? [messageOf(l).id!] : [],
    ),
  );
  const calls = new Set([...responses].flatMap((id) => session.callsOf(id)));
  for (const line of main) {
    if (line.type === 'assistant' && responses.has(messageOf(line).id ?? '')) chain.add(line);
    if (
      line.type === 'user' &&
      contentBlocks(line).some((b) => b.type === 'tool_result' && calls.has(String(b.tool_use_id)))
    )
      chain.add(line);
  }
  return chain;
}

function conversationConversion(session: Session, start: TranscriptEvent, why: string | undefined): Conversion {
  const writer = new EventWriter(session);
  writer.events.push(start);
  const chain = chainOf(session);
  const byUuid = new Map<string, Json>();
  for (const r of session.records) if (typeof r.uuid === 'string') byUuid.set(r.uuid, r);
  const done = new Set<string>();
  const emit = (line: Json) => {
    const ts = typeof line.timestamp === 'string' ? line.timestamp : undefined;
    if (line.type === 'assistant') {
      const id = typeof messageOf(line).id === 'string' ? messageOf(line).id! : `line-${String(line.uuid)}`;
      if (done.has(id)) return;
      done.add(id);
      // The whole response here, at its first line: later lines of it come after results already.
      writer.response(blocksOf(session.response(id)), id, ts);
      // Lines of a file without request records merge as the API merges consecutive user messages.
    } else if (line.isCompactSummary !== true) writer.message(messageOf(line), ts, { continues: true });
  };
  for (const record of session.records) {
    if (!chain.has(record)) continue;
    if (record.type === 'system' && record.subtype === 'compact_boundary') {
      const summary = session.summaries.get(String(record.uuid));
      const content = summary ? messageOf(summary).content : undefined;
      const meta = record.compactMetadata as Json | undefined;
      writer.events.push({
        type: 'compaction',
        ...(summary
          ? {
              summary:
                typeof content === 'string'
                  ? content
                  : contentBlocks(summary)
                      .map((b) => String(b.text ?? ''))
                      .join('\n'),
            }
          : {}),
        reason: meta?.trigger === 'auto' ? 'auto' : 'manual',
        ...(typeof record.timestamp === 'string' ? { ts: record.timestamp } : {}),
      });
      // Messages the compaction kept verbatim come again after the summary.
      done.clear();
      const preserved = ((meta?.preservedMessages as Json | undefined)?.uuids as unknown[] | undefined) ?? [];
      for (const uuid of preserved) {
        const line = byUuid.get(String(uuid));
        if (line && isLine(line)) emit(line);
      }
      continue;
    }
    if (isLine(record)) emit(record);
  }
  const notes = [
    ...(why ? [`the requests were rebuilt from the conversation, not exactly: ${why}`] : []),
    ...writer.notes,
  ];
  return {
    format: 'claude-code',
    events: writer.events,
    fidelity: 'conversation',
    outputs: writer.outputs,
    skipped: {},
    notes: dedupe(notes),
  };
}

/** Kinds of records that are part of the conversation or of rebuilding its requests. */
const USED = new Set(['user', 'assistant', 'system/compact_boundary', 'api-request', 'api-request-blob']);

export function convertClaudeCode(records: readonly Json[], path: string): Conversion {
  const session = new Session(records);
  const model = session.lines
    .map((l) => l.message as Json)
    .find((m) => m.role === 'assistant' && typeof m.model === 'string');
  const info = sessionInfo(records, 'sessionId', 'version');
  const start = (fidelity: RunSource['fidelity']): TranscriptEvent => ({
    type: 'run_started',
    tools: [...new Set(session.toolNames.values())],
    agent: 'claude-code',
    ...(model ? { model: model.model as string } : {}),
    source: { format: 'claude-code', path, ...info, fidelity },
    ...firstTimestamp(records),
  });
  const hasRequests = records.some((r) => r.type === 'api-request');
  const requests = hasRequests
    ? rebuildRequests(session)
    : 'the file has no request records (Claude Code before 2.1.3xx)';
  const exact = typeof requests === 'string' ? requests : exactConversion(session, requests, start('exact'));
  const conversion =
    typeof exact === 'string'
      ? conversationConversion(session, start('conversation'), hasRequests ? exact : undefined)
      : exact;
  for (const r of records) {
    const kind = recordKind(r);
    if (USED.has(kind) || USED.has(String(r.type))) continue;
    // Attachments reach the model as the text they render to, which an exact rebuild imports.
    if (conversion.fidelity === 'exact' && r.type === 'attachment') continue;
    countKind(conversion.skipped, kind);
  }
  return conversion;
}

/** The time of the file's first record that has one, for the run_started event. */
export function firstTimestamp(records: readonly Json[]): { ts?: string } {
  const at = records.find((r) => typeof r.timestamp === 'string');
  return at ? { ts: at.timestamp as string } : {};
}

function dedupe(notes: string[]): string[] {
  return [...new Set(notes)];
}
