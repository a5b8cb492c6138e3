/**
 * Imports an agent's session file as a run: read (bounded, as a stream), convert (pure), then
 * write, and only then: a file that cannot be read, or holds no conversation, or a run id that
 * is taken, creates nothing. Full outputs the agent kept beside the session (Claude Code's
 * `tool-results/`) are read in, and every result over the threshold becomes a retained value,
 * so it can be opened and peeked, and the "with Retained Outputs" view can show its stub.
 */
import { lstat, readdir } from 'node:fs/promises';
import { basename, dirname, extname, isAbsolute, join, resolve } from 'node:path';
import type { ImportFormat } from '../../../../shared/agents';
import { agentName } from '../../../../shared/agents';
import { contentText } from '../../../../shared/blocks';
import { check } from '../../../../shared/check';
import type { ToolCallFinishedEvent, TranscriptEvent } from '../../../../shared/events';
import { InvalidInput } from '../../../../shared/invalidInput';
import { type IfExists, ImportParams, type ImportResult } from '../../../../shared/protocol';
import { findMarkers, marker } from '../../../../shared/stubText';
import type { Context } from '../context';
import type { Retainer } from '../retain/retainer';
import { Yielder } from '../yielder';
import { claudeCodeRecord, convertClaudeCode } from './claudeCode';
import { convertCline, isClineSession } from './cline';
import { codexRecord, convertCodex } from './codex';
import { type Conversion, titleOf } from './conversion';
import { convertCopilotChat, isCopilotChatReplay } from './copilotChat';
import { convertCopilotCli, copilotCliRecord, isCopilotCliEvent } from './copilotCli';
import { convertGemini, isGeminiChat } from './gemini';
import { convertQwen, isQwenRecord, qwenRecord } from './qwen';
import { type Json, readSessionJson, readSessionRecords, UnreadableSession } from './records';
import { RunExists } from './runExists';

export function detectFormat(records: readonly Json[]): ImportFormat | undefined {
  for (const r of records) {
    if ('payload' in r && typeof r.type === 'string') return 'codex';
    if (isQwenRecord(r)) return 'qwen-code';
    if (isCopilotCliEvent(r)) return 'copilot-cli';
    if (isGeminiChat(r)) return 'gemini-cli';
    // Only a record with a message tells: other agents' bookkeeping records carry a sessionId too.
    if ('message' in r) return 'claude-code';
  }
  return undefined;
}

export class Importer {
  /** Runs are prepared for their first open one at a time (see `prepare`), after the imports' answers. */
  private preparing: Promise<void> = Promise.resolve();

  constructor(
    private readonly ctx: Context,
    private readonly retainer: Retainer,
    /** Where a relative path is read from. */
    private readonly workspace: string,
    /** Computes what opening an imported run shows first (its index), after the answer. */
    private readonly prepare: (runId: string) => Promise<void> = async () => undefined,
  ) {}

  /**
   * Imports a session (and its subagents' sessions). With `signal`, it can be cancelled. Cancelled
   * or failed, what it wrote so far is removed, and nothing of it is kept.
   */
  async import(input: ImportParams, signal?: AbortSignal): Promise<ImportResult> {
    const written: string[] = [];
    try {
      const result = await this.importOne(input, signal, written);
      for (const runId of written)
        this.preparing = this.preparing.then(() => this.prepare(runId)).catch(() => undefined);
      return result;
    } catch (err) {
      // A failed or cancelled import keeps nothing it wrote (a run it enriched stays as it is now),
      // so it can be tried again.
      for (const runId of written)
        await this.ctx.writing(runId, () => this.ctx.runs.delete(runId)).catch(() => undefined);
      if (!signal?.aborted) throw err;
      throw new InvalidInput('the import was cancelled; nothing of it was kept');
    }
  }

  private async importOne(
    input: ImportParams,
    signal: AbortSignal | undefined,
    written: string[],
    /** Where its saved outputs are, when not in its own folder (a subagent's are in its session's). */
    outputsIn?: string,
  ): Promise<ImportResult> {
    const params = check(ImportParams, input);
    const path = isAbsolute(params.path) ? params.path : resolve(this.workspace, params.path);
    signal?.throwIfAborted();
    const { conversion, skippedLines } = await convert(path, params.format);
    signal?.throwIfAborted();
    const format = conversion.format;
    const start = conversion.events[0];
    const title = titleOf(conversion.events);
    if (start?.type === 'run_started' && start.source && title) start.source.title = title;
    if (!conversion.events.some((e) => e.type === 'user' || e.type === 'assistant')) {
      throw new InvalidInput(
        `${path} holds no ${agentName(format)} conversation${params.format ? ' (is the format right?)' : ''}`,
      );
    }
    const { runId, name, live } = await this.claimRunId(
      params.runId ?? conversion.name ?? basename(path, extname(path)),
      params.ifExists ?? 'error',
      conversion,
    );
    const sessionDir = path.slice(0, -extname(path).length || undefined);
    const { files: outputs, lost: lostOutputs } = await findOutputs(
      conversion,
      conversion.outputsDir ?? outputsIn ?? join(sessionDir, 'tool-results'),
    );
    signal?.throwIfAborted();

    const result = await this.ctx.writing(runId, () =>
      live
        ? this.enrichRun(runId, live, conversion, outputs, signal)
        : this.writeRun(runId, name, conversion, outputs, signal),
    );
    // A cancelled import takes back the runs it made; a live run it enriched stays as it is now.
    if (!live) written.push(runId);
    const subagents: ImportResult[] = [];
    if (format === 'claude-code' && params.subagents !== false) {
      // Only the session's own folder: a subagents folder or file that is a link is not followed.
      const dir = join(sessionDir, 'subagents');
      const names = (await realFolder(sessionDir)) && (await realFolder(dir)) ? await readdir(dir) : [];
      const files: string[] = [];
      for (const name of names.filter((f) => f.endsWith('.jsonl')).sort())
        if ((await lstat(join(dir, name)).catch(() => undefined))?.isFile()) files.push(name);
      for (const file of files) {
        subagents.push(
          await this.importOne(
            {
              path: join(dir, file),
              format,
              runId: `${name}-${basename(file, '.jsonl')}`,
              ifExists: params.ifExists ?? 'error',
              subagents: false,
            },
            signal,
            written,
            join(sessionDir, 'tool-results'),
          ),
        );
      }
    }
    const { kept, ...made } = result;
    return {
      ...made,
      name,
      format,
      ...(live ? { enriched: live.values } : {}),
      fidelity: conversion.fidelity,
      lostOutputs,
      skippedLines,
      skipped: conversion.skipped,
      notes: [...conversion.notes, ...cutNote(conversion, kept)],
      subagents,
    };
  }

  /**
   * The run to import into: `name`'s, unless it is taken and `ifExists` says otherwise. A run of
   * the same conversation (the one Retained Outputs' hook or MCP server wrote while the agent ran,
   * under the session's id) is the run itself: the import enriches it, whatever `ifExists` says.
   * `replace` never deletes a run whose values a model was sent stubs of: it is refused.
   */
  private async claimRunId(
    name: string,
    ifExists: IfExists,
    conversion: Conversion,
  ): Promise<{ runId: string; name: string; live?: LiveRun }> {
    const { store, runs } = this.ctx;
    const runId = await runs.key(name);
    if (!(await store.runExists(runId))) return { runId, name };
    const existing = await store.readEvents(runId);
    const live = liveRun(existing.events, conversion, (await store.readRunMeta(runId))?.name ?? runId);
    if (live) return { runId, name, live };
    if (ifExists === 'error') throw new RunExists(runId);
    if (ifExists === 'replace') {
      const sent = stubsSent(existing.events);
      if (sent.size)
        throw new InvalidInput(
          `run ${runId} holds ${sent.size} value${sent.size > 1 ? 's' : ''} whose stub${sent.size > 1 ? 's' : ''} a model was sent (${[...sent].slice(0, 3).join(', ')}${sent.size > 3 ? ', …' : ''}); replacing the run would leave ${sent.size > 1 ? 'them' : 'it'} pointing at nothing, so it is not replaced. Import as a new run (ifExists "new"), or delete the run first`,
        );
      await this.ctx.writing(runId, () => runs.delete(runId));
      return { runId, name };
    }
    for (let n = 2; ; n++) {
      const next = await runs.key(`${name}-${n}`);
      if (!(await store.runExists(next))) return { runId: next, name: `${name}-${n}` };
    }
  }

  /**
   * Enriches a live run with the conversation its agent's file records: the file's events in
   * place of the run's, every result the run retained keeping its value (the stub the model got
   * named it), and any result the file does not have (recorded after it was read) kept after them.
   * The transcript is replaced at once, under the run's lock; no value is removed.
   */
  private async enrichRun(
    runId: string,
    live: LiveRun,
    conversion: Conversion,
    outputs: ReadonlyMap<string, string>,
    signal?: AbortSignal,
  ): Promise<Written> {
    const { store } = this.ctx;
    // The values first, outside the lock (a big one streams), for results the run has none of.
    const staged = await this.storeValues(runId, conversion, outputs, signal, live.byCall);
    return store.locked(runId, async () => {
      // Read again under the lock: an agent may have appended since.
      const { events: now } = await store.readEvents(runId);
      const byCall = retainedByCall(now);
      const covered = new Set<string>();
      const claimed = new Set<string>();
      const events = staged.events.map((event) => {
        if (event.type !== 'tool_call_finished') return event;
        covered.add(event.callId);
        const kept = keptFor(event, byCall, claimed);
        if (!kept) return event;
        covered.add(kept.callId);
        if (kept.valueId) claimed.add(kept.valueId);
        const { result: _result, ...rest } = event;
        return {
          ...rest,
          ...pick(kept, ['valueId', 'bytes', 'lines', 'sha256', 'stub', 'jsonBytes', 'tokens', 'preview', 'withheld']),
          ...(kept.withheld ? { result: event.result ?? kept.result ?? '' } : {}),
          sent: event.sent ?? event.result ?? kept.stub ?? '',
        } satisfies ToolCallFinishedEvent;
      });
      // Results the file does not have yet (recorded after it was read) stay, after its events;
      // the rest of the run's events are what the file now holds again. A small result recorded
      // before the file's end that the file does not name is one of its calls under another id
      // (Gemini CLI names no call to its hooks): it is not added again.
      const end = staged.events.at(-1)?.ts ?? '';
      const rest = now.filter(
        (e) =>
          e.type === 'tool_call_finished' && !covered.has(e.callId) && (e.valueId !== undefined || (e.ts ?? '') > end),
      );
      const merged = [...events, ...rest];
      await store.replaceTranscript(runId, merged);
      this.ctx.runs.forget(runId, true);
      return { runId, events: merged.length, toolCalls: staged.toolCalls, ...keptOf(merged) };
    });
  }

  /** Stores the values, then the transcript; on a failure, removes what it wrote. */
  private async writeRun(
    runId: string,
    name: string,
    conversion: Conversion,
    outputs: ReadonlyMap<string, string>,
    signal?: AbortSignal,
  ): Promise<Written> {
    try {
      const { events, toolCalls } = await this.storeValues(runId, conversion, outputs, signal);
      const start = conversion.events[0];
      await this.retainer.writeTranscript(runId, name, events, start?.ts);
      return { runId, events: events.length, toolCalls, ...keptOf(events) };
    } catch (err) {
      await this.ctx.runs.delete(runId).catch(() => undefined);
      throw err;
    }
  }

  /**
   * The conversion's events with every result over the threshold stored as a value (but those
   * `skip` has): a result whose full output is in a file (`outputs`) streamed from it.
   */
  private async storeValues(
    runId: string,
    conversion: Conversion,
    outputs: ReadonlyMap<string, string>,
    signal: AbortSignal | undefined,
    skip: ReadonlyMap<string, unknown> = new Map(),
  ): Promise<{ events: TranscriptEvent[]; toolCalls: number; retained: number }> {
    const events: TranscriptEvent[] = [];
    let retained = 0;
    let toolCalls = 0;
    /** Each call's arguments, from the response that made it: what its value is named after. */
    const called = new Map<string, unknown>();
    const yielder = new Yielder();
    for (const event of conversion.events) {
      await yielder.maybe();
      if (event.type === 'assistant') {
        for (const call of event.toolCalls ?? []) called.set(call.id, call.arguments);
        toolCalls += event.toolCalls?.length ?? 0;
      }
      if (event.type !== 'tool_call_finished') {
        events.push(event);
        continue;
      }
      if (!called.has(event.callId)) toolCalls++;
      signal?.throwIfAborted();
      const file = outputs.get(event.callId);
      const stored = skip.has(event.callId)
        ? event
        : file
          ? await this.retainer
              .retainImportedFile(runId, event, file, called.get(event.callId))
              .catch((err: Error) => ({
                ...event,
                lost: `the full output could not be read: ${err.message}; only the preview the model got is kept`,
              }))
          : await this.retainer.retainImported(runId, event, called.get(event.callId));
      if (stored.valueId) retained++;
      events.push(stored);
    }
    return { events, toolCalls, retained };
  }
}

/** What an import wrote: the run, its size, and the calls whose results it holds as values. */
type Written = Pick<ImportResult, 'runId' | 'events' | 'toolCalls' | 'retained'> & { kept: Set<string> };

function keptOf(events: readonly TranscriptEvent[]): Pick<Written, 'retained' | 'kept'> {
  const kept = new Set(events.flatMap((e) => (e.type === 'tool_call_finished' && e.valueId ? [e.callId] : [])));
  return { retained: kept.size, kept };
}

/** What the agent cut and the run does not hold whole, said once. */
function cutNote(conversion: Conversion, kept: ReadonlySet<string>): string[] {
  const lost = conversion.cut?.calls.filter((id) => !kept.has(id)) ?? [];
  if (!conversion.cut || lost.length === 0) return [];
  const of = `${lost.length} of ${conversion.cut.calls.length}`;
  return [`${conversion.cut.note}: ${of} such outputs were never kept whole`];
}

/** A live run of the conversation an import reads, and the results it retained, by call id. */
interface LiveRun {
  byCall: Map<string, ToolCallFinishedEvent>;
  values: number;
}

/**
 * The run is the live run of this conversation: not an import of another file (its first
 * event names no other session), named after the session it would be imported under, and
 * every call it recorded is a call of the conversation.
 */
function liveRun(events: readonly TranscriptEvent[], conversion: Conversion, name: string): LiveRun | undefined {
  const first = conversion.events[0];
  const session = first?.type === 'run_started' ? first.source?.session : undefined;
  if (!session) return undefined;
  const start = events[0];
  const source = start?.type === 'run_started' ? start.source : undefined;
  if (source ? source.session !== session : name !== session) return undefined;
  const calls = new Set(conversion.events.flatMap((e) => (e.type === 'tool_call_finished' ? [e.callId] : [])));
  const recorded = events.flatMap((e) => (e.type === 'tool_call_finished' ? [e.callId] : []));
  const byCall = retainedByCall(events);
  const stubbed = conversion.events.some(
    (e) => e.type === 'tool_call_finished' && keptFor(e, byCall) && !byCall.has(e.callId),
  );
  if (recorded.length && !recorded.some((id) => calls.has(id)) && !stubbed) return undefined;
  return { byCall, values: byCall.size };
}

/**
 * The live run's retained result an imported result is: the one of its call, or the one whose
 * whole stub it sent (a hook that wraps a command knows no call id: its value is named by the
 * stub). A result that merely mentions a stub (an output that printed an earlier one) holds
 * less than its whole text and is its own; `claimed` keeps a value to one result.
 */
function keptFor(
  event: ToolCallFinishedEvent,
  byCall: ReadonlyMap<string, ToolCallFinishedEvent>,
  claimed: ReadonlySet<string> = new Set(),
): ToolCallFinishedEvent | undefined {
  const own = byCall.get(event.callId);
  if (own) return own;
  const sent = event.sent ?? event.result;
  if (sent === undefined) return undefined;
  const text = contentText(sent);
  for (const { valueId } of findMarkers(text)) {
    const kept = [...byCall.values()].find((e) => e.valueId === valueId);
    if (kept?.stub && !claimed.has(valueId) && text.includes(kept.stub.trimEnd())) return kept;
  }
  return undefined;
}

/** The results a run retained (or a guard withheld), by call id. */
function retainedByCall(events: readonly TranscriptEvent[]): Map<string, ToolCallFinishedEvent> {
  const out = new Map<string, ToolCallFinishedEvent>();
  for (const e of events) if (e.type === 'tool_call_finished' && (e.valueId || e.withheld)) out.set(e.callId, e);
  return out;
}

/**
 * The values of a run whose stubs a model was sent: every value of a run recorded through
 * Retained Outputs, and in an imported run those its agent's requests named.
 */
export function stubsSent(events: readonly TranscriptEvent[]): Set<string> {
  const start = events[0];
  const imported = start?.type === 'run_started' && start.source !== undefined;
  const out = new Set<string>();
  for (const e of events) {
    if (e.type !== 'tool_call_finished' || !e.valueId) continue;
    if (!imported || (e.sent !== undefined && contentText(e.sent).includes(marker(e.valueId)))) out.add(e.valueId);
  }
  return out;
}

function pick<T extends object, K extends keyof T>(from: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const key of keys) if (from[key] !== undefined) out[key] = from[key];
  return out;
}

/**
 * The formats that are JSON Lines: which records a conversion holds (the rest are only counted;
 * none given: all of them), and the conversion.
 */
const LINE_FORMATS: Record<
  Exclude<ImportFormat, 'copilot-chat' | 'cline'>,
  {
    keep?: (record: Json) => Json | undefined;
    convert: (records: readonly Json[], path: string) => Promise<Conversion>;
  }
> = {
  'claude-code': { keep: claudeCodeRecord, convert: convertClaudeCode },
  codex: { keep: codexRecord, convert: convertCodex },
  'copilot-cli': { keep: copilotCliRecord, convert: convertCopilotCli },
  'gemini-cli': { convert: convertGemini },
  'qwen-code': { keep: qwenRecord, convert: convertQwen },
};

const lineFormat = (format: ImportFormat | undefined) =>
  format === undefined || format === 'copilot-chat' || format === 'cline' ? undefined : LINE_FORMATS[format];

/** Reads and converts the file: JSON Lines (LINE_FORMATS), or one JSON document (a Copilot Chat replay, a Cline session). */
async function convert(
  path: string,
  format: ImportFormat | undefined,
): Promise<{ conversion: Conversion; skippedLines: number[] }> {
  try {
    if (format === 'copilot-chat' || format === 'cline' || (format === undefined && path.endsWith('.json'))) {
      const data = await readSessionJson(path);
      if (format !== 'copilot-chat' && isClineSession(data))
        return { conversion: await convertCline(data as Json, path), skippedLines: [] };
      if (format !== 'cline' && isCopilotChatReplay(data))
        return { conversion: await convertCopilotChat(data as Json, path), skippedLines: [] };
      throw new InvalidInput(
        format === 'cline'
          ? `${path} is not a Cline session (no "sessionId" and "messages")`
          : `${path} is neither a Copilot Chat replay (no "prompts") nor a Cline session`,
      );
    }
    // The format, when not given, is the first record's that tells; records are held as that format needs them.
    let detected: ImportFormat | undefined = format;
    const read = await readSessionRecords(path, (record) => {
      detected ??= detectFormat([record]);
      const keep = lineFormat(detected)?.keep;
      return keep ? keep(record) : record;
    });
    // A file none of whose records told (no message anywhere) is Claude Code's when it names a session.
    detected ??= read.records.some((r) => 'sessionId' in r) ? 'claude-code' : undefined;
    const lines = lineFormat(detected);
    if (!lines)
      throw new InvalidInput(
        `path is not a session of an agent Retained Outputs reads (${Object.keys(LINE_FORMATS)
          .map((f) => agentName(f as ImportFormat))
          .join(', ')}): ${path}`,
      );
    const conversion = await lines.convert(read.records, path);
    for (const [kind, count] of Object.entries(read.dropped))
      conversion.skipped[kind] = (conversion.skipped[kind] ?? 0) + count;
    if (read.skippedLineCount > read.skippedLines.length)
      conversion.notes.push(
        `${read.skippedLineCount} lines were not records; the first ${read.skippedLines.length} are listed`,
      );
    return { conversion, skippedLines: read.skippedLines };
  } catch (err) {
    throw err instanceof UnreadableSession ? new InvalidInput(`path ${err.message}`) : err;
  }
}

/**
 * Where the full outputs the agent kept are: only files inside `folder` (the session's own
 * `tool-results/`, or the folder the agent keeps them in), by the name the conversion gives (a
 * path in the file is never followed), every folder on the way a real one and the file a
 * regular one, never a link. A result whose file is not there is marked lost (what the model
 * got is kept). Returns the files by call id, and how many are lost.
 */
async function findOutputs(
  conversion: Conversion,
  folder: string,
): Promise<{ files: Map<string, string>; lost: number }> {
  const files = new Map<string, string>();
  let lost = 0;
  const shown = basename(folder);
  for (const event of conversion.events) {
    if (event.type !== 'tool_call_finished') continue;
    const name = conversion.outputs.get(event.callId);
    if (!name) continue;
    const parts = name.split(/[\\/]/);
    const plain = parts.every((p) => p !== '' && p !== '.' && p !== '..');
    // The session's own folder is a real one too (a `tool-results/` inside a link is not read).
    let real = plain && (await realFolder(folder)) && (!!conversion.outputsDir || (await realFolder(dirname(folder))));
    for (let i = 1; real && i < parts.length; i++) real = await realFolder(join(folder, ...parts.slice(0, i)));
    const file = join(folder, ...parts);
    const stat = real ? await lstat(file).catch(() => undefined) : undefined;
    if (stat?.isFile()) files.set(event.callId, file);
    else {
      lost++;
      const why = !plain
        ? 'its name is not a plain name'
        : !real
          ? 'its folder is not there, or is a link (links are not followed)'
          : stat
            ? 'it is not a regular file (links are not followed)'
            : 'it is gone';
      event.lost = `the full output (${shown}/${name}) could not be read: ${why}; only what the model got is kept`;
    }
  }
  return { files, lost };
}

/** A folder that is a folder, not a link to one. */
async function realFolder(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => undefined))?.isDirectory() === true;
}
