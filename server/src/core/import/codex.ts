/**
 * Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`) as runs. Every line is
 * `{timestamp, type, payload}`; the conversation is in the `response_item` lines, which are the
 * Responses API input items Codex sends back on each request (its `event_msg` lines repeat them
 * for the UI and are not imported twice). Codex records each tool output as the model got it,
 * already truncated: the full output is kept nowhere, so the result is that text.
 */

import type { Thinking, TranscriptEvent } from '../../../../shared/events';
import { type Conversion, countKind, type ResponseBlock, responseEvents, sessionInfo } from './conversion';
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

class CodexWriter {
  readonly events: TranscriptEvent[] = [];
  /** An aborted turn's stop, held until the outputs Codex records for its cut calls are in. */
  aborted: TranscriptEvent | undefined;
  private response: ResponseBlock[] = [];
  private responseTs: string | undefined;
  private responses = 0;
  readonly custom = new Set<string>();
  readonly names = new Map<string, string>();

  add(block: ResponseBlock, ts: string | undefined): void {
    if (this.response.length === 0) this.responseTs = ts;
    this.response.push(block);
  }

  /** Ends the response being collected, if any: an input comes next. */
  flush(): void {
    if (this.response.length === 0) return;
    this.events.push(...responseEvents(this.response, `codex-response-${++this.responses}`, this.responseTs));
    this.response = [];
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
        if (payload.role === 'assistant') this.add({ type: 'text', text }, ts);
        else {
          this.flush();
          if (payload.role === 'user')
            this.events.push({ type: 'user', text, ...(INJECTED.test(text) ? { injected: true } : {}), ...stamp });
          else this.events.push({ type: 'system', text, ...stamp });
        }
        return true;
      }
      case 'reasoning': {
        const summary = Array.isArray(payload.summary) ? itemText(payload.summary) : '';
        const thinking: Thinking = {
          text: summary,
          ...(typeof payload.encrypted_content === 'string' ? { encryptedContent: payload.encrypted_content } : {}),
        };
        this.add({ type: 'thinking', thinking }, ts);
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
        this.add({ type: 'tool_use', call: { id, name: String(payload.name ?? 'tool'), arguments: args ?? {} } }, ts);
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
          ...stamp,
        });
        return true;
      }
      default:
        return false;
    }
  }
}

export function convertCodex(records: readonly Json[], path: string): Conversion {
  const writer = new CodexWriter();
  const skipped: Record<string, number> = {};
  const notes: string[] = [];
  let model: string | undefined;
  const info = sessionInfo(
    records.filter((r) => r.type === 'session_meta').map((r) => (r.payload as Json | undefined) ?? {}),
    'id',
    'cli_version',
  );
  for (const r of records) {
    const payload = r.payload as Json | undefined;
    const ts = typeof r.timestamp === 'string' && !Number.isNaN(Date.parse(r.timestamp)) ? r.timestamp : undefined;
    if (r.type === 'turn_context' || r.type === 'session_meta') {
      if (typeof payload?.model === 'string') model ??= payload.model;
      continue;
    }
    if (r.type === 'response_item' && payload) {
      if (!writer.item(payload, ts)) countKind(skipped, recordKind(r));
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
  if (writer.events.some((e) => e.type === 'tool_call_finished'))
    notes.push(
      'Codex records each tool output as the model got it, already cut to about 10 KB: the full output was never kept',
    );
  const first = records.find(
    (r) => typeof r.timestamp === 'string' && !Number.isNaN(Date.parse(r.timestamp as string)),
  );
  const start: TranscriptEvent = {
    type: 'run_started',
    tools: [...new Set(writer.names.values())],
    agent: 'codex',
    ...(model ? { model } : {}),
    source: { format: 'codex', path, ...info, fidelity: 'conversation' },
    ...(first ? { ts: first.timestamp as string } : {}),
  };
  return {
    format: 'codex',
    events: [start, ...writer.events],
    fidelity: 'conversation',
    outputs: new Map(),
    skipped,
    notes,
  };
}
