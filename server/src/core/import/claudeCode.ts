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

import type {
  CompactionEvent,
  ModelCallEvent,
  RequestShapeEvent,
  RunSource,
  TranscriptEvent,
} from '../../../../shared/events';
import { Yielder } from '../yielder';
import { anthropicUsage, type Conversion, countKind, type ProviderUsage, sessionInfo } from './conversion';
import { type Json, recordKind } from './records';
import {
  blocksOf,
  EventWriter,
  followRequests,
  Messages,
  messageHash,
  normalHash,
  otherForm,
  type SentRequest,
  type SessionFacts,
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
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Everything the converters need to know about the file's lines, indexed once. */
class Session implements SessionFacts {
  readonly lines: Json[];
  /** Assistant lines by response (message.id), in file order. */
  readonly responses = new Map<string, Json[]>();
  /** The lines holding each response's results, in the order they were written (finished). */
  readonly resultsOf = new Map<string, Json[]>();
  /** The line holding each tool_result, by tool_use id. */
  readonly resultLines = new Map<string, Json>();
  /** Tool names by call id, from every tool_use seen. */
  readonly toolNames = new Map<string, string>();
  /** Texts the user typed (not reminders, command records or summaries). */
  readonly typed = new Set<string>();
  readonly summaries = new Map<string, Json>();
  private readonly merged = new Map<string, WireMessage>();
  private byHash: Map<string, string> | undefined;

  private constructor(readonly records: readonly Json[]) {
    this.lines = records.filter(isLine);
  }

  /** The session's lines indexed, a slice at a time. */
  static async of(records: readonly Json[], yielder: Yielder): Promise<Session> {
    const session = new Session(records);
    await session.index(yielder);
    return session;
  }

  private async index(yielder: Yielder): Promise<void> {
    const responseOfCall = new Map<string, string>();
    for (const line of this.lines) {
      await yielder.maybe();
      const message = messageOf(line);
      if (line.type === 'assistant') {
        const id = typeof message.id === 'string' ? message.id : `line-${String(line.uuid)}`;
        const list = this.responses.get(id) ?? [];
        list.push(line);
        this.responses.set(id, list);
        for (const b of contentBlocks(line))
          if (b.type === 'tool_use' && typeof b.id === 'string' && typeof b.name === 'string') {
            this.toolNames.set(b.id, b.name);
            responseOfCall.set(b.id, id);
          }
        continue;
      }
      if (line.isCompactSummary === true) {
        if (typeof line.parentUuid === 'string') this.summaries.set(line.parentUuid, line);
        continue;
      }
      const answers = new Set<string>();
      for (const b of contentBlocks(line))
        if (b.type === 'tool_result' && typeof b.tool_use_id === 'string') {
          this.resultLines.set(b.tool_use_id, line);
          const response = responseOfCall.get(b.tool_use_id);
          if (response) answers.add(response);
        }
      for (const response of answers) {
        const list = this.resultsOf.get(response) ?? [];
        list.push(line);
        this.resultsOf.set(response, list);
      }
      if (line.isMeta === true) continue;
      const texts =
        typeof message.content === 'string'
          ? [message.content]
          : contentBlocks(line).flatMap((b) => (b.type === 'text' && typeof b.text === 'string' ? [b.text] : []));
      for (const text of texts) if (!text.startsWith('<')) this.typed.add(text);
    }
  }

  /** A response's lines merged back into the one message the API returned (one object per response). */
  response(id: string): WireMessage {
    let message = this.merged.get(id);
    if (!message) {
      message = { role: 'assistant', content: (this.responses.get(id) ?? []).flatMap(contentBlocks) };
      this.merged.set(id, message);
    }
    return message;
  }

  /** The id of the response a message is (a copy a compaction kept, say): by its hash, the first with it. */
  responseIdOf(message: WireMessage): string | undefined {
    if (!this.byHash) {
      this.byHash = new Map();
      for (const id of this.responses.keys()) {
        const hash = normalHash(this.response(id));
        if (!this.byHash.has(hash)) this.byHash.set(hash, id);
      }
    }
    return this.byHash.get(normalHash(message));
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

  /** The provider's count of a response: from its last line that has one (each line repeats it as it grows). */
  usageOf(id: string): ProviderUsage | undefined {
    const lines = this.responses.get(id) ?? [];
    for (let i = lines.length - 1; i >= 0; i--) {
      const usage = anthropicUsage(messageOf(lines[i]!).usage);
      if (usage) return usage;
    }
    return undefined;
  }

  /** Call ids of a response's tool uses. */
  callsOf(id: string): string[] {
    return blocksOf(this.response(id)).flatMap((b) => (b.type === 'tool_use' ? [String(b.id)] : []));
  }
}

interface Rebuilt extends SentRequest {
  id: string;
  /** Indexes of messages that are a guess from the conversation (their records were missing). */
  guessed: Set<number>;
}

/** The most request records, and messages in one request, an import follows. */
const REQUESTS_MAX = 100_000;
const REQUEST_MESSAGES_MAX = 100_000;
/** The longest row of user lines tried as one message. */
const RUN_MAX = 8;
/** A request's recorded fields and cache marks are small; bigger ones are not Claude Code's and are left out. */
const FIELDS_MAX_BYTES = 64 << 10;

/** A record's object field, whether the file holds it as an object or as JSON text. */
function objectOf(value: unknown, maxBytes = Number.POSITIVE_INFINITY): Json | undefined {
  if (isObject(value)) return value;
  if (typeof value !== 'string' || value.length > maxBytes) return undefined;
  try {
    const parsed = JSON.parse(value) as unknown;
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The system prompt and tools each `api-request-shape` record holds, by its hash. */
function shapesOf(records: readonly Json[]): Map<string, RequestShapeEvent> {
  const shapes = new Map<string, RequestShapeEvent>();
  for (const r of records) {
    if (r.type !== 'api-request-shape' || typeof r.shapeHash !== 'string' || r.shapeHash.length > 128) continue;
    const shape = objectOf(r.shape);
    if (!shape) continue;
    shapes.set(r.shapeHash, {
      type: 'request_shape',
      hash: r.shapeHash,
      ...(shape.system !== undefined ? { system: shape.system } : {}),
      ...(Array.isArray(shape.tools) ? { tools: shape.tools } : {}),
      ...(typeof r.timestamp === 'string' ? { ts: r.timestamp } : {}),
    });
  }
  return shapes;
}

/** What a request's model_call records: its fields (model, max_tokens, …) and its cache marks. */
function callOf(record: Json): SentRequest['call'] {
  const fields = objectOf(record.params, FIELDS_MAX_BYTES);
  const marks = Array.isArray(record.cacheControl)
    ? record.cacheControl
        .filter(
          (m): m is { path: (string | number)[]; value: unknown } =>
            isObject(m) &&
            Array.isArray(m.path) &&
            m.path.length <= 16 &&
            m.path.every(
              (p) => (typeof p === 'string' && p.length <= 64) || (Number.isInteger(p) && (p as number) >= 0),
            ),
        )
        .slice(0, 64)
        .map((m) => ({ path: m.path, value: m.value }))
    : [];
  return {
    ...(fields && JSON.stringify(fields).length <= FIELDS_MAX_BYTES ? { fields } : {}),
    ...(marks.length ? { cacheControl: marks } : {}),
  } satisfies Partial<ModelCallEvent>;
}

/**
 * Every request the records describe, resolved to its messages by hash: a blob, or a message of
 * the conversation in either form the API reads alike (a string, or one text block). A message
 * no record holds is guessed from the lines written since the request before, and the request
 * (and every later one that keeps the guess) says so.
 */
async function rebuildRequests(session: Session, yielder: Yielder): Promise<Rebuilt[]> {
  const candidates = new Map<string, WireMessage>();
  // A message under the hash of its block form (its normal hash, kept with it), and of its string
  // form when it has one: the two forms the API reads alike, either of which Claude Code hashed.
  const add = (message: WireMessage) => {
    const hash = normalHash(message);
    if (!candidates.has(hash)) candidates.set(hash, message);
    const other = otherForm(message);
    if (other && typeof other.content === 'string') {
      const text = messageHash(other);
      if (!candidates.has(text)) candidates.set(text, message);
    } else if (typeof message.content === 'string') {
      const text = messageHash(message);
      if (!candidates.has(text)) candidates.set(text, message);
    }
  };
  for (const r of session.records)
    if (r.type === 'api-request-blob' && typeof r.hash === 'string' && isObject(r.message))
      candidates.set(r.hash, r.message as WireMessage);
  for (const id of session.responses.keys()) {
    await yielder.maybe();
    add(session.response(id));
    // Its results as one user message, in the order they were written (finished).
    const calls = new Set(session.callsOf(id));
    const lines = session.resultsOf.get(id) ?? [];
    if (lines.length)
      add({
        role: 'user',
        content: lines
          .flatMap(contentBlocks)
          .filter((b) => b.type !== 'tool_result' || calls.has(String(b.tool_use_id))),
      });
  }
  // User lines in a row go as one message (the API joins them: a rejected call's result and the
  // interrupt's text); each stretch of such a row is a candidate, at most RUN_MAX lines long.
  let run: Json[] = [];
  const stretches = () => {
    for (let from = 0; from < run.length; from++)
      for (let to = from + 1; to <= Math.min(run.length, from + RUN_MAX); to++)
        add(
          to - from === 1
            ? { role: 'user', content: messageOf(run[from]!).content }
            : { role: 'user', content: run.slice(from, to).flatMap((l) => blocksOf(messageOf(l))) },
        );
    run = [];
  };
  for (const line of session.lines) {
    await yielder.maybe();
    if (line.type === 'user' && line.isCompactSummary !== true) run.push(line);
    else stretches();
  }
  stretches();

  const shapes = shapesOf(session.records);
  const built = new Map<string, Rebuilt>();
  const requests: Rebuilt[] = [];
  /** User lines written since the last request record: where a missing message is guessed from. */
  let since: WireMessage[] = [];
  for (const r of session.records) {
    await yielder.maybe();
    if (isLine(r) && r.type === 'user') since.push({ role: 'user', content: messageOf(r).content });
    if (r.type !== 'api-request' || typeof r.id !== 'string' || !Array.isArray(r.tail)) continue;
    if (requests.length >= REQUESTS_MAX) break;
    const base = typeof r.base === 'string' ? built.get(r.base) : undefined;
    const keep =
      base && Number.isInteger(r.keep) && (r.keep as number) > 0 ? Math.min(r.keep as number, base.messages.length) : 0;
    const guessed = new Set([...(base?.guessed ?? [])].filter((i) => i < keep));
    let unresolved = typeof r.base === 'string' && !base ? `it builds on a request the file does not have` : undefined;
    if (guessed.size) unresolved ??= `it keeps a message of an earlier request that was rebuilt from the conversation`;
    const tail: WireMessage[] = [];
    let taken: Set<string> | undefined;
    for (const [i, hash] of (r.tail as unknown[]).entries()) {
      if (keep + tail.length >= REQUEST_MESSAGES_MAX) break;
      const found = typeof hash === 'string' ? candidates.get(hash) : undefined;
      if (found) {
        tail.push(found);
        continue;
      }
      unresolved ??= `message ${keep + i + 1} (hash ${String(hash).slice(0, 12)}) is in no record of the file`;
      taken ??= new Set([...Array(keep).keys()].map((j) => normalHash(base!.messages.at(j))));
      for (const m of tail) taken.add(normalHash(m));
      const guess = since.find((m) => !taken!.has(normalHash(m)));
      if (guess) {
        guessed.add(keep + tail.length);
        tail.push(guess);
      }
    }
    const messages = base ? base.messages.keeping(keep, tail) : Messages.of(tail);
    since = [];
    const shape = typeof r.shapeHash === 'string' ? shapes.get(r.shapeHash) : undefined;
    const request: Rebuilt = {
      id: r.id,
      ts: typeof r.timestamp === 'string' ? r.timestamp : undefined,
      messages,
      guessed,
      ...(shape ? { shape } : {}),
      call: callOf(r),
      ...(unresolved ? { unresolved: `request ${requests.length + 1}: ${unresolved}` } : {}),
    };
    built.set(r.id, request);
    requests.push(request);
  }
  return requests;
}

async function exactConversion(
  session: Session,
  requests: readonly Rebuilt[],
  start: TranscriptEvent,
  yielder: Yielder,
): Promise<Conversion> {
  const writer = new EventWriter(session);
  writer.push(start);
  const responsesOf = new Map<string, string[]>();
  for (const [id, lines] of session.responses) {
    const ref = lines[0]?.requestRef;
    if (typeof ref === 'string') responsesOf.set(ref, [...(responsesOf.get(ref) ?? []), id]);
  }
  const boundaryBetween = boundaries(session.records);
  const { exact } = await followRequests(writer, requests, yielder, {
    restart(request, previous) {
      // The history restarted: a compaction (its summary comes first), or a rewind.
      const first = request.messages.length ? request.messages.at(0) : undefined;
      const summary = first && summaryOf(session, first);
      const boundary = boundaryBetween(previous?.id, request.id);
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
      for (const id of responsesOf.get(request.id) ?? []) {
        const time = session.responses.get(id)?.[0]?.timestamp;
        writer.response(
          blocksOf(session.response(id)),
          id,
          typeof time === 'string' ? time : undefined,
          session.usageOf(id),
        );
      }
    },
  });
  // Results of the last response: written, never sent.
  const last = writer.events[writer.events.length - 1];
  if (last?.type === 'assistant' && last.response) {
    const calls = new Set(session.callsOf(last.response));
    for (const line of session.resultsOf.get(last.response) ?? []) {
      for (const b of contentBlocks(line))
        if (b.type === 'tool_result' && calls.has(String(b.tool_use_id)))
          writer.result(b, typeof line.timestamp === 'string' ? line.timestamp : undefined);
    }
  }
  const fidelity: RunSource['fidelity'] = exact === requests.length ? 'exact' : exact > 0 ? 'partial' : 'conversation';
  const rebuilt = writer.events.flatMap((e) => (e.type === 'model_call' && e.rebuilt ? [e.rebuilt] : []));
  if (start.type === 'run_started' && start.source) start.source.fidelity = fidelity;
  return {
    format: 'claude-code',
    events: writer.events,
    fidelity,
    outputs: writer.outputs,
    skipped: {},
    notes: dedupe([
      ...(rebuilt.length
        ? [
            `${rebuilt.length} of ${requests.length} model calls were rebuilt from the conversation, not exactly: ${rebuilt.slice(0, 3).join('; ')}${rebuilt.length > 3 ? '; …' : ''}`,
          ]
        : []),
      ...writer.notes,
    ]),
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

/** A finder of the compact_boundary record between two api-request records, if any (indexed once). */
function boundaries(records: readonly Json[]): (from: string | undefined, to: string) => Json | undefined {
  const at = new Map<string, number>();
  const found: number[] = [];
  records.forEach((r, i) => {
    if (r.type === 'api-request' && typeof r.id === 'string' && !at.has(r.id)) at.set(r.id, i);
    else if (r.type === 'system' && r.subtype === 'compact_boundary') found.push(i);
  });
  return (from, to) => {
    const start = from === undefined ? -1 : (at.get(from) ?? Number.POSITIVE_INFINITY);
    const end = at.get(to) ?? -1;
    const i = found.find((b) => b > start && b < end);
    return i === undefined ? undefined : records[i];
  };
}

/**
 * The lines of the conversation the file ends on: the parentUuid chain from its last line
 * (across compactions), so branches a rewind left behind are out; with every line of the
 * responses on it and the results of their calls, which hang off the chain as siblings (each
 * parallel result points at its own tool_use line). A file without the links is taken whole.
 */
function chainOf(session: Session): { chain: Set<Json>; unlinked: number } {
  const main = session.lines.some((l) => l.isSidechain !== true)
    ? session.lines.filter((l) => l.isSidechain !== true)
    : session.lines;
  if (!main.some((l) => typeof l.parentUuid === 'string')) return { chain: new Set(main), unlinked: 0 };
  const byUuid = new Map<string, Json>();
  for (const r of session.records) if (typeof r.uuid === 'string') byUuid.set(r.uuid, r);
  const place = new Map(session.records.map((r, i) => [r, i] as const));
  const chain = new Set<Json>();
  let unlinked = 0;
  for (let at: Json | undefined = main[main.length - 1]; at && !chain.has(at); ) {
    chain.add(at);
    const parent =
      typeof at.parentUuid === 'string'
        ? at.parentUuid
        : typeof at.logicalParentUuid === 'string'
          ? at.logicalParentUuid
          : undefined;
    const next = parent ? byUuid.get(parent) : undefined;
    // A compaction whose link names a record the file does not have (Claude Code writes some):
    // the conversation before it is the line before it in the file, never dropped.
    if (!next && parent && at.type === 'system' && at.subtype === 'compact_boundary') {
      const before = session.records
        .slice(0, place.get(at) ?? 0)
        .findLast((r) => isLine(r) && r.isSidechain !== true && !chain.has(r));
      if (before) unlinked++;
      at = before;
    } else at = next;
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
  return { chain, unlinked };
}

async function conversationConversion(
  session: Session,
  start: TranscriptEvent,
  why: string | undefined,
  yielder: Yielder,
): Promise<Conversion> {
  const writer = new EventWriter(session);
  writer.push(start);
  const { chain, unlinked } = chainOf(session);
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
      // Claude Code sends no text block of whitespace only (the API refuses one); its file keeps them.
      writer.response(
        blocksOf(session.response(id)).filter((b) => !(b.type === 'text' && String(b.text).trim() === '')),
        id,
        ts,
        session.usageOf(id),
      );
      // Lines of a file without request records merge as the API merges consecutive user messages.
    } else if (line.isCompactSummary !== true) writer.message(messageOf(line), ts, { continues: true });
  };
  for (const record of session.records) {
    await yielder.maybe();
    if (!chain.has(record)) continue;
    if (record.type === 'system' && record.subtype === 'compact_boundary') {
      const summary = session.summaries.get(String(record.uuid));
      const content = summary ? messageOf(summary).content : undefined;
      const meta = record.compactMetadata as Json | undefined;
      writer.push({
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
    ...(unlinked
      ? [
          `${unlinked === 1 ? 'a compaction names' : `${unlinked} compactions name`} a record the file does not have as what came before it: the conversation before it is taken in the file's order`,
        ]
      : []),
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

/** Kinds of records that are part of the conversation or of rebuilding its requests; every other kind is counted. */
const USED = new Set([
  'user',
  'assistant',
  'system/compact_boundary',
  'api-request',
  'api-request-blob',
  'api-request-shape',
]);

/**
 * A record as the import holds it: whole when the conversion uses its kind, else only what
 * counting it, dating the run and following the chain of lines through it need.
 */
export function claudeCodeRecord(record: Json): Json | undefined {
  if (record.type === 'user' && 'toolUseResult' in record) {
    // The tool's own answer, a second copy of the result the message holds: not needed.
    const { toolUseResult: _copy, ...line } = record;
    return line;
  }
  if (USED.has(recordKind(record)) || USED.has(String(record.type))) return record;
  // A record on no chain of lines is only counted.
  if (typeof record.uuid !== 'string') return undefined;
  const slim: Json = { type: record.type };
  for (const key of [
    'subtype',
    'uuid',
    'parentUuid',
    'logicalParentUuid',
    'isSidechain',
    'timestamp',
    'sessionId',
    'version',
  ])
    if (record[key] !== undefined && typeof record[key] !== 'object') slim[key] = record[key];
  for (const key of ['attachment', 'data', 'payload'])
    if (isObject(record[key]) && typeof (record[key] as Json).type === 'string')
      slim[key] = { type: (record[key] as Json).type };
  return slim;
}

export async function convertClaudeCode(records: readonly Json[], path: string): Promise<Conversion> {
  const yielder = new Yielder();
  const session = await Session.of(records, yielder);
  // The model Claude Code asked for is the one it prices by (its cost records name it); a served
  // name where it records none. `<synthetic>` marks its own error messages, no model's.
  const model = session.lines
    .map((l) => ({
      model: typeof l.requestedModel === 'string' ? l.requestedModel : (l.message as Json).model,
      role: (l.message as Json).role,
    }))
    .find((m) => m.role === 'assistant' && typeof m.model === 'string' && m.model !== '<synthetic>');
  const info = sessionInfo(records, 'sessionId', 'version');
  const start = (fidelity: RunSource['fidelity']): TranscriptEvent => ({
    type: 'run_started',
    tools: [...new Set(session.toolNames.values())],
    agent: 'claude-code',
    ...(model ? { model: model.model as string } : {}),
    source: { format: 'claude-code', path, ...info, fidelity },
    ...firstTimestamp(records),
  });
  const requests = records.some((r) => r.type === 'api-request') ? await rebuildRequests(session, yielder) : [];
  const exact = requests.length ? await exactConversion(session, requests, start('exact'), yielder) : undefined;
  // A file whose request records resolve to nothing (a format this version does not know) is read as a conversation.
  const conversion =
    exact && exact.fidelity !== 'conversation'
      ? exact
      : await conversationConversion(
          session,
          start('conversation'),
          exact
            ? `none of its ${requests.length} request records could be rebuilt (${exact.notes[0] ?? 'no reason given'})`
            : undefined,
          yielder,
        );
  for (const r of records) {
    const kind = recordKind(r);
    if (!USED.has(kind) && !USED.has(String(r.type))) countKind(conversion.skipped, kind);
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
