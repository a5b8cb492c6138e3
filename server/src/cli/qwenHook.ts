/**
 * `retained hook qwen`: Qwen Code's `PostToolUse` and `PostToolUseFailure` hooks on its shell tool.
 *
 * - PostToolUse (the command succeeded): Qwen Code hands the hook the whole output
 *   (`tool_response.returnDisplay`, where the model's copy is cut to its head and tail); over the
 *   threshold it is retained under run = the session, call = the tool call, and the hook answers
 *   `{"continue": false, "stopReason": <stub>}`, which Qwen Code sends the model as the tool's
 *   result in place of its cut (the turn goes on).
 * - PostToolUseFailure (it exited non-zero): the hook gets only Qwen Code's own cut, which names
 *   the file it saved the whole text to; that file (checked to be Qwen Code's: see savedOutput)
 *   is retained, and the hook answers the stub as `additionalContext`, which Qwen Code adds after
 *   its cut: a failure hook cannot replace it.
 *
 * Under the threshold it prints nothing. It never breaks the agent: on any failure it prints
 * nothing and exits 0.
 */
import { constants } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import * as z from 'zod';
import { AGENTS, GEMINI_SHELL_TOOL } from '../../../shared/agents';
import { check } from '../../../shared/check';
import { ID_MAX } from '../../../shared/ids';
import type { Exit } from '../../../shared/protocol';
import type { RetentionService } from '../core/service';
import { utf8Bytes } from '../core/text/bytes';
import { afterCompaction, type HookAnswer, isSessionStart, SessionStartInput } from './hook';

const QwenHookInput = z.looseObject({
  hook_event_name: z.string().max(100),
  session_id: z.string().min(1).max(ID_MAX),
  tool_name: z.string().min(1).max(ID_MAX),
  tool_call_id: z.string().min(1).max(ID_MAX).optional(),
  tool_use_id: z.string().min(1).max(ID_MAX).optional(),
  tool_input: z.unknown().optional(),
  tool_response: z.looseObject({ returnDisplay: z.unknown().optional() }).optional(),
  /** PostToolUseFailure: the text the model gets. */
  error: z
    .string()
    .max(1 << 20)
    .optional(),
  duration_ms: z.number().min(0).optional(),
});

/** Qwen Code's own cut, naming the file it saved the whole text to, and the head it shows. */
const SAVED_CUT =
  /^Tool output was too large and has been truncated\.\nThe full output has been saved to: (\S+)\n[\s\S]*?\nTruncated part of the output:\n/;
/** The names Qwen Code gives the files it saves a shell's text to. */
const SAVED_NAME = /^run_shell_command_[0-9a-f]{12}\.output$/;
/** How far from the hook's call a saved file may have been written. */
const SAVED_WITHIN_MS = 10 * 60_000;

/** The most of a saved file the hook reads: Qwen Code keeps up to 64 MiB of a command's output. */
const SAVED_MAX_BYTES = 80 << 20;

/** The line Qwen Code adds to a long output, naming the file it saved it to. */
const SAVED_NOTE = /\nOutput too long and was saved to: [^\n]*$/;

/** `retained hook qwen`: a shell tool's result, or a session restarted by a compaction or a resume. */
export const qwenHook: HookAnswer = (service, raw) =>
  isSessionStart(raw)
    ? afterCompaction(service, check(SessionStartInput, raw, 'the hook input'), 'qwen')
    : toolAnswer(service, raw);

async function toolAnswer(service: RetentionService, raw: unknown): Promise<unknown> {
  const input = check(QwenHookInput, raw, 'the hook input');
  if (input.tool_name !== GEMINI_SHELL_TOOL) return undefined;
  const callId = input.tool_call_id ?? input.tool_use_id;
  if (!callId) return undefined;
  const call = {
    runId: input.session_id,
    callId,
    tool: input.tool_name,
    ...(input.tool_input !== undefined ? { arguments: input.tool_input } : {}),
    ...(input.duration_ms !== undefined ? { durationMs: input.duration_ms } : {}),
  };
  // Qwen Code names MCP tools as Claude Code does.
  const door = { peekTool: AGENTS.qwen.peekTool };
  if (input.hook_event_name === 'PostToolUseFailure') {
    const saved = input.error === undefined ? undefined : await savedOutput(input.error);
    if (!saved) return undefined;
    const { text, exit } = saved;
    const result = await service.retainer.retain({ ...call, text, exit, isError: true }, door);
    if (!result.retained && !result.withheld) return undefined;
    return { hookSpecificOutput: { hookEventName: 'PostToolUseFailure', additionalContext: result.content } };
  }
  if (input.hook_event_name !== 'PostToolUse') return undefined;
  const shown = input.tool_response?.returnDisplay;
  if (typeof shown !== 'string') return undefined;
  const text = shown.replace(SAVED_NOTE, '');
  const small = utf8Bytes(text) <= service.getSettings().thresholdBytes;
  if (small && !service.withholder.guard()?.find(text)) return undefined;
  const result = await service.retainer.retain({ ...call, text, exit: { code: 0 } }, door);
  if (!result.retained && !result.withheld) return undefined;
  return { continue: false, stopReason: result.content };
}

/**
 * The whole output of a failed command, from the file Qwen Code's cut names, when it is one Qwen
 * Code wrote for this call: a command's own output opens its cut, so it could print a notice
 * of its own. The file must be under Qwen Code's naming in a `tmp/` folder, a regular file (a
 * link is not followed) of this user, written about now, and start with the head the cut shows.
 */
async function savedOutput(cut: string): Promise<{ text: string; exit: Exit } | undefined> {
  const found = SAVED_CUT.exec(cut);
  if (!found) return undefined;
  const file = resolve(found[1]!);
  if (!SAVED_NAME.test(basename(file)) || basename(dirname(dirname(file))) !== 'tmp') return undefined;
  const stat = await lstat(file).catch(() => undefined);
  if (!stat?.isFile() || stat.size > SAVED_MAX_BYTES) return undefined;
  if (process.getuid && stat.uid !== process.getuid()) return undefined;
  if (Math.abs(stat.mtimeMs - Date.now()) > SAVED_WITHIN_MS) return undefined;
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  let whole: string;
  try {
    whole = await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
  const shown = cut.slice(found[0].length, found[0].length + 200).split('\n\n---\n')[0]!;
  if (!whole.startsWith(shown.replace(/\.\.\.$/, ''))) return undefined;
  // The text Qwen Code made for the model: `Command:`, `Directory:`, `Output: …`, then a line each for the error and the exit.
  const output =
    /\nOutput: ([\s\S]*)\nError: [^\n]*\nExit Code: (-?\d+|\(none\))\nSignal: ([^\n]*)\nProcess Group PGID: [^\n]*$/.exec(
      whole,
    );
  if (!output) return { text: whole, exit: { code: 1 } };
  const signal = output[3]!;
  const exit: Exit = /^SIG[A-Z0-9]{1,12}$/.test(signal)
    ? { signal }
    : { code: /^-?\d+$/.test(output[2]!) ? Number(output[2]) : 1 };
  return { text: output[1] === '(empty)' ? '' : output[1]!, exit };
}
