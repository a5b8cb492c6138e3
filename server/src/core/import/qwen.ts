/**
 * Qwen Code chats (`~/.qwen/projects/<project>/chats/<session>.jsonl`) as runs. Each line is a
 * record of one conversation, chained to the one before it by `parentUuid` (as Claude Code's
 * are): `user`, `assistant` and `tool_result` records hold Gemini API contents
 * (`message.parts`), `system` records Qwen Code's own bookkeeping. The conversation is the
 * chain that ends at the last record, so a branch left behind is not in it. An output Qwen
 * Code cut is saved whole under `~/.qwen/tmp/`, and `toolCallResult.resultDisplay` names it.
 */

import { basename, dirname, join } from 'node:path';
import type { TranscriptEvent } from '../../../../shared/events';
import { Yielder } from '../yielder';
import { type Conversion, countKind, importedStart, sessionInfo } from './conversion';
import { type FullFor, PartsWriter, qwenUsage } from './geminiParts';
import { type Json, recordKind } from './records';

/** A chat where Qwen Code keeps them: `…/projects/<project>/chats/<session>.jsonl`. */
function inQwenHome(path: string): boolean {
  return basename(dirname(path)) === 'chats' && basename(dirname(dirname(dirname(path)))) === 'projects';
}

export function isQwenRecord(record: Json): boolean {
  const message = record.message as Json | undefined;
  return typeof record.uuid === 'string' && Array.isArray(message?.parts);
}

/**
 * A record as the import holds it. Qwen Code's bookkeeping (telemetry, snapshots) is only
 * counted, but for its `parentUuid`: the chain runs through it, so it is kept as a link alone.
 */
export function qwenRecord(record: Json): Json | undefined {
  if (record.type !== 'system' || isCompression(record)) return record;
  return { uuid: record.uuid, parentUuid: record.parentUuid, type: 'system', subtype: record.subtype };
}

/** Qwen Code's compression: the history the model gets from here on (`compressedHistory`), in place of what came before. */
function isCompression(record: Json): boolean {
  const payload = record.systemPayload as Json | undefined;
  return record.subtype === 'chat_compression' && Array.isArray(payload?.compressedHistory);
}

/** The records of the chain that ends at the last record, in order. */
function chain(records: readonly Json[]): Json[] {
  const byId = new Map<string, Json>();
  for (const r of records) if (typeof r.uuid === 'string') byId.set(r.uuid, r);
  const out: Json[] = [];
  const seen = new Set<string>();
  let at = [...records].reverse().find((r) => typeof r.uuid === 'string');
  while (at && !seen.has(at.uuid as string)) {
    seen.add(at.uuid as string);
    out.push(at);
    at = typeof at.parentUuid === 'string' ? byId.get(at.parentUuid) : undefined;
  }
  return out.reverse();
}

export async function convertQwen(records: readonly Json[], path: string): Promise<Conversion> {
  const yielder = new Yielder();
  const skipped: Record<string, number> = {};
  const notes: string[] = [];
  const info = sessionInfo(records, 'sessionId', 'version');
  const kept = chain(records);
  const left = records.filter((r) => typeof r.uuid === 'string').length - kept.length;
  if (left > 0)
    notes.push(
      `${left} record${left > 1 ? 's' : ''} of a branch the chat left (a rewind or a retry) ${left > 1 ? 'are' : 'is'} not in the run`,
    );
  // A result's record says where Qwen Code saved the output it cut.
  const saved = new Map<string, string>();
  for (const r of kept) {
    const result = r.toolCallResult as Json | undefined;
    const display = result?.resultDisplay as Json | undefined;
    const files = Array.isArray(display?.outputFiles) ? display.outputFiles : [];
    if (typeof result?.callId === 'string' && typeof files[0] === 'string') saved.set(result.callId, files[0]);
  }
  // By name only, in this Qwen home's own tmp folder: the path in the file is not followed.
  const full: FullFor = (callId) => {
    const file = inQwenHome(path) ? saved.get(callId) : undefined;
    // Qwen Code's naming only: a project's hash folder, a tool's `.output` file.
    return file && /^[0-9a-f]{64}$/.test(basename(dirname(file))) && /^[\w-]+\.output$/.test(basename(file))
      ? { file: join(basename(dirname(file)), basename(file)) }
      : undefined;
  };
  const writer = new PartsWriter();
  let model: string | undefined;
  for (const r of kept) {
    await yielder.maybe();
    const ts = typeof r.timestamp === 'string' ? r.timestamp : undefined;
    const parts = ((r.message as Json | undefined)?.parts as Json[] | undefined) ?? [];
    if (r.type === 'user' || r.type === 'tool_result') writer.user(parts, ts, { full });
    else if (isCompression(r)) {
      // The history restarts: its compressed contents, then what follows (as Qwen Code rebuilds it).
      writer.events.push({ type: 'compaction', reason: 'auto', ...(ts ? { ts } : {}) });
      writer.restart();
      for (const content of (r.systemPayload as Json).compressedHistory as Json[]) {
        const contentParts = Array.isArray(content?.parts) ? (content.parts as Json[]) : [];
        if (content?.role === 'model') writer.model(contentParts, ts);
        else writer.user(contentParts, ts, { injected: true });
      }
    } else if (r.type === 'assistant') {
      if (typeof r.model === 'string') model ??= r.model;
      writer.model(parts, ts, [], qwenUsage(r.usageMetadata));
    } else countKind(skipped, recordKind(r));
  }
  const first = kept.find((r) => typeof r.timestamp === 'string');
  const events: TranscriptEvent[] = [
    importedStart('qwen-code', path, {
      tools: writer.names.values(),
      model,
      ...info,
      fidelity: 'conversation',
      ts: first?.timestamp as string | undefined,
    }),
    ...writer.events,
  ];
  return {
    format: 'qwen-code',
    events,
    fidelity: 'conversation',
    outputs: writer.outputs,
    // <qwen home>/projects/<project>/chats/<session>.jsonl: the home's tmp folder (a file elsewhere has none).
    ...(inQwenHome(path) ? { outputsDir: join(dirname(dirname(dirname(dirname(path)))), 'tmp') } : {}),
    skipped,
    notes,
  };
}
