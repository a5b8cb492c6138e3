/**
 * "As the agent sent it", checked whole: every request body a real agent sent a scripted model
 * (logged in a fixture's `requests.jsonl`) against the request the import rebuilds from the
 * agent's own session files. The only differences allowed are the ones its format's row lists
 * as what those files do not record (`notRecorded`, shared/agents.ts), each undone here by name.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { cutOf, responseStarts } from '../../server/src/core/history/modelCalls';
import { toAnthropic, toOpenAIChat, toOpenAIResponses } from '../../server/src/core/history/providers';
import { replayStructured } from '../../server/src/core/history/replay';
import type { RetentionService } from '../../server/src/core/service';
import { PROVIDER_SHAPES } from '../../shared/history';
import type { ImportResult } from '../../shared/protocol';
import { INTERRUPTED_RESULT } from '../../shared/stubText';
import { validateHistory } from './pairing';

export interface Logged {
  url: string;
  body: Record<string, unknown> & { messages?: { role: string; content: unknown }[]; tools?: unknown[] };
  answeredBy: unknown;
}

export function loggedRequests(dir: string): Logged[] {
  return readFileSync(join(dir, 'requests.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Logged);
}

/** The session file of a recorded Claude Code fixture (the project folder's one `.jsonl`). */
export function sessionFile(dir: string): string {
  const project = join(dir, 'project');
  const file = readdirSync(project).find((f) => f.endsWith('.jsonl'));
  assert.ok(file, `${dir} has a session file`);
  return join(project, file);
}

const BILLING = 'x-anthropic-billing-header:';

/** Content as the API reads it: a string is its one text block. */
function asBlocks(messages: readonly { role: string; content: unknown }[]): unknown[] {
  return messages.map((m) => ({
    ...m,
    content: typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content,
  }));
}

/** A logged Claude Code body less what a session file does not record (its format's notRecorded in shared/agents.ts, in its order). */
export function claudeCodeComparable(body: Logged['body']): Record<string, unknown> {
  const { metadata: _metadata, stream: _stream, safeguards: _safeguards, ...rest } = body;
  const system = Array.isArray(rest.system)
    ? (rest.system as { text?: string }[]).filter((b, i) => !(i === 0 && b.text?.startsWith(BILLING)))
    : rest.system;
  return { ...rest, ...(system !== undefined ? { system } : {}), messages: asBlocks(rest.messages ?? []) };
}

/**
 * A request of Claude Code's main loop or a subagent's: it has tools and streams. Side calls
 * (titles) have no tools; a compaction's own summary request is not in the session file.
 */
export function isModelLoop(request: Logged): boolean {
  if (!request.url.startsWith('/v1/messages') || request.body.stream !== true) return false;
  if (!Array.isArray(request.body.tools) || request.body.tools.length === 0) return false;
  const last = JSON.stringify(request.body.messages?.[request.body.messages.length - 1] ?? '');
  return !last.includes('Your task is to create a detailed summary of the conversation so far');
}

/** Every model call of an import (and its subagents) as the body the replay rebuilds, by run. */
export async function rebuiltBodies(
  s: RetentionService,
  result: ImportResult,
): Promise<{ runId: string; modelCall: number; body: Record<string, unknown> }[]> {
  const out: { runId: string; modelCall: number; body: Record<string, unknown> }[] = [];
  for (const run of [result, ...result.subagents]) {
    const outline = await s.inspection.inspect({ runId: run.runId });
    // The last entry is the next model call, not one that was made.
    for (let k = 1; k < outline.outline.modelCalls.length; k++) {
      const replay = await s.history.replay({ runId: run.runId, shape: 'anthropic', view: 'sent', modelCall: k });
      assert.ok('body' in replay && replay.body, `${run.runId}: model call ${k} has its request recorded`);
      out.push({
        runId: run.runId,
        modelCall: k,
        body: { ...replay.body, messages: asBlocks(replay.body.messages as { role: string; content: unknown }[]) },
      });
    }
  }
  return out;
}

/**
 * Pairs each logged model-loop request with the rebuilt one equal to it, in order within each
 * run, and fails naming the first that has none (with where it differs from the nearest).
 */
export function assertEveryRequestRebuilt(
  logged: readonly Logged[],
  rebuilt: readonly { runId: string; modelCall: number; body: Record<string, unknown> }[],
): void {
  const wanted = logged.filter(isModelLoop).map((r) => claudeCodeComparable(r.body));
  const used = new Set<number>();
  const last = new Map<string, number>();
  wanted.forEach((body, i) => {
    const match = rebuilt.findIndex((r, j) => !used.has(j) && isDeepStrictEqual(r.body, body));
    if (match === -1) {
      const near = nearest(rebuilt, body, used);
      assert.fail(`logged request ${i + 1} has no rebuilt request equal to it; nearest: ${near}`);
    }
    used.add(match);
    const { runId, modelCall } = rebuilt[match]!;
    assert.ok((last.get(runId) ?? 0) < modelCall, `${runId}: model calls rebuilt in the order they were sent`);
    last.set(runId, modelCall);
  });
  const left = rebuilt.filter((_, j) => !used.has(j)).map((r) => `${r.runId} model call ${r.modelCall}`);
  assert.deepEqual(left, [], 'every rebuilt request was sent');
}

/** The rebuilt request closest to `body`, and the first field where they differ. */
function nearest(
  rebuilt: readonly { runId: string; modelCall: number; body: Record<string, unknown> }[],
  body: Record<string, unknown>,
  used: ReadonlySet<number>,
): string {
  let best = { score: -1, text: 'none' };
  rebuilt.forEach((r, j) => {
    if (used.has(j)) return;
    const diff = firstDifference(r.body, body);
    const messages = (body.messages as unknown[]).length;
    const same = (r.body.messages as unknown[]).filter((m, i) =>
      isDeepStrictEqual(m, (body.messages as unknown[])[i]),
    ).length;
    const score =
      same * 10 + (diff.startsWith('messages') ? 1 : 0) - Math.abs(messages - (r.body.messages as unknown[]).length);
    if (score > best.score) best = { score, text: `${r.runId} model call ${r.modelCall}, differing at ${diff}` };
  });
  return best.text;
}

function firstDifference(a: unknown, b: unknown, path = ''): string {
  if (isDeepStrictEqual(a, b)) return '';
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const key of keys) {
      const d = firstDifference(
        (a as Record<string, unknown>)[key],
        (b as Record<string, unknown>)[key],
        `${path}.${key}`,
      );
      if (d) return d;
    }
  }
  return `${path || '(root)'}: rebuilt ${JSON.stringify(a)?.slice(0, 160)} vs sent ${JSON.stringify(b)?.slice(0, 160)}`;
}

/**
 * Every request of the run (and the next one), in both views and every provider shape: valid by
 * the provider's pairing rules (no call id twice, every call answered once) and with no
 * interrupted result made up for a call whose result is in the file.
 */
export async function assertSound(s: RetentionService, result: ImportResult) {
  const { events } = await s.transcript({ runId: result.runId });
  const results = new Set(events.flatMap((e) => (e.type === 'tool_call_finished' ? [e.callId] : [])));
  const calls = events.flatMap((e) => (e.type === 'assistant' ? (e.toolCalls ?? []).map((t) => t.id) : []));
  assert.deepEqual(
    calls.filter((id) => !results.has(id)),
    [],
    'every call has its result',
  );
  const requests = responseStarts(events).length + 1;
  for (let k = 1; k <= requests; k++) {
    for (const view of ['sent', 'retained'] as const) {
      const { messages } = replayStructured({
        events: events.slice(0, cutOf(events, k)),
        existingValues: new Set(),
        view,
      });
      const shapes = {
        anthropic: toAnthropic(messages),
        'openai-chat': toOpenAIChat(messages),
        'openai-responses': toOpenAIResponses(messages),
      };
      for (const shape of PROVIDER_SHAPES) {
        // As sent is what the agent sent, blank text and all (Copilot sent some, and its provider took them).
        const problems = validateHistory(shape, shapes[shape]).filter(
          (p) => view === 'retained' || !p.includes('of whitespace only'),
        );
        assert.deepEqual(problems, [], `request ${k}, ${shape}, ${view}`);
      }
      assert.ok(
        !JSON.stringify(messages).includes(INTERRUPTED_RESULT),
        `request ${k}, ${view}: no invented interrupted result`,
      );
    }
  }
}

/** A logged Codex body less what a rollout does not record (its format's notRecorded in shared/agents.ts): input[0], the base instructions, and the request options. */
export function codexComparable(body: Logged['body']): Record<string, unknown> {
  const input = (body.input as { role?: string }[] | undefined) ?? [];
  return {
    model: body.model,
    prompt_cache_key: body.prompt_cache_key,
    input: input[0]?.role === 'developer' ? input.slice(1) : input,
  };
}

/** Every model call of a Codex import as the body the replay rebuilds. */
export async function rebuiltCodexBodies(s: RetentionService, runId: string): Promise<Record<string, unknown>[]> {
  const outline = await s.inspection.inspect({ runId });
  const out: Record<string, unknown>[] = [];
  for (let k = 1; k < outline.outline.modelCalls.length; k++) {
    const replay = await s.history.replay({ runId, shape: 'openai-responses', view: 'sent', modelCall: k });
    assert.ok('body' in replay && replay.body, `model call ${k} has its request recorded`);
    const { model, prompt_cache_key, input } = replay.body;
    out.push({ model, prompt_cache_key, input });
  }
  return out;
}
