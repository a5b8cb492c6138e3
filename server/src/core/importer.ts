/**
 * Imports a real agent transcript into the store as a run: Claude Code session JSONL or a
 * Codex CLI rollout. Every tool call and its full result becomes events (results go through
 * retain, so big ones are retained as if live), split assistant lines are merged back into one
 * message, and Codex's `event_msg` lines, which repeat `response_item`s, are dropped.
 */
import { promises as fs } from 'node:fs';
import { basename, extname } from 'node:path';
import { sanitizeId } from './ids';
import { PEEK_TOOL } from './replay';
import { RequestError, type RetentionService } from './retention';
import type { Thinking, ToolCall, TranscriptEvent } from './transcript';

export type ImportFormat = 'claude-code' | 'codex';
export const IMPORT_FORMATS: readonly ImportFormat[] = ['claude-code', 'codex'];

export interface ImportResult {
  runId: string;
  format: ImportFormat;
  events: number;
  toolCalls: number;
  retained: number;
  /** Lines that were not JSON (torn or foreign), by line number. */
  skippedLines: number[];
}

/** One step of the import, in transcript order. */
type Step = { kind: 'event'; event: TranscriptEvent } | { kind: 'result'; callId: string; text: string; isError: boolean };

type Json = Record<string, unknown>;

function parseLines(text: string): { records: Json[]; skippedLines: number[] } {
  const records: Json[] = [];
  const skippedLines: number[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      const value = JSON.parse(line) as unknown;
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) records.push(value as Json);
      else skippedLines.push(i + 1);
    } catch {
      skippedLines.push(i + 1);
    }
  });
  return { records, skippedLines };
}

export function detectFormat(records: readonly Json[]): ImportFormat | undefined {
  for (const r of records) {
    if ('payload' in r && typeof r.type === 'string') return 'codex';
    if ('message' in r || 'sessionId' in r) return 'claude-code';
  }
  return undefined;
}

/** Text of a tool result or message content: a string, or a list of blocks. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return content === undefined || content === null ? '' : JSON.stringify(content);
  return content
    .map((block: Json) => (typeof block?.text === 'string' ? block.text : block?.type === 'image' ? '[image]' : JSON.stringify(block)))
    .join('\n');
}

/**
 * The import's steps, in order. Assistant text and tool calls are collected across records
 * and emitted as one assistant event when something else comes, so a split API response
 * becomes one message again.
 */
class StepCollector {
  readonly steps: Step[] = [];
  readonly tools = new Set<string>();
  private thinking: Thinking[] = [];
  private text: string[] = [];
  private calls: ToolCall[] = [];
  /** What identifies the message being collected (Claude Code's message.id). */
  key: unknown;

  addThinking(thinking: Thinking): void {
    // Reasoning that came after the calls belongs to the next response.
    if (this.calls.length) this.flush();
    this.thinking.push(thinking);
  }

  addText(text: string): void {
    if (text) this.text.push(text);
  }

  addCall(call: ToolCall): void {
    this.calls.push(call);
    this.tools.add(call.name);
  }

  /** Emits the collected message, if any, then `step`. */
  flush(step?: Step): void {
    if (this.text.length || this.calls.length) {
      const text = this.text.join('\n');
      const thinking = this.thinking.length ? { thinking: this.thinking } : {};
      this.steps.push({ kind: 'event', event: { type: 'assistant', ...thinking, ...(text ? { text } : {}), ...(this.calls.length ? { toolCalls: this.calls } : {}) } });
    }
    this.thinking = [];
    this.text = [];
    this.calls = [];
    this.key = undefined;
    if (step) this.steps.push(step);
  }
}

interface Steps {
  steps: Step[];
  tools: Set<string>;
  model?: string;
}

function claudeCodeSteps(records: readonly Json[]): Steps {
  const steps = new StepCollector();
  let model: string | undefined;
  for (const r of records) {
    const message = r.message as Json | undefined;
    if (!message || (r.type !== 'user' && r.type !== 'assistant')) continue;
    if (r.type === 'assistant') {
      // One API response is split over several lines that share message.id: merge them.
      if (steps.key !== message.id) steps.flush();
      steps.key = message.id;
      if (typeof message.model === 'string') model ??= message.model;
      for (const block of Array.isArray(message.content) ? (message.content as Json[]) : []) {
        if (block.type === 'thinking' && typeof block.thinking === 'string') {
          steps.addThinking({ text: block.thinking, ...(typeof block.signature === 'string' && block.signature ? { signature: block.signature } : {}) });
        }
        if (block.type === 'text' && typeof block.text === 'string') steps.addText(block.text);
        if (block.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string') {
          steps.addCall({ id: block.id, name: block.name, arguments: block.input ?? {} });
        }
      }
      continue;
    }
    steps.flush();
    if (typeof message.content === 'string') {
      steps.steps.push({ kind: 'event', event: { type: 'user', text: message.content } });
      continue;
    }
    const blocks = Array.isArray(message.content) ? (message.content as Json[]) : [];
    for (const block of blocks) {
      if (block.type === 'tool_result' && typeof block.tool_use_id === 'string') {
        steps.steps.push({ kind: 'result', callId: block.tool_use_id, text: contentText(block.content), isError: block.is_error === true });
      }
    }
    const text = blocks.flatMap((b) => (b.type === 'text' && typeof b.text === 'string' ? [b.text] : [])).join('\n');
    if (text) steps.steps.push({ kind: 'event', event: { type: 'user', text } });
  }
  steps.flush();
  return { steps: steps.steps, tools: steps.tools, ...(model ? { model } : {}) };
}

function codexSteps(records: readonly Json[]): Steps {
  const steps = new StepCollector();
  let model: string | undefined;
  for (const r of records) {
    const payload = r.payload as Json | undefined;
    if (r.type === 'turn_context' && typeof payload?.model === 'string') model ??= payload.model;
    // event_msg lines repeat response_items for the UI: they must not be imported twice.
    if (r.type !== 'response_item' || !payload) continue;
    switch (payload.type) {
      case 'message': {
        const text = contentText(payload.content);
        if (payload.role === 'assistant') steps.addText(text);
        else if (payload.role === 'user') steps.flush({ kind: 'event', event: { type: 'user', text } });
        break;
      }
      case 'reasoning': {
        const summary = Array.isArray(payload.summary) ? contentText(payload.summary) : '';
        const encrypted = typeof payload.encrypted_content === 'string' ? { encryptedContent: payload.encrypted_content } : {};
        steps.addThinking({ text: summary, ...encrypted });
        break;
      }
      case 'function_call':
      case 'custom_tool_call': {
        const name = String(payload.name ?? 'tool');
        const raw = payload.type === 'function_call' ? payload.arguments : payload.input;
        let args: unknown = raw;
        if (typeof raw === 'string') {
          try {
            args = JSON.parse(raw);
          } catch {
            args = { input: raw };
          }
        }
        steps.addCall({ id: String(payload.call_id), name, arguments: args ?? {} });
        break;
      }
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const output = payload.output;
        const text = typeof output === 'string' ? output : contentText((output as Json | undefined)?.content ?? output);
        steps.flush({ kind: 'result', callId: String(payload.call_id), text, isError: false });
        break;
      }
    }
  }
  steps.flush();
  return { steps: steps.steps, tools: steps.tools, ...(model ? { model } : {}) };
}

export async function importTranscript(service: RetentionService, path: unknown, format?: unknown, runIdRaw?: unknown): Promise<ImportResult> {
  if (typeof path !== 'string' || path === '') throw new RequestError('path must be a non-empty string');
  if (format !== undefined && format !== null && !IMPORT_FORMATS.includes(format as ImportFormat)) {
    throw new RequestError(`format must be one of ${IMPORT_FORMATS.join(', ')} (got ${JSON.stringify(format)})`);
  }
  let text: string;
  try {
    text = await fs.readFile(path, 'utf8');
  } catch (err) {
    throw new RequestError(`path could not be read: ${(err as Error).message}`);
  }
  const { records, skippedLines } = parseLines(text);
  const detected = (format as ImportFormat | undefined) ?? detectFormat(records);
  if (!detected) throw new RequestError(`path is neither a Claude Code nor a Codex transcript: ${path}`);
  const runId = sanitizeId(typeof runIdRaw === 'string' && runIdRaw ? runIdRaw : basename(path, extname(path)));
  if ((await service.store.listRunIds()).includes(runId)) throw new RequestError(`run ${runId} exists already: delete it first, or pass another runId`);

  const { steps, tools, model } = detected === 'codex' ? codexSteps(records) : claudeCodeSteps(records);
  const names = new Map<string, string>();
  for (const step of steps) {
    if (step.kind === 'event' && step.event.type === 'assistant') for (const call of step.event.toolCalls ?? []) names.set(call.id, call.name);
  }
  await service.append(runId, { type: 'run_started', tools: [...tools, PEEK_TOOL], agent: detected, ...(model ? { model } : {}) });
  const result: ImportResult = { runId, format: detected, events: 1, toolCalls: 0, retained: 0, skippedLines };
  for (const step of steps) {
    if (step.kind === 'event') {
      await service.append(runId, step.event);
      result.toolCalls += step.event.type === 'assistant' ? (step.event.toolCalls?.length ?? 0) : 0;
    } else {
      const retained = await service.retain({ runId, callId: step.callId, tool: names.get(step.callId) ?? 'tool', text: step.text, isError: step.isError });
      if (retained.retained) result.retained++;
    }
    result.events++;
  }
  return result;
}
