/**
 * Retain: record a tool result and answer what the model gets. Also the other writes of a run:
 * appended events, an imported run's values and its whole transcript.
 */
import { pathToFileURL } from 'node:url';
import { check } from '../../../../shared/check';
import type { ToolCallFinishedEvent, TranscriptEvent } from '../../../../shared/events';
import { InvalidInput } from '../../../../shared/invalidInput';
import { AppendParams, RetainParams, type RetainResult, type ValueMeta } from '../../../../shared/protocol';
import type { Context } from '../context';
import { INTERRUPTED_RESULT } from '../history/replay';
import { bodySizes } from '../history/tokens';
import { appendEvent, LineTooLong, writeEvents } from '../store/transcript';
import { countLines, utf8Bytes } from '../text';
import { previewOf, stubFor } from './stub';

export class Retainer {
  constructor(private readonly ctx: Context) {}

  /**
   * Records a tool result and answers what the model gets. Over the threshold (in a run that
   * offers peek_value) the result is written to its value first, durably, and the event names
   * it with the stub; otherwise the event holds the result. An event that cannot be recorded
   * (a full disk) gets the answer replay will give for it later: no result, said so.
   */
  async retain(input: RetainParams): Promise<RetainResult> {
    const params = check(RetainParams, input);
    const runId = await this.ctx.runs.writable(params.runId);
    return this.ctx.writing(runId, () => this.record(runId, params));
  }

  private async record(runId: string, params: RetainParams): Promise<RetainResult> {
    const { store, runs } = this.ctx;
    const { callId, tool, text } = params;
    const isError = params.isError ?? false;
    const bytes = utf8Bytes(text);
    const lines = countLines(text);
    const offers = await runs.offersPeek(runId);

    let meta: ValueMeta | undefined;
    let warning: string | undefined;
    if (bytes > this.ctx.settings().thresholdBytes && offers) {
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
      ...(params.arguments !== undefined ? { arguments: params.arguments } : {}),
      ...(params.turn !== undefined ? { turn: params.turn } : {}),
      ...(params.durationMs !== undefined ? { durationMs: params.durationMs } : {}),
    };
    let content = meta ? meta.stub : text;
    try {
      await appendEvent(store.root, store.transcriptPath(runId), event);
    } catch (err) {
      if (err instanceof LineTooLong && !meta && !warning) {
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
    const kept = meta !== undefined && content === meta.stub;
    return {
      content,
      retained: kept,
      ...(kept ? { valueId: meta!.valueId, uri: pathToFileURL(store.valuePath(runId, meta!.valueId)).href } : {}),
      bytes,
      lines,
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
      await appendEvent(store.root, store.transcriptPath(runId), event);
      if (event.type === 'run_started') runs.forget(runId, true);
    });
  }

  /** Writes a result as a value with its stub (see Store.writeValue for the names it may take). */
  storeValue(
    runId: string,
    callId: string,
    tool: string,
    text: string,
    isError: boolean,
    valueId?: string,
  ): Promise<ValueMeta> {
    const preview = previewOf(this.ctx.settings());
    return this.ctx.store.writeValue(
      { runId, callId, tool, isError, stubFor: (id) => stubFor({ valueId: id, tool, text, isError }, preview) },
      text,
      valueId,
    );
  }

  /**
   * An imported result: stored as a value when over the threshold (whatever tools the agent
   * had: the value is there to be opened, peeked, and shown as a stub in the simulation). The
   * event keeps what the agent sent, so the run as sent needs no value. A value that cannot be
   * written leaves the result in the event.
   */
  async retainImported(runId: string, event: ToolCallFinishedEvent): Promise<ToolCallFinishedEvent> {
    const text = event.result ?? '';
    if (utf8Bytes(text) <= this.ctx.settings().thresholdBytes) return event;
    try {
      const meta = await this.storeValue(runId, event.callId, event.tool, text, event.isError ?? false);
      const { result: _result, ...rest } = event;
      return { ...rest, ...retainedFields(meta, text), sent: event.sent ?? text };
    } catch {
      return event;
    }
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
      await store.ensureWritable();
      await writeEvents(store.root, store.transcriptPath(runId), events);
      await store.ensureRunMeta(runId, name, startedAt);
      runs.forget(runId, true);
    });
  }
}

/** The event fields of a result kept in its value: where, how big, its hash and stub, and its size as sent in full. */
function retainedFields(
  meta: ValueMeta,
  text: string,
): Pick<ToolCallFinishedEvent, 'valueId' | 'bytes' | 'lines' | 'sha256' | 'stub' | 'jsonBytes' | 'tokens'> {
  const { jsonBytes, tokens } = bodySizes(text);
  return {
    valueId: meta.valueId,
    bytes: meta.bytes,
    lines: meta.lines,
    sha256: meta.sha256,
    stub: meta.stub,
    jsonBytes,
    tokens,
  };
}
