/**
 * Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`) as runs. Every line is
 * `{timestamp, type, payload}`; the conversation is in the `response_item` lines, which are the
 * Responses API input items Codex sends back on each request (its `event_msg` lines repeat them
 * for the UI and are not imported twice). Codex records each tool output as the model got it,
 * already truncated: the full output is kept nowhere, so the result is that text.
 */

import type { Thinking, TranscriptEvent } from '../../../../shared/events';
import { Yielder } from '../yielder';
import {
  type Conversion,
  countKind,
  type ProviderUsage,
  promptUsage,
  type ResponseBlock,
  responseEvents,
  sessionInfo,
} from './conversion';
import { type Json, recordKind } from './records';

/** The text of a Responses content list (`input_text`, `output_text`, …) or a plain string. */
function itemText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((c: Json) => (typeof c?.text === 'string' ? c.text : `[${String(c?.type ?? 'item')}]`))
      .join('\n');
  if (content && typeof content === 'object') {
    const c = content as Json;
    if (typeof c.text === 'string') return c.text;
    if (c.content !== undefined) return itemText(c.content);
  }
  return content === undefined || content === null ? '' : JSON.stringify(content);
}

/** Text Codex adds as user messages (environment, instructions), told apart from what the user typed. */
const INJECTED = /^\s*<(environment_context|user_instructions|permissions instructions|INSTRUCTIONS)|^# AGENTS\.md/;

/** The Codex versions whose requests were compared with their rollouts, item by item. */
const VERIFIED = /^0\.171\./;

/** An item as Codex sends it: the rollout's copy less its own bookkeeping field. */
function asSent(item: Json): Json {
  const { internal_chat_message_metadata_passthrough: _internal, ...sent } = item;
  return sent;
}

class CodexWriter {
  readonly events: TranscriptEvent[] = [];
  /** An aborted turn's stop, held until the outputs Codex records for its cut calls are in. */
  aborted: TranscriptEvent | undefined;
  private response: ResponseBlock[] = [];
  private responseTs: string | undefined;
  /** The response's items as Codex sends them back (its next request's input holds them). */
  private responseItems: Json[] = [];
  private responses = 0;
  /** The provider's count of the response being collected, when its token_count came before its end. */
  private usage: ProviderUsage | undefined;
  /** Where the last response's first event is. */
  private lastResponse: number | undefined;
  /** What the model calls record: the model in force (turn_context) and the cache key (the thread id). */
  fields: Record<string, unknown> = {};
  readonly custom = new Set<string>();
  readonly names = new Map<string, string>();

  add(block: ResponseBlock, ts: string | undefined, item: Json): void {
    if (this.response.length === 0) this.responseTs = ts;
    this.response.push(block);
    this.responseItems.push(item);
  }

  /** Ends the response being collected, if any: an input comes next. The model call that produced it comes first. */
  flush(): void {
    if (this.response.length === 0) return;
    const stamp = this.responseTs ? { ts: this.responseTs } : {};
    this.events.push({ type: 'model_call', fields: { ...this.fields }, ...stamp });
    const events = responseEvents(this.response, `codex-response-${++this.responses}`, this.responseTs, this.usage);
    events[0] = { ...events[0]!, wire: this.responseItems.map(asSent) };
    this.lastResponse = this.events.length;
    this.events.push(...events);
    this.response = [];
    this.responseItems = [];
    this.usage = undefined;
  }

  /** The provider's count of the model call just made: the response being collected, else the last one (when it has none). */
  counted(usage: ProviderUsage): void {
    if (this.response.length > 0) {
      this.usage = usage;
      return;
    }
    const at = this.lastResponse === undefined ? undefined : this.events[this.lastResponse];
    if (at?.type === 'assistant' && !at.usage) this.events[this.lastResponse!] = { ...at, usage };
  }

  /** Records the held stop of an aborted turn: what comes next is not an output of its calls. */
  endAborted(): void {
    if (!this.aborted) return;
    this.flush();
    this.events.push(this.aborted);
    this.aborted = undefined;
  }

  item(payload: Json, ts: string | undefined): boolean {
    const stamp = ts ? { ts } : {};
    if (payload.type !== 'function_call_output' && payload.type !== 'custom_tool_call_output') this.endAborted();
    switch (payload.type) {
      case 'message': {
        const text = itemText(payload.content);
        if (payload.role === 'assistant') this.add({ type: 'text', text }, ts, payload);
        else {
          this.flush();
          const wire = [asSent(payload)];
          if (payload.role === 'user')
            this.events.push({
              type: 'user',
              text,
              ...(INJECTED.test(text) ? { injected: true } : {}),
              split: true,
              wire,
              ...stamp,
            });
          else this.events.push({ type: 'system', text, wire, ...stamp });
        }
        return true;
      }
      case 'reasoning': {
        const summary = Array.isArray(payload.summary) ? itemText(payload.summary) : '';
        const thinking: Thinking = {
          text: summary,
          ...(typeof payload.encrypted_content === 'string' ? { encryptedContent: payload.encrypted_content } : {}),
        };
        this.add({ type: 'thinking', thinking }, ts, payload);
        return true;
      }
      case 'function_call': {
        const id = String(payload.call_id);
        let args: unknown = payload.arguments;
        if (typeof args === 'string') {
          try {
            args = JSON.parse(args);
          } catch {
            args = { input: args };
          }
        }
        this.names.set(id, String(payload.name ?? 'tool'));
        this.add(
          { type: 'tool_use', call: { id, name: String(payload.name ?? 'tool'), arguments: args ?? {} } },
          ts,
          payload,
        );
        return true;
      }
      case 'custom_tool_call': {
        // A free-form tool (apply_patch): its input is text, and stays so.
        const id = String(payload.call_id);
        this.custom.add(id);
        this.names.set(id, String(payload.name ?? 'tool'));
        this.add(
          {
            type: 'tool_use',
            call: { id, name: String(payload.name ?? 'tool'), arguments: itemText(payload.input), custom: true },
          },
          ts,
          payload,
        );
        return true;
      }
      case 'function_call_output':
      case 'custom_tool_call_output': {
        this.flush();
        const id = String(payload.call_id);
        const output = payload.output as unknown;
        const failed = typeof output === 'object' && output !== null && (output as Json).success === false;
        this.events.push({
          type: 'tool_call_finished',
          callId: id,
          tool: this.names.get(id) ?? 'tool',
          result: itemText(output),
          ...(failed ? { isError: true } : {}),
          wire: [asSent(payload)],
          ...stamp,
        });
        return true;
      }
      default:
        return false;
    }
  }
}

/** A record as the import holds it: the kinds the conversion reads, whole; any other is only counted. */
export function codexRecord(record: Json): Json | undefined {
  const payload = record.payload as Json | undefined;
  if (['session_meta', 'turn_context', 'response_item', 'compacted'].includes(String(record.type))) return record;
  if (record.type === 'event_msg' && payload?.type === 'turn_aborted') return record;
  // The provider's count of each model call; only its figures are kept.
  if (record.type === 'event_msg' && payload?.type === 'token_count') {
    const info = payload.info as Json | null | undefined;
    return {
      type: 'event_msg',
      payload: {
        type: 'token_count',
        info: { last_token_usage: info?.last_token_usage, total_token_usage: info?.total_token_usage },
      },
    };
  }
  return undefined;
}

/**
 * A token_count event's count of the model call it follows: `input_tokens` holds the cached
 * reads and writes (Codex's own `non_cached_input` subtracts them), `output_tokens` the reasoning.
 */
function codexUsage(last: unknown): ProviderUsage | undefined {
  if (!last || typeof last !== 'object') return undefined;
  const u = last as Json;
  const usage = promptUsage(u.input_tokens, u.cached_input_tokens, u.output_tokens, u.cache_write_input_tokens);
  return usage && usage.input + usage.cacheRead + usage.cacheWrite + usage.output > 0 ? usage : undefined;
}

export async function convertCodex(records: readonly Json[], path: string): Promise<Conversion> {
  const yielder = new Yielder();
  const writer = new CodexWriter();
  const skipped: Record<string, number> = {};
  const notes: string[] = [];
  let model: string | undefined;
  let lastTotal = 'null';
  const info = sessionInfo(
    records.filter((r) => r.type === 'session_meta').map((r) => (r.payload as Json | undefined) ?? {}),
    'id',
    'cli_version',
  );
  for (const r of records) {
    await yielder.maybe();
    const payload = r.payload as Json | undefined;
    const ts = typeof r.timestamp === 'string' && !Number.isNaN(Date.parse(r.timestamp)) ? r.timestamp : undefined;
    if (r.type === 'turn_context' || r.type === 'session_meta') {
      if (typeof payload?.model === 'string') {
        model ??= payload.model;
        writer.fields.model = payload.model;
      }
      // Codex keys its prompt cache by the thread: the session's id.
      if (r.type === 'session_meta' && typeof payload?.id === 'string') writer.fields.prompt_cache_key = payload.id;
      continue;
    }
    if (r.type === 'response_item' && payload) {
      if (!writer.item(payload, ts)) countKind(skipped, recordKind(r));
      continue;
    }
    if (r.type === 'event_msg' && payload?.type === 'token_count') {
      // Codex repeats the last count when only its rate limits changed: a count is new when the total moved.
      const info = payload.info as Json | undefined;
      const total = JSON.stringify(info?.total_token_usage ?? null);
      const usage = codexUsage(info?.last_token_usage);
      if (usage && total !== lastTotal) writer.counted(usage);
      lastTotal = total;
      continue;
    }
    if (r.type === 'event_msg' && payload?.type === 'turn_aborted') {
      // An aborted turn: an honest interrupted stop, its committed calls kept, after their outputs.
      writer.flush();
      writer.aborted = { type: 'turn_ended', stopReason: 'interrupted', ...(ts ? { ts } : {}) };
      continue;
    }
    if (r.type === 'compacted' && payload) {
      writer.endAborted();
      writer.flush();
      const summary = typeof payload.message === 'string' && payload.message !== '' ? payload.message : undefined;
      writer.events.push({
        type: 'compaction',
        ...(summary ? { summary } : {}),
        reason: 'auto',
        ...(ts ? { ts } : {}),
      });
      // The history Codex carries on with after the compaction.
      const replacement = Array.isArray(payload.replacement_history) ? (payload.replacement_history as Json[]) : [];
      for (const item of replacement) if (!writer.item(item, ts)) countKind(skipped, `compacted/${String(item.type)}`);
      writer.flush();
      continue;
    }
    countKind(skipped, recordKind(r));
  }
  writer.endAborted();
  writer.flush();
  const cut = writer.events.flatMap((e) =>
    e.type === 'tool_call_finished' && CUT.test(e.result ?? '') ? [e.callId] : [],
  );
  const first = records.find(
    (r) => typeof r.timestamp === 'string' && !Number.isNaN(Date.parse(r.timestamp as string)),
  );
  // Checked against the bodies Codex 0.171 sent (test/fixtures/codex): its rollout's items are its
  // requests' input, but for the first; other versions' are read the same way, not called exact.
  const exact = VERIFIED.test(info.version ?? '') && !Object.keys(skipped).some((k) => k.startsWith('response_item'));
  const fidelity = exact ? 'exact' : 'conversation';
  const start: TranscriptEvent = {
    type: 'run_started',
    tools: [...new Set(writer.names.values())],
    agent: 'codex',
    ...(model ? { model } : {}),
    source: { format: 'codex', path, ...info, fidelity },
    ...(first ? { ts: first.timestamp as string } : {}),
  };
  return {
    format: 'codex',
    events: [start, ...writer.events],
    fidelity,
    outputs: new Map(),
    skipped,
    notes,
    // The hook's run of this session holds its outputs whole: the import joins it.
    ...(info.session ? { name: info.session } : {}),
    ...(cut.length
      ? { cut: { calls: cut, note: 'Codex records a tool output as the model got it, cut to about 10 KB' } }
      : {}),
  };
}

/** How Codex marks an output it cut (the header it adds, and the gap in the middle). */
const CUT = /^Warning: truncated output|… \d+ (?:bytes|tokens|chars) (?:omitted|truncated) …/m;
