/**
 * Retain: record a tool result and answer what the model gets. Also the other writes of a run:
 * appended events, an imported run's values and its whole transcript.
 */
import { stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { callSubject } from '../../../../shared/callSubject';
import { check } from '../../../../shared/check';
import type { ToolCallFinishedEvent, TranscriptEvent } from '../../../../shared/events';
import { PEEK_TOOL } from '../../../../shared/history';
import { InvalidInput } from '../../../../shared/invalidInput';
import {
  AppendParams,
  type Exit,
  RetainFileParams,
  RetainParams,
  type RetainResult,
  type ValueMeta,
  type WithholdResult,
} from '../../../../shared/protocol';
import { INTERRUPTED_RESULT } from '../../../../shared/stubText';
import type { Context } from '../context';
import { EventNotRecorded, type NewValue, type StagedValue } from '../store/runStore';
import { StoreEscape } from '../store/safeFs';
import { LineTooLong } from '../store/transcript';
import { countLines, utf8Bytes, utf8Slices } from '../text/bytes';
import { Scan, type ScanResult } from '../text/scan';
import { type PreviewSettings, previewOf, stubOf } from '../text/stub';
import { withTokens } from '../text/tokens';
import { SecretScan } from '../withhold/secrets';
import type { Withheld, Withholder } from '../withhold/withholder';
import { BadEscape, type EscapedText } from './escapedText';
import { fileChunks } from './fileSource';

export class Retainer {
  constructor(
    private readonly ctx: Context,
    private readonly withholder: Withholder,
    /** Where a relative path names a file (retainFile). */
    private readonly workspace: string,
  ) {}

  /**
   * Records a tool result and answers what the model gets. Over the threshold (in a run that
   * offers peek_value) the result is written to its value first, durably, and the event names
   * it with the stub; otherwise the event holds the result. An event that cannot be recorded
   * (a full disk) gets the answer replay will give for it later: no result, said so.
   */
  async retain(input: RetainParams, door: Door = {}): Promise<RetainResult> {
    const params = check(RetainParams, input);
    const deadline = this.withholder.deadline();
    const runId = await this.ctx.runs.writable(params.runId);
    return this.ctx.writing(runId, async () => {
      const { text, isError = false } = params;
      const call = { ...params, isError };
      // UTF-8 never takes fewer bytes than UTF-16 units: a long text is over without being counted.
      const threshold = this.ctx.settings().thresholdBytes;
      const over = text.length > threshold || utf8Bytes(text) > threshold;
      const secret = params.withheld ? undefined : this.withholder.guard()?.find(text);
      if (params.withheld || secret) {
        const reason = params.withheld ? params.withheld.reason : `the secret guard found ${secret}`;
        return this.withheld(
          runId,
          { ...call, reason, original: { text } },
          deadline,
          utf8Bytes(text),
          countLines(text),
        );
      }
      if (!over || !(await this.ctx.runs.offersPeek(runId))) {
        return this.record(runId, call, { bytes: utf8Bytes(text), lines: countLines(text) }, { text });
      }
      try {
        const { staged, value, scan } = await this.stageText(runId, call, text, this.preview(door));
        return await this.record(runId, call, scan, { staged, value, sizes: scan });
      } catch (err) {
        return this.record(
          runId,
          call,
          { bytes: utf8Bytes(text), lines: countLines(text) },
          {
            text,
            warning: `kept verbatim: the value could not be written (${(err as Error).message})`,
          },
        );
      }
    });
  }

  /**
   * retained/retain with its text still escaped (a big message: see EscapedText): streamed into
   * its value as a command's output is, never decoded whole. When it cannot be stored that way,
   * it is decoded and retained as any text, so it still reaches the model verbatim.
   */
  async retainEscaped(input: RetainParams, escaped: EscapedText, door: Door = {}): Promise<RetainResult> {
    const { text: _placeholder, isError = false, ...rest } = check(RetainParams, input);
    try {
      return await this.retainStream(rest, escaped.chunks(), () => ({ isError }), door);
    } catch (err) {
      if (err instanceof BadEscape) throw new InvalidInput(err.message);
      if (err instanceof InvalidInput || err instanceof StoreEscape) throw err;
      let text: string;
      try {
        text = escaped.decode();
      } catch (bad) {
        throw new InvalidInput(`params.text is not a JSON string: ${(bad as Error).message}`);
      }
      return this.retain({ ...input, text }, door);
    }
  }

  /**
   * retained/retainFile: a result held in a file, streamed into its value as it is read (as a
   * command's output is). A relative path is the workspace's; anything but a regular file is
   * refused, naming the path.
   */
  async retainFile(input: RetainFileParams, door: Door = {}): Promise<RetainResult> {
    const { path, isError = false, ...rest } = check(RetainFileParams, input);
    const file = isAbsolute(path) ? path : resolve(this.workspace, path);
    const found = await stat(file).catch(() => undefined);
    if (!found?.isFile())
      throw new InvalidInput(`params.path ${JSON.stringify(path)} is ${found ? 'not a regular file' : 'not there'}`);
    return this.retainStream(rest, fileChunks(file), () => ({ isError }), door);
  }

  /**
   * Records a result that arrives as a stream (a command's output): written to a temp file as
   * it comes and scanned on the way, never held whole; then placed as a value when over the
   * threshold, or read back into the event when it is small. `after` gives what is known only
   * at the end (the exit status). A stream that cannot be stored is refused with the reason.
   */
  async retainStream(
    input: Omit<RetainParams, 'text' | 'isError'>,
    source: Iterable<Buffer> | AsyncIterable<Buffer>,
    after: () =>
      | Pick<RetainParams, 'isError' | 'durationMs' | 'exit'>
      | Promise<Pick<RetainParams, 'isError' | 'durationMs' | 'exit'>> = () => ({}),
    door: Door = {},
  ): Promise<RetainResult> {
    const params = check(RetainParams.omit({ text: true, isError: true }), input);
    const runId = await this.ctx.runs.writable(params.runId);
    return this.ctx.writing(runId, async () => {
      // Asked before the stream is read: a store that fails now fails before it has taken a byte.
      const offers = await this.ctx.runs.offersPeek(runId);
      const preview = this.preview(door);
      const scanner = scanOf(preview);
      const guard = this.withholder.guard();
      const secrets = guard && !params.withheld ? new SecretScan(guard) : undefined;
      const decoder = new StringDecoder('utf8');
      const staged = await this.ctx.store.values.stage(runId, source, (part) => {
        secrets?.push(decoder.write(part));
        scanner.pushBytes(part);
      });
      const scan = withTokens(scanner.figures());
      const ended = { ...params, ...(await after()) };
      const isError = ended.isError ?? false;
      if (params.withheld || secrets?.found) {
        const reason = params.withheld ? params.withheld.reason : `the secret guard found ${secrets?.found}`;
        try {
          // The batch is queued when the stream has ended, whenever that is: its deadline starts now.
          return await this.withheld(
            runId,
            { ...ended, isError, reason, original: { file: staged.tmp, bytes: staged.bytes, sha256: staged.sha256 } },
            this.withholder.deadline(),
            scan.bytes,
            scan.lines,
          );
        } finally {
          await this.ctx.store.values.discardStaged(staged);
        }
      }
      if (scan.bytes > this.ctx.settings().thresholdBytes && offers) {
        const value = this.newValue(runId, ended, isError, scan, preview);
        // No token count: readers that show figures count it from the value (history/valueTokens.ts).
        return this.record(runId, { ...ended, isError }, scan, {
          staged,
          value: door.keepTo ? { ...value, keepTo: door.keepTo } : value,
          sizes: { jsonBytes: scan.jsonBytes },
        });
      }
      const text = await this.ctx.store.values.readStaged(staged);
      await this.ctx.store.values.discardStaged(staged);
      return this.record(runId, { ...ended, isError }, scan, { text });
    });
  }

  /** A result the guard withholds: a batch of one; the model gets the notice. */
  private async withheld(
    runId: string,
    result: Withheld,
    deadline: number,
    bytes: number,
    lines: number,
  ): Promise<RetainResult> {
    const { results } = await this.withholder.batch(runId, [result], deadline);
    const [{ content, outcome, file }] = results as [WithholdResult['results'][number]];
    return { content, retained: false, bytes, lines, withheld: { outcome, ...(file ? { file } : {}) } };
  }

  /** The preview settings in force, named and shaped for the door the result came through. */
  private preview(door: Door): PreviewSettings {
    return previewOf({
      ...this.ctx.settings(),
      ...(door.peekTool && door.peekTool !== PEEK_TOOL ? { peekTool: door.peekTool } : {}),
      ...(door.style ? { style: door.style } : {}),
      ...(door.firstLine !== undefined ? { firstLine: door.firstLine } : {}),
    });
  }

  private newValue(
    runId: string,
    call: { callId: string; tool: string; arguments?: unknown; exit?: Exit | undefined },
    isError: boolean,
    scan: ScanResult,
    preview: PreviewSettings,
  ): NewValue {
    const { callId, tool, exit } = call;
    const subject = callSubject(call.arguments);
    // Landmarks belong to what commands print; a file's own code (`{:error, _} ->`) is not an error.
    const shown = subject?.isFile ? { ...scan, landmarks: { lines: {} } } : scan;
    return {
      runId,
      callId,
      tool,
      isError,
      ...(subject ? { subject } : {}),
      stubFor: (valueId) => stubOf({ valueId, tool, isError, ...(exit ? { exit } : {}) }, shown, preview),
    };
  }

  /**
   * Appends the result's event and answers what the model gets: the stub, or the text. A value
   * still staged is placed with its event (one write where the store can: see ValueStore.place);
   * when it cannot be placed, that throws, for the caller to keep the result another way.
   */
  private async record(
    runId: string,
    call: ResultCall,
    size: { bytes: number; lines: number },
    kept: Kept | { staged: StagedValue; value: NewValue; sizes: Sizes },
  ): Promise<RetainResult> {
    const { store, runs } = this.ctx;
    let meta = 'meta' in kept ? kept.meta : undefined;
    let warning = 'warning' in kept ? kept.warning : undefined;
    let content: string;
    try {
      if ('staged' in kept) {
        meta = await store.values.place(kept.staged, kept.value, undefined, (placed) =>
          resultEvent(call, { meta: placed, sizes: kept.sizes }),
        );
      } else await store.appendEvent(runId, resultEvent(call, kept));
      content = meta ? meta.stub : (kept as { text: string }).text;
    } catch (thrown) {
      // Placed, but its event not recorded: as any event that could not be.
      if ('staged' in kept && !(thrown instanceof EventNotRecorded)) throw thrown;
      if (thrown instanceof EventNotRecorded) meta = thrown.meta;
      const err = thrown instanceof EventNotRecorded ? thrown.cause : thrown;
      // A link in the store is no place to record anything: refused, with the reason.
      if (err instanceof StoreEscape) throw err;
      if (err instanceof LineTooLong && !meta && !warning) {
        const offers = await runs.offersPeek(runId);
        throw new InvalidInput(
          `text is too big to go to the model verbatim (${err.message}): ${offers ? 'lower retained.thresholdBytes' : 'this run does not offer peek_value, so its results are never retained'}`,
        );
      }
      // Not recorded: the model gets what replay will give for this call later.
      content = INTERRUPTED_RESULT;
      warning = [
        warning,
        `the result was not recorded (${(err as Error).message}); the model gets what a replay will send for it`,
      ]
        .filter(Boolean)
        .join('; ');
    }
    const kept_ = meta !== undefined && content === meta.stub;
    return {
      content,
      retained: kept_,
      ...(kept_ ? { valueId: meta!.valueId, uri: store.values.uri(runId, meta!.valueId) } : {}),
      bytes: size.bytes,
      lines: size.lines,
      ...(warning ? { warning } : {}),
    };
  }

  /** Appends any event but a result (retain records those, deciding retention). */
  async append(input: AppendParams): Promise<void> {
    const { runId: given, event } = check(AppendParams, input);
    if (event.type === 'tool_call_finished')
      throw new InvalidInput(
        'params.event.type tool_call_finished is recorded by retained/retain, which also decides retention',
      );
    const { store, runs } = this.ctx;
    const runId = await runs.writable(given);
    await this.ctx.writing(runId, async () => {
      await store.appendEvent(runId, event);
      if (event.type === 'run_started') runs.forget(runId, true);
    });
  }

  /**
   * Writes a text as a value with its stub, in one pass: staged a slice at a time and scanned on
   * the way, as a stream is (see FolderStore's values for the names it may take).
   */
  async writeText(
    runId: string,
    call: { callId: string; tool: string; arguments?: unknown; isError?: boolean },
    text: string,
    preview = this.preview({}),
    valueId?: string,
  ): Promise<{ meta: ValueMeta; scan: ScanResult }> {
    const { staged, value, scan } = await this.stageText(runId, call, text, preview);
    return { meta: await this.ctx.store.values.place(staged, value, valueId), scan };
  }

  /** A text staged as a value, scanned on the way, with what placing it needs. */
  private async stageText(
    runId: string,
    call: { callId: string; tool: string; arguments?: unknown; isError?: boolean },
    text: string,
    preview: PreviewSettings,
  ): Promise<{ staged: StagedValue; value: NewValue; scan: ScanResult & { tokens: number } }> {
    const scanner = scanOf(preview);
    const staged = await this.ctx.store.values.stage(runId, utf8Slices(text), (part) => scanner.pushBytes(part));
    const scan = withTokens(scanner.figures());
    return { staged, value: this.newValue(runId, call, call.isError ?? false, scan, preview), scan };
  }

  /**
   * An imported result: stored as a value when over the threshold (whatever tools the agent
   * had: the value is there to be opened, peeked, and shown as a stub in the simulation). The
   * event keeps what the agent sent, so the run as sent needs no value. A value that cannot be
   * written leaves the result in the event.
   */
  async retainImported(runId: string, event: ToolCallFinishedEvent, args?: unknown): Promise<ToolCallFinishedEvent> {
    const text = event.result ?? '';
    if (utf8Bytes(text) <= this.ctx.settings().thresholdBytes) return event;
    try {
      // The call's arguments name what it worked on: the value is named after it (and a file read gets no landmarks).
      const { meta, scan } = await this.writeText(runId, { ...event, arguments: args ?? event.arguments }, text);
      const { result: _result, ...rest } = event;
      return { ...rest, ...retainedFields(meta, scan), sent: event.sent ?? text };
    } catch {
      return event;
    }
  }

  /**
   * An imported result whose full output the agent kept in a file (Claude Code's tool-results):
   * streamed from it into a value, never read whole; a small one is read into the event. The
   * event keeps what the agent sent (its preview). Throws when the file cannot be read.
   */
  async retainImportedFile(
    runId: string,
    event: ToolCallFinishedEvent,
    path: string,
    args?: unknown,
  ): Promise<ToolCallFinishedEvent> {
    const preview = this.preview({});
    const scanner = scanOf(preview);
    const staged = await this.ctx.store.values.stage(runId, fileChunks(path), (part) => scanner.pushBytes(part));
    const sent = event.sent ?? event.result ?? '';
    if (staged.bytes <= this.ctx.settings().thresholdBytes) {
      const result = await this.ctx.store.values.readStaged(staged);
      await this.ctx.store.values.discardStaged(staged);
      return { ...event, result, sent };
    }
    const scan = withTokens(scanner.figures());
    const meta = await this.ctx.store.values.place(
      staged,
      this.newValue(runId, { ...event, arguments: args ?? event.arguments }, event.isError ?? false, scan, preview),
    );
    const { result: _result, ...rest } = event;
    return { ...rest, ...retainedFields(meta, { jsonBytes: scan.jsonBytes }), sent };
  }

  /** Writes a new run's whole transcript and its name (an import); the run must not exist. */
  async writeTranscript(
    runId: string,
    name: string,
    events: readonly TranscriptEvent[],
    startedAt?: string,
  ): Promise<void> {
    const { store, runs } = this.ctx;
    await this.ctx.writing(runId, async () => {
      await store.writeTranscript(runId, events);
      await store.ensureRunMeta(runId, name, startedAt);
      runs.forget(runId, true);
    });
  }
}

/** A result's call, as recorded. */
type ResultCall = Omit<RetainParams, 'text' | 'runId'> & { isError: boolean };
type Sizes = { jsonBytes: number; tokens?: number };
/** A result kept in its value (placed), or in full in its event. */
type Kept = { meta: ValueMeta; sizes: Sizes } | { text: string; warning?: string };

/** The event that records a result. */
function resultEvent(call: ResultCall, kept: Kept): TranscriptEvent {
  return {
    type: 'tool_call_finished',
    callId: call.callId,
    tool: call.tool,
    ...('meta' in kept ? retainedFields(kept.meta, kept.sizes) : { result: kept.text }),
    ...(call.isError ? { isError: true } : {}),
    ...(call.exit ? { exit: call.exit } : {}),
    ...(call.arguments !== undefined ? { arguments: call.arguments } : {}),
    ...(call.turn !== undefined ? { turn: call.turn } : {}),
    ...(call.durationMs !== undefined ? { durationMs: call.durationMs } : {}),
  };
}

/** A scan of a result as it is stored, by the preview settings in force. */
function scanOf(preview: PreviewSettings): Scan {
  return new Scan(preview.previewHeadLines, preview.previewTailLines, preview.landmarkPatterns);
}

/** The event fields of a result kept in its value: where, how big, its hash and stub, and its size as sent in full. */
function retainedFields(
  meta: ValueMeta,
  sizes: { jsonBytes: number; tokens?: number },
): Pick<ToolCallFinishedEvent, 'valueId' | 'bytes' | 'lines' | 'sha256' | 'stub' | 'jsonBytes' | 'tokens'> {
  const { valueId, bytes, lines, sha256, stub } = meta;
  const tokens = countedIfLoadable(sizes);
  return {
    valueId,
    bytes,
    lines,
    sha256,
    stub,
    jsonBytes: sizes.jsonBytes,
    ...(tokens !== undefined ? { tokens } : {}),
  };
}

/**
 * The tokens, or none when the tokenizer cannot be loaded (its tables are a file: with no file
 * descriptor free, `ulimit -n`, the load fails). The value is written by then, and a retain must
 * not fail for a figure the inspector counts later from the bytes.
 */
function countedIfLoadable(sizes: { tokens?: number }): number | undefined {
  try {
    return sizes.tokens;
  } catch {
    return undefined;
  }
}

/**
 * Which door a result came through, when that changes what the model is told: the name it knows
 * peek_value by, and a stub shaped for how the agent renders the tool's output (see PreviewSettings).
 */
export interface Door {
  peekTool?: string | undefined;
  style?: PreviewSettings['style'];
  firstLine?: number | undefined;
  /** Where a streamed output the store could not take is moved whole (see NewValue.keepTo). */
  keepTo?: string | undefined;
}
