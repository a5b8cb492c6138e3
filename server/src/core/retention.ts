/**
 * The retention service: the one entry point every front end (language server, tests, a
 * future CLI or MCP server) calls. It wires ids → store → stub → transcript for a retain,
 * ids → store → peek for a peek, and transcript → replay for a replay.
 */
import { EventEmitter } from 'node:events';
import { pathToFileURL } from 'node:url';
import { isSanitizedId, sanitizeId, valueIdCandidates } from '../../../shared/ids';
import { peekValue, type PeekAnswer, type PeekRequest } from './peek';
import { PROVIDER_SHAPES, toAnthropic, toOpenAIChat, toOpenAIResponses, type AnthropicMessage, type ChatMessage, type ProviderShape, type ResponsesItem } from './providers';
import { applyHistoryPolicy, resultInfos, type ArchiveNeed } from './historyPolicy';
import { resolveHistoryPolicy, resolveSettings, type HistoryPolicy, type Settings } from '../../../shared/settings';
import { InvalidInput } from '../../../shared/check';
import { RunInspector, type InspectParams, type InspectResult } from './runInspector';
import { type RunSearchOptions, type RunSearchResult } from './runSearch';
import { INTERRUPTED_RESULT, offersPeek, replayStructured, replayText, VIEWS, type Message, type StructuredReplay, type View } from './replay';
import { bodySizes, measureMessages, TOKENIZER } from './tokens';
import { Store, type RunSummary, type ValueMeta } from './store';
import { previewOf, stubFor } from './stub';
import { appendEvent, LineTooLong, readEvents, readFirstEvent, validateEvent, writeEvents, type ReadResult, type StopReason, type ToolCallFinishedEvent, type TranscriptEvent } from './transcript';
import { countLines, utf8Bytes } from './text';

export interface RetainParams {
  runId: string;
  callId: string;
  tool: string;
  text: string;
  isError?: boolean;
  args?: unknown;
  turn?: number;
  durationMs?: number;
}

export interface RetainResult {
  /** Exactly what the model gets: the stub when retained, else the result itself. */
  content: string;
  retained: boolean;
  valueId?: string;
  uri?: string;
  bytes: number;
  lines: number;
  /** Why a result over the threshold was kept verbatim, or that the transcript append failed. */
  warning?: string;
}

export interface PeekParams extends PeekRequest {
  valueId: string;
  runId?: string;
}

export interface PeekResult extends PeekAnswer {
  runId: string;
  valueId: string;
}

export type ReplayShape = 'text' | 'structured' | ProviderShape;
export const REPLAY_SHAPES: readonly ReplayShape[] = ['text', 'structured', ...PROVIDER_SHAPES];

/** What a projection sends, per message and in total, against a naive full replay. */
export interface HistoryStats {
  bytesSent: number;
  bytesNaive: number;
  tokensSent: number;
  tokensNaive: number;
  tokenizer: string;
  perMessage: { bytesSent: number; tokensSent: number }[];
}

type Projected =
  | { shape: 'structured'; messages: Message[]; stopReason?: StopReason }
  | { shape: 'anthropic'; messages: AnthropicMessage[]; stopReason?: StopReason }
  | { shape: 'openai-chat'; messages: ChatMessage[]; stopReason?: StopReason }
  /** For the Responses API, `messages` holds the input items. */
  | { shape: 'openai-responses'; messages: ResponsesItem[]; stopReason?: StopReason };

export type ReplayResult = { shape: 'text'; text: string } | (Projected & { stats?: HistoryStats });

function projectShape(shape: Exclude<ReplayShape, 'text'>, structured: Pick<StructuredReplay, 'messages' | 'stopReason'>): Projected {
  const stop = structured.stopReason ? { stopReason: structured.stopReason } : {};
  switch (shape) {
    case 'structured':
      return { shape, messages: structured.messages, ...stop };
    case 'anthropic':
      return { shape, messages: toAnthropic(structured.messages), ...stop };
    case 'openai-chat':
      return { shape, messages: toOpenAIChat(structured.messages), ...stop };
    case 'openai-responses':
      return { shape, messages: toOpenAIResponses(structured.messages), ...stop };
  }
}

/**
 * What a projection sends against the same history in full. `elsewhere` adds, per message of
 * the full history, the bodies kept in values (as empty strings there, their sizes recorded).
 */
function historyStats(sent: readonly unknown[], naive: readonly unknown[], elsewhere: readonly { bytes: number; tokens: number }[]): HistoryStats {
  const perSent = measureMessages(sent);
  const perNaive = measureMessages(naive);
  const sum = (list: readonly { bytes: number; tokens: number }[], key: 'bytes' | 'tokens') => list.reduce((n, m) => n + m[key], 0);
  return {
    bytesSent: sum(perSent, 'bytes'),
    bytesNaive: sum(perNaive, 'bytes') + sum(elsewhere, 'bytes'),
    tokensSent: sum(perSent, 'tokens'),
    tokensNaive: sum(perNaive, 'tokens') + sum(elsewhere, 'tokens'),
    tokenizer: TOKENIZER,
    perMessage: perSent.map((m) => ({ bytesSent: m.bytes, tokensSent: m.tokens })),
  };
}

function requireString(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0) throw new InvalidInput(`${field} must be a non-empty string`);
  return value;
}

export class RetentionService {
  readonly store: Store;
  private settings: Settings;
  private readonly events = new EventEmitter();
  /** Whether each run offers peek_value, by run file name, read once from its first event. */
  private readonly offersPeekCache = new Map<string, boolean>();
  private readonly summaries = new Map<string, Promise<RunSummary>>();
  private readonly inspector: RunInspector;
  /** Runs whose meta this service has made sure of. */
  private readonly named = new Set<string>();

  constructor(root: string, settings: Partial<Settings> = {}) {
    this.store = new Store(root);
    this.settings = resolveSettings(settings);
    this.inspector = new RunInspector(
      this.store,
      (runId, needs) => this.archive(runId, needs),
      () => this.settings.history,
    );
  }

  init(): Promise<void> {
    return this.store.init();
  }

  getSettings(): Settings {
    return { ...this.settings };
  }

  /** Replaces the settings; throws an InvalidInput (and keeps the old ones) when invalid. */
  updateSettings(input: unknown): Settings {
    this.settings = resolveSettings(input);
    return this.getSettings();
  }

  /** Called with a run id whenever this service changes that run. */
  onChanged(listener: (runId: string) => void): () => void {
    this.events.on('changed', listener);
    return () => this.events.off('changed', listener);
  }

  private changed(runId: string): void {
    this.summaries.delete(runId);
    this.inspector.invalidate(runId);
    this.events.emit('changed', runId);
  }

  /**
   * The run an id names. Every run id is sanitized once, here, where it enters: an id as
   * `retained/runs` lists it names that run; any other id (`feature/x`) names the run it
   * sanitizes to. The first write to a run records the id as given, its display name.
   */
  async runKey(raw: unknown, field = 'runId'): Promise<string> {
    const given = requireString(raw, field);
    if (isSanitizedId(given) && (await this.store.runExists(given))) return given;
    return sanitizeId(given);
  }

  /** The run an id names, for a write: its meta is made on the first one. */
  private async writableRun(raw: unknown, startedAt?: string): Promise<string> {
    const runId = await this.runKey(raw);
    if (!this.named.has(runId)) {
      await this.store.ensureRunMeta(runId, raw as string, startedAt);
      this.named.add(runId);
    }
    return runId;
  }

  /**
   * Records a tool result and answers what the model gets. Over the threshold (in a run that
   * offers peek_value) the result is written to its value first, durably, and the event names
   * it with the stub; otherwise the event holds the result. An event that cannot be recorded
   * (a full disk) gets the answer replay will give for it later: no result, said so.
   */
  async retain(params: RetainParams): Promise<RetainResult> {
    const callId = requireString(params.callId, 'callId');
    const tool = requireString(params.tool, 'tool');
    if (typeof params.text !== 'string') throw new InvalidInput('text must be a string');
    if (params.isError !== undefined && typeof params.isError !== 'boolean') throw new InvalidInput('isError must be a boolean');
    if (params.turn !== undefined && !(Number.isInteger(params.turn) && params.turn >= 0)) throw new InvalidInput('turn must be a whole number');
    const runId = await this.writableRun(params.runId);
    const { text } = params;
    const isError = params.isError ?? false;
    const bytes = utf8Bytes(text);
    const lines = countLines(text);
    const offers = await this.runOffersPeek(runId);

    let meta: ValueMeta | undefined;
    let warning: string | undefined;
    if (bytes > this.settings.thresholdBytes && offers) {
      try {
        meta = await this.storeValue(runId, callId, tool, text, isError);
      } catch (err) {
        warning = `kept verbatim: the value could not be written (${(err as Error).message})`;
      }
    }
    const event: TranscriptEvent = {
      type: 'tool_call_finished',
      callId,
      tool,
      ...(meta ? retainedFields(meta, text) : { result: text }),
      ...(isError ? { isError } : {}),
      ...(params.args !== undefined ? { arguments: params.args } : {}),
      ...(params.turn !== undefined ? { turn: params.turn } : {}),
      ...(params.durationMs !== undefined ? { durationMs: params.durationMs } : {}),
    };
    let content = meta ? meta.stub : text;
    try {
      await appendEvent(this.store.root, this.store.transcriptPath(runId), event);
    } catch (err) {
      if (err instanceof LineTooLong && !meta && !warning) {
        throw new InvalidInput(`text is too big to go to the model verbatim (${err.message}): ${offers ? 'raise retained.thresholdBytes no further than that' : 'this run does not offer peek_value, so its results are never retained'}`);
      }
      // Not recorded: the model gets what replay will give for this call later.
      content = INTERRUPTED_RESULT;
      warning = [warning, `the result was not recorded (${(err as Error).message}); the model gets what a replay will send for it`].filter(Boolean).join('; ');
    }
    this.changed(runId);
    return {
      content,
      retained: meta !== undefined && content === meta.stub,
      ...(meta && content === meta.stub ? { valueId: meta.valueId, uri: pathToFileURL(this.store.valuePath(runId, meta.valueId)).href } : {}),
      bytes,
      lines,
      ...(warning ? { warning } : {}),
    };
  }

  /** Writes a result as a value with its stub (see Store.writeValue for the names it may take). */
  private storeValue(runId: string, callId: string, tool: string, text: string, isError: boolean, valueId?: string): Promise<ValueMeta> {
    const preview = previewOf(this.settings);
    return this.store.writeValue({ runId, callId, tool, isError, stubFor: (id) => stubFor({ valueId: id, tool, text, isError }, preview) }, text, valueId);
  }

  /**
   * An imported result: stored as a value when over the threshold (whatever tools the agent
   * had: the value is there to be opened, peeked, and shown as a stub in the simulation). The
   * event keeps what the agent sent, so the run as sent needs no value. A value that cannot be
   * written leaves the result in the event.
   */
  async retainImported(runId: string, event: ToolCallFinishedEvent): Promise<ToolCallFinishedEvent> {
    const text = event.result ?? '';
    if (utf8Bytes(text) <= this.settings.thresholdBytes) return event;
    try {
      const meta = await this.storeValue(runId, event.callId, event.tool, text, event.isError ?? false);
      const { result: _result, ...rest } = event;
      return { ...rest, ...retainedFields(meta, text), sent: event.sent ?? text };
    } catch {
      return event;
    }
  }

  /** Writes a new run's whole transcript and its name (an import); the run must not exist. */
  async writeTranscript(runId: string, name: string, events: readonly TranscriptEvent[], startedAt?: string): Promise<void> {
    await this.store.ensureWritable();
    await writeEvents(this.store.root, this.store.transcriptPath(runId), events);
    await this.store.ensureRunMeta(runId, name, startedAt);
    this.named.add(runId);
    this.offersPeekCache.delete(runId);
    this.changed(runId);
  }

  private async runOffersPeek(runId: string): Promise<boolean> {
    const cached = this.offersPeekCache.get(runId);
    if (cached !== undefined) return cached;
    const first = await readFirstEvent(this.store.root, this.store.transcriptPath(runId));
    const offers = offersPeek(first ? [first] : []);
    // A run that has begun is settled: run_started, when there is one, comes first.
    if (first) this.offersPeekCache.set(runId, offers);
    return offers;
  }

  async append(runIdRaw: unknown, event: unknown): Promise<void> {
    requireString(runIdRaw, 'runId');
    const problem = validateEvent(event);
    if (problem) throw new InvalidInput(problem);
    const e = event as TranscriptEvent;
    if (e.type === 'tool_call_finished') throw new InvalidInput('event.type tool_call_finished is recorded by retained/retain, which also decides retention');
    const runId = await this.writableRun(runIdRaw);
    await appendEvent(this.store.root, this.store.transcriptPath(runId), e);
    if (e.type === 'run_started') this.offersPeekCache.delete(runId);
    this.changed(runId);
  }

  /** Finds the run holding a value; several candidates without a runId is an error listing them. */
  async resolveValue(valueIdRaw: unknown, runIdRaw?: unknown): Promise<{ runId: string; valueId: string }> {
    const given = requireString(valueIdRaw, 'valueId');
    const candidates = valueIdCandidates(given);
    if (runIdRaw !== undefined && runIdRaw !== null) {
      const runId = await this.runKey(runIdRaw);
      for (const valueId of candidates) if (await this.store.valueExists(runId, valueId)) return { runId, valueId };
      const known = (await this.store.listValueFiles(runId)).map((v) => v.valueId);
      throw new InvalidInput(`no value ${JSON.stringify(given)} in run ${runId}; ${describeKnown(known)}`);
    }
    const found: { runId: string; valueId: string }[] = [];
    for (const valueId of candidates) for (const runId of await this.store.runsWithValue(valueId)) found.push({ runId, valueId });
    if (found.length === 1) return found[0]!;
    if (found.length > 1) {
      throw new InvalidInput(`value ${JSON.stringify(given)} is in several runs (${found.map((f) => f.runId).join(', ')}): pass runId to choose one`);
    }
    const known: string[] = [];
    for (const runId of (await this.store.listRunIds()).slice(0, 5)) {
      known.push(...(await this.store.listValueFiles(runId)).map((v) => v.valueId));
    }
    throw new InvalidInput(`no retained value ${JSON.stringify(given)}; ${describeKnown(known)}`);
  }

  async peek(params: PeekParams): Promise<PeekResult> {
    const { runId, valueId } = await this.resolveValue(params.valueId, params.runId);
    const index = await this.store.lineIndex(runId, valueId);
    const answer = await peekValue(this.store.valuePath(runId, valueId), index, valueId, params, this.settings);
    return { runId, valueId, ...answer };
  }

  /** Summaries of every run (or of `only`), newest first; cached per run until it changes. */
  async runs(only?: unknown): Promise<RunSummary[]> {
    if (only !== undefined && only !== null && (!Array.isArray(only) || !only.every((id) => typeof id === 'string'))) {
      throw new InvalidInput('runIds must be an array of strings');
    }
    const all = await this.store.listRunIds();
    const wanted = only ? new Set(await Promise.all((only as string[]).map((id) => this.runKey(id)))) : undefined;
    const ids = wanted ? all.filter((id) => wanted.has(id)) : all;
    return Promise.all(
      ids.map(async (id) => {
        let summary = this.summaries.get(id);
        if (!summary) {
          summary = this.store.summarizeRun(id);
          this.summaries.set(id, summary);
          summary.catch(() => this.summaries.delete(id));
        }
        return summary;
      }),
    );
  }

  /** Drops what is cached about a run, after another process changed it. */
  forget(runId: string): void {
    this.summaries.delete(runId);
    this.inspector.invalidate(runId);
    this.store.dropCachesFor(runId);
  }

  async values(runId: unknown): Promise<ValueMeta[]> {
    return this.store.listValues(await this.runKey(runId));
  }

  async transcript(runId: unknown, from = 0, limit = Infinity): Promise<ReadResult> {
    if (!Number.isInteger(from) || from < 0) throw new InvalidInput('from must be a whole number of at least 0');
    if (limit !== Infinity && (!Number.isInteger(limit) || limit < 1)) throw new InvalidInput('limit must be a whole number of at least 1');
    return readEvents(this.store.root, this.store.transcriptPath(await this.runKey(runId)), from, limit);
  }

  /**
   * The run's model-facing history in `shape`. With `policy`, older result bodies become
   * references (their values are written first; if one cannot be, the projection fails rather
   * than drop the body). With `stats`, bytes and tokens sent versus a naive full replay.
   */
  async replay(runIdRaw: unknown, shape: unknown, options: { policy?: unknown; stats?: unknown; view?: unknown } = {}): Promise<ReplayResult & { skipped: ReadResult['skipped'] }> {
    const runId = await this.runKey(runIdRaw);
    if (!REPLAY_SHAPES.includes(shape as ReplayShape)) {
      throw new InvalidInput(`shape must be one of ${REPLAY_SHAPES.map((s) => `"${s}"`).join(', ')} (got ${JSON.stringify(shape)})`);
    }
    if (options.stats !== undefined && typeof options.stats !== 'boolean') throw new InvalidInput('stats must be a boolean');
    if (options.view !== undefined && !VIEWS.includes(options.view as View)) throw new InvalidInput(`view must be one of ${VIEWS.join(', ')} (got ${JSON.stringify(options.view)})`);
    const view = (options.view as View | undefined) ?? 'retained';
    let policy: HistoryPolicy | undefined;
    try {
      policy = options.policy === undefined || options.policy === null || options.policy === false ? undefined : resolveHistoryPolicy(options.policy, this.settings.history);
    } catch (err) {
      throw new InvalidInput((err as Error).message);
    }
    const { events, skipped } = await readEvents(this.store.root, this.store.transcriptPath(runId));
    const existingValues = new Set((await this.store.listValueFiles(runId)).map((v) => v.valueId));
    const input = { events, existingValues, view };
    if (shape === 'text') return { shape, text: replayText(input), skipped };

    const structured = replayStructured(input);
    if (policy) {
      const outcome = applyHistoryPolicy(structured.messages, structured.owners, resultInfos(events, existingValues), policy);
      await this.archive(runId, outcome.archive);
      structured.messages = outcome.messages;
    }
    const projected = projectShape(shape as Exclude<ReplayShape, 'text'>, structured);
    if (options.stats !== true) return { ...projected, skipped };
    // The same history with every result in full; a result kept in a value counts its recorded size.
    const full = replayStructured({ ...input, full: true });
    const elsewhere = full.messages.map((m, i) =>
      m.content.reduce((sizes, b, j) => {
        const event = events[full.owners[i]![j]!.event]!;
        if (b.type !== 'tool_result' || full.owners[i]![j]!.synthetic || event.type !== 'tool_call_finished' || event.result !== undefined) return sizes;
        return { bytes: sizes.bytes + (event.jsonBytes ?? 2) - 2, tokens: sizes.tokens + (event.tokens ?? 0) };
      }, { bytes: 0, tokens: 0 }),
    );
    return { ...projected, stats: historyStats(projected.messages, projectShape(shape as Exclude<ReplayShape, 'text'>, full).messages, elsewhere), skipped };
  }

  /** Writes the values a projection refers to; if one cannot be written, nothing is projected. */
  private async archive(runId: string, needs: readonly ArchiveNeed[]): Promise<void> {
    for (const need of needs) {
      try {
        await this.storeValue(runId, need.callId, need.tool, need.text, need.isError, need.valueId);
      } catch (err) {
        throw new InvalidInput(`the result of call ${need.callId} could not be archived as a reference (${(err as Error).message}); no projection was made, so no body was dropped`);
      }
    }
    if (needs.length > 0) this.changed(runId);
  }

  /** The inspector's outline of a run and a page of its rows: each event beside what the model got. */
  async inspect(params: InspectParams): Promise<InspectResult> {
    const runId = await this.runKey(params?.runId);
    return await this.inspector.inspect(runId, params);
  }

  /** Finds text anywhere in a run: messages, call arguments and full results. */
  async searchRun(runIdRaw: unknown, query: unknown, options: RunSearchOptions = {}): Promise<RunSearchResult> {
    const runId = await this.runKey(runIdRaw);
    for (const key of ['ignoreCase', 'regex'] as const) {
      if (options[key] !== undefined && typeof options[key] !== 'boolean') throw new InvalidInput(`${key} must be a boolean`);
    }
    return await this.inspector.search(runId, query, { ...options, limit: 1000 });
  }

  async delete(runIdRaw: unknown, valueIdRaw?: unknown): Promise<void> {
    const runId = await this.runKey(runIdRaw);
    if (!(await this.store.runExists(runId))) throw new InvalidInput(`no run ${JSON.stringify(runIdRaw)}`);
    if (valueIdRaw === undefined) {
      await this.store.deleteRun(runId);
      this.offersPeekCache.delete(runId);
      this.named.delete(runId);
    } else {
      const { valueId } = await this.resolveValue(valueIdRaw, runId);
      await this.store.deleteValue(runId, valueId);
    }
    this.changed(runId);
  }
}

/** The event fields of a result kept in its value: where, how big, its hash and stub, and its size as sent in full. */
function retainedFields(meta: ValueMeta, text: string): Pick<ToolCallFinishedEvent, 'valueId' | 'bytes' | 'lines' | 'sha256' | 'stub' | 'jsonBytes' | 'tokens'> {
  const { jsonBytes, tokens } = bodySizes(text);
  return { valueId: meta.valueId, bytes: meta.bytes, lines: meta.lines, sha256: meta.sha256, stub: meta.stub, jsonBytes, tokens };
}

function describeKnown(ids: string[]): string {
  if (ids.length === 0) return 'no values are retained yet';
  const shown = ids.slice(0, 20).join(', ');
  return `known ids: ${shown}${ids.length > 20 ? `, … (${ids.length - 20} more)` : ''}`;
}
