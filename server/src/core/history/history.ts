/**
 * History: a run's model-facing history rebuilt from its transcript, in the shape an agent
 * sends, with the history policy when asked (older bodies as references to values, written
 * first), and the figures of what it sends against a naive full replay.
 */
import { check } from '../../../../shared/check';
import type { HistoryStats, Projected, ReplayShape } from '../../../../shared/history';
import { InvalidInput } from '../../../../shared/invalidInput';
import { ReplayParams, type ReplayResponse } from '../../../../shared/protocol';
import { resolveHistoryPolicy } from '../../../../shared/settings';
import type { Context } from '../context';
import type { Retainer } from '../retain/retainer';
import { measureMessages, TOKENIZER } from '../text/tokens';
import { cutOf, modelCallEvent } from './modelCalls';
import { type ArchiveNeed, applyHistoryPolicy, resultInfos } from './policy';
import { toAnthropic, toOpenAIChat, toOpenAIResponses } from './providers';
import { replayStructured, replayText, type StructuredReplay } from './replay';
import { anthropicBody, requestParts, wireInput } from './request';
import { countValueTokens } from './valueTokens';

export class History {
  constructor(
    private readonly ctx: Context,
    private readonly retainer: Retainer,
  ) {}

  /**
   * The run's model-facing history in `shape`. With `policy`, older result bodies become
   * references (their values are written first; if one cannot be, the projection fails rather
   * than drop the body). With `stats`, bytes and tokens sent versus a naive full replay.
   */
  async replay(input: ReplayParams): Promise<ReplayResponse> {
    const params = check(ReplayParams, input);
    const { store, runs } = this.ctx;
    const runId = await runs.key(params.runId);
    const policy =
      params.policy === undefined || params.policy === false
        ? undefined
        : resolveHistoryPolicy(params.policy, this.ctx.settings().history, 'params.policy');
    const read = await store.readEvents(runId);
    const { skipped } = read;
    // Model call k sent the events before its cut.
    const events = params.modelCall ? read.events.slice(0, cutOf(read.events, params.modelCall)) : read.events;
    const recorded = params.modelCall ? modelCallEvent(read.events, params.modelCall) : undefined;
    const existingValues = new Set((await store.values.listFiles(runId)).map((v) => v.valueId));
    const replayInput = { events, existingValues, view: params.view };
    if (params.shape === 'text') return { shape: 'text', text: replayText(replayInput), skipped };

    const structured = replayStructured(replayInput);
    if (policy) {
      const outcome = applyHistoryPolicy(
        structured.messages,
        structured.owners,
        resultInfos(events, existingValues),
        policy,
      );
      await this.archive(runId, outcome.archive);
      structured.messages = outcome.messages;
    }
    const projected = project(params.shape, structured);
    const request = recorded && params.modelCall ? requestParts(read.events, params.modelCall) : undefined;
    const sentInput =
      projected.shape === 'openai-responses' && params.view === 'sent' ? wireInput(events, events.length) : undefined;
    const whole = request
      ? {
          request,
          ...(projected.shape === 'anthropic'
            ? { body: anthropicBody(request, projected.messages) }
            : projected.shape === 'openai-responses'
              ? { body: { ...request.fields, input: sentInput ?? projected.messages } }
              : {}),
        }
      : {};
    if (params.stats !== true) return { ...projected, ...whole, skipped };
    await countValueTokens(this.ctx.store, runId, events);
    // The same history with every result in full; a result kept in a value counts its recorded size.
    const full = replayStructured({ ...replayInput, full: true });
    const elsewhere = full.messages.map((m, i) =>
      m.content.reduce(
        (sizes, b, j) => {
          const owner = full.owners[i]![j]!;
          const event = events[owner.event]!;
          if (
            b.type !== 'tool_result' ||
            owner.synthetic ||
            event.type !== 'tool_call_finished' ||
            event.result !== undefined
          )
            return sizes;
          return { bytes: sizes.bytes + (event.jsonBytes ?? 2) - 2, tokens: sizes.tokens + (event.tokens ?? 0) };
        },
        { bytes: 0, tokens: 0 },
      ),
    );
    return {
      ...projected,
      ...whole,
      stats: stats(projected.messages, project(params.shape, full).messages, elsewhere),
      skipped,
    };
  }

  /** Writes the values a projection refers to; if one cannot be written, nothing is projected. */
  async archive(runId: string, needs: readonly ArchiveNeed[]): Promise<void> {
    if (needs.length === 0) return;
    await this.ctx.writing(runId, async () => {
      for (const need of needs) {
        try {
          await this.retainer.writeText(runId, need, need.text, undefined, need.valueId);
        } catch (err) {
          throw new InvalidInput(
            `the result of call ${need.callId} could not be archived as a reference (${(err as Error).message}); no projection was made, so no body was dropped`,
          );
        }
      }
    });
  }
}

function project(
  shape: Exclude<ReplayShape, 'text'>,
  structured: Pick<StructuredReplay, 'messages' | 'stopReason'>,
): Projected {
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
function stats(
  sent: readonly unknown[],
  naive: readonly unknown[],
  elsewhere: readonly { bytes: number; tokens: number }[],
): HistoryStats {
  const perSent = measureMessages(sent);
  const perNaive = measureMessages(naive);
  const sum = (list: readonly { bytes: number; tokens: number }[], key: 'bytes' | 'tokens') =>
    list.reduce((n, m) => n + m[key], 0);
  return {
    bytesSent: sum(perSent, 'bytes'),
    bytesNaive: sum(perNaive, 'bytes') + sum(elsewhere, 'bytes'),
    tokensSent: sum(perSent, 'tokens'),
    tokensNaive: sum(perNaive, 'tokens') + sum(elsewhere, 'tokens'),
    tokenizer: TOKENIZER,
    perMessage: perSent.map((m) => ({ bytesSent: m.bytes, tokensSent: m.tokens })),
  };
}
