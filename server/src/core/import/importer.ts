/**
 * Imports an agent's session file as a run: read (bounded, as a stream), convert (pure), then
 * write, and only then: a file that cannot be read, or holds no conversation, or a run id that
 * is taken, creates nothing. Full outputs the agent kept beside the session (Claude Code's
 * `tool-results/`) are read in, and every result over the threshold becomes a retained value,
 * so it can be opened and peeked, and the "with Retained Outputs" view can show its stub.
 */
import { open, readdir } from 'node:fs/promises';
import { basename, extname, isAbsolute, join, resolve } from 'node:path';
import { check } from '../../../../shared/check';
import type { TranscriptEvent } from '../../../../shared/events';
import { InvalidInput } from '../../../../shared/invalidInput';
import { type IfExists, type ImportFormat, ImportParams, type ImportResult } from '../../../../shared/protocol';
import type { Context } from '../context';
import type { Retainer } from '../retain/retainer';
import { convertClaudeCode } from './claudeCode';
import { convertCodex } from './codex';
import type { Conversion } from './conversion';
import { convertCopilot, isCopilotReplay } from './copilot';
import {
  IMPORT_MAX_BYTES,
  type Json,
  READ_NOW,
  readSessionJson,
  readSessionRecords,
  UnreadableSession,
} from './records';

/** The error an import answers when its run exists; `data.runId` names it. */
export class RunExists extends InvalidInput {
  constructor(readonly runId: string) {
    super(`run ${runId} exists already: pass ifExists "replace" to replace it, or "new" to import as a new run`);
  }
}

export function detectFormat(records: readonly Json[]): ImportFormat | undefined {
  for (const r of records) {
    if ('payload' in r && typeof r.type === 'string') return 'codex';
    if ('message' in r || 'sessionId' in r) return 'claude-code';
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

  /** Resolves when the runs imported so far are prepared (a command line waits for it before it exits). */
  prepared(): Promise<void> {
    return this.preparing;
  }

  /**
   * Imports a session (and its subagents' sessions). With `signal`, it can be cancelled: what it
   * wrote so far is removed, and nothing of it is kept.
   */
  async import(input: ImportParams, signal?: AbortSignal): Promise<ImportResult> {
    const written: string[] = [];
    try {
      const result = await this.importOne(input, signal, written);
      for (const runId of written)
        this.preparing = this.preparing.then(() => this.prepare(runId)).catch(() => undefined);
      return result;
    } catch (err) {
      if (!signal?.aborted) throw err;
      for (const runId of written)
        await this.ctx.writing(runId, () => this.ctx.runs.delete(runId)).catch(() => undefined);
      throw new InvalidInput('the import was cancelled; nothing of it was kept');
    }
  }

  private async importOne(
    input: ImportParams,
    signal: AbortSignal | undefined,
    written: string[],
  ): Promise<ImportResult> {
    const params = check(ImportParams, input);
    const path = isAbsolute(params.path) ? params.path : resolve(this.workspace, params.path);
    signal?.throwIfAborted();
    const { conversion, skippedLines } = await convert(path, params.format);
    signal?.throwIfAborted();
    const format = conversion.format;
    if (!conversion.events.some((e) => e.type === 'user' || e.type === 'assistant')) {
      throw new InvalidInput(
        `${path} holds no ${AGENTS[format]} conversation${params.format ? ' (is the format right?)' : ''}`,
      );
    }
    const { runId, name } = await this.claimRunId(
      params.runId ?? basename(path, extname(path)),
      params.ifExists ?? 'error',
    );
    const sessionDir = path.slice(0, -extname(path).length || undefined);
    const lostOutputs = await readOutputs(conversion, sessionDir);
    signal?.throwIfAborted();

    const result = await this.ctx.writing(runId, () => this.writeRun(runId, name, conversion, signal));
    written.push(runId);
    const subagents: ImportResult[] = [];
    if (format === 'claude-code' && params.subagents !== false) {
      const dir = join(sessionDir, 'subagents');
      const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.jsonl')).sort();
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
          ),
        );
      }
    }
    return {
      ...result,
      name,
      format,
      fidelity: conversion.fidelity,
      lostOutputs,
      skippedLines,
      skipped: conversion.skipped,
      notes: conversion.notes,
      subagents,
    };
  }

  /** The run to import into: `name`'s, unless it is taken and `ifExists` says otherwise. */
  private async claimRunId(name: string, ifExists: IfExists): Promise<{ runId: string; name: string }> {
    const { store, runs } = this.ctx;
    const runId = await runs.key(name);
    if (!(await store.runExists(runId))) return { runId, name };
    if (ifExists === 'error') throw new RunExists(runId);
    if (ifExists === 'replace') {
      await this.ctx.writing(runId, () => runs.delete(runId));
      return { runId, name };
    }
    for (let n = 2; ; n++) {
      const next = await runs.key(`${name}-${n}`);
      if (!(await store.runExists(next))) return { runId: next, name: `${name}-${n}` };
    }
  }

  /** Stores the values, then the transcript; on a failure, removes what it wrote. */
  private async writeRun(
    runId: string,
    name: string,
    conversion: Conversion,
    signal?: AbortSignal,
  ): Promise<Pick<ImportResult, 'runId' | 'events' | 'toolCalls' | 'retained'>> {
    const events: TranscriptEvent[] = [];
    let retained = 0;
    let toolCalls = 0;
    const called = new Set<string>();
    try {
      for (const event of conversion.events) {
        if (event.type === 'assistant') {
          for (const call of event.toolCalls ?? []) called.add(call.id);
          toolCalls += event.toolCalls?.length ?? 0;
        }
        if (event.type !== 'tool_call_finished') {
          events.push(event);
          continue;
        }
        if (!called.has(event.callId)) toolCalls++;
        signal?.throwIfAborted();
        const stored = await this.retainer.retainImported(runId, event);
        if (stored.valueId) retained++;
        events.push(stored);
      }
      const start = conversion.events[0];
      await this.retainer.writeTranscript(runId, name, events, start?.ts);
    } catch (err) {
      await this.ctx.runs.delete(runId).catch(() => undefined);
      throw err;
    }
    return { runId, events: events.length, toolCalls, retained };
  }
}

const AGENTS: Record<ImportFormat, string> = {
  'claude-code': 'Claude Code',
  codex: 'Codex',
  copilot: 'Copilot chat replay',
};

/** Reads and converts the file: JSON Lines (Claude Code, Codex), or one JSON document (a Copilot chat replay). */
async function convert(
  path: string,
  format: ImportFormat | undefined,
): Promise<{ conversion: Conversion; skippedLines: number[] }> {
  try {
    if (format === 'copilot' || (format === undefined && path.endsWith('.json'))) {
      const data = await readSessionJson(path);
      if (!isCopilotReplay(data)) throw new InvalidInput(`${path} is not a Copilot chat replay (no "prompts")`);
      return { conversion: convertCopilot(data as Json, path), skippedLines: [] };
    }
    const read = await readSessionRecords(path);
    const detected = format ?? detectFormat(read.records);
    if (!detected || detected === 'copilot')
      throw new InvalidInput(`path is neither a Claude Code session nor a Codex rollout: ${path}`);
    return {
      conversion: detected === 'codex' ? convertCodex(read.records, path) : convertClaudeCode(read.records, path),
      skippedLines: read.skippedLines,
    };
  } catch (err) {
    throw err instanceof UnreadableSession ? new InvalidInput(`path ${err.message}`) : err;
  }
}

/**
 * Reads the full outputs the agent kept beside the session into their results. Only files
 * in the session's own `tool-results/` folder, by name: the path in the file is not followed.
 * Returns how many are gone.
 */
async function readOutputs(conversion: Conversion, sessionDir: string): Promise<number> {
  let lost = 0;
  for (const event of conversion.events) {
    if (event.type !== 'tool_call_finished') continue;
    const saved = conversion.outputs.get(event.callId);
    if (!saved) continue;
    const file = join(sessionDir, 'tool-results', basename(saved));
    try {
      event.result = await readRegularFile(file);
    } catch (err) {
      lost++;
      event.lost = `the full output (tool-results/${basename(saved)}) could not be read: ${(err as Error).message}; only the preview the model got is kept`;
    }
  }
  return lost;
}

async function readRegularFile(path: string): Promise<string> {
  const handle = await open(path, READ_NOW);
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new Error('not a regular file');
    if (stat.size > IMPORT_MAX_BYTES) throw new Error(`${stat.size} bytes, over the import limit`);
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}
