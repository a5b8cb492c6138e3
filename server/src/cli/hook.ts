/**
 * `retained hook <agent>`: the agent's input on stdin (bounded), its answer (the table of
 * agentAdapters.ts) on stdout. It must never break the agent: on any failure it prints nothing,
 * exits 0, and says why in the store's `hook.log`.
 */
import * as z from 'zod';
import { AGENTS, MCP_SERVER } from '../../../shared/agents';
import { ID_MAX } from '../../../shared/ids';
import { isHandedIndex, retainedIndex } from '../../../shared/stubText';
import type { RetentionService } from '../core/service';

/** The most a hook reads from stdin: a Bash output past Claude Code's cut is in a file instead. */
const STDIN_MAX_BYTES = 64 << 20;

/** What a hook is given besides its input: `--guard`, and where it says why it left an input alone. */
export interface HookContext {
  guard: boolean;
  why: (note: string) => void;
}
export type HookAnswer = (service: RetentionService, raw: unknown, context: HookContext) => Promise<unknown> | unknown;

export async function runHook(
  service: RetentionService,
  agent: string,
  answerOf: HookAnswer,
  guard: boolean,
  stdin: NodeJS.ReadableStream = process.stdin,
): Promise<number> {
  try {
    const raw = JSON.parse(await readAll(stdin)) as unknown;
    const notes: string[] = [];
    const answer = await answerOf(service, raw, { guard, why: (note) => notes.push(note) });
    if (answer !== undefined) process.stdout.write(`${JSON.stringify(answer)}\n`);
    for (const note of notes) await log(service, `${agent}: ${note}`);
  } catch (err) {
    await log(service, `${agent}: no answer: ${(err as Error).stack ?? String(err)}`);
  }
  return 0;
}

/** What Claude Code and Qwen Code send a SessionStart hook: `source` says why the session (re)starts. */
export const SessionStartInput = z.looseObject({
  session_id: z.string().min(1).max(ID_MAX),
  hook_event_name: z.literal('SessionStart'),
  source: z.string().max(ID_MAX).optional(),
});

export const isSessionStart = (raw: unknown) => isObject(raw) && raw.hook_event_name === 'SessionStart';

/**
 * After a compaction (SessionStart with source `compact`): the index of the values retained in
 * the session so far, as context the model gets with its summary, so that it reads a value again
 * rather than running its tool again. Recorded in the run as what the model was handed. Both
 * agents name MCP tools `mcp__<server>__<tool>`; Claude Code adds the context after the summary,
 * where it stays. Qwen Code puts it in its system instruction, which a resumed session builds
 * anew: on `resume` the last index handed is handed again, as it was recorded.
 */
export async function afterCompaction(
  service: RetentionService,
  input: z.infer<typeof SessionStartInput>,
  agent: 'claude-code' | 'qwen',
): Promise<unknown> {
  const runId = input.session_id;
  const answer = (index: string) => ({
    hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: index },
  });
  if (!(await service.store.runExists(runId))) return undefined;
  if (input.source === 'resume' && agent === 'qwen') {
    const { events } = await service.transcript({ runId });
    const last = events.findLast(isHandedIndex);
    return last?.type === 'user' ? answer(last.text) : undefined;
  }
  if (input.source !== 'compact') return undefined;
  const values = await service.values.indexed(runId);
  const index = retainedIndex(values, runId, AGENTS[agent].peekTool, `mcp__${MCP_SERVER}__list_retained`);
  if (!index) return undefined;
  await service.retainer.append({ runId, event: { type: 'user', text: index, injected: true } });
  return answer(index);
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const parts: Buffer[] = [];
  let bytes = 0;
  for await (const part of stream) {
    const chunk = typeof part === 'string' ? Buffer.from(part) : (part as Buffer);
    bytes += chunk.length;
    if (bytes > STDIN_MAX_BYTES) throw new Error(`the hook input is over ${STDIN_MAX_BYTES} bytes`);
    parts.push(chunk);
  }
  return Buffer.concat(parts).toString('utf8');
}

/** A line in the store's hook log, where it keeps one (a team store does not: the agent's own log has the hook's errors). */
export async function log(service: RetentionService, line: string): Promise<void> {
  // Nowhere to say a failure: the agent goes on regardless.
  await service.store.logHook?.(line).catch(() => undefined);
}
