/**
 * `retained hook gemini`: Gemini CLI's BeforeTool and AfterTool hooks on its shell tool.
 *
 * - BeforeTool: where Gemini CLI would run the command without asking whatever it is (YOLO, no
 *   policy or tools setting that could decide on it: geminiRules.ts), the command is rewritten to
 *   run through `retained run`, which keeps its whole output and prints the stub when it is big;
 *   Gemini CLI tells the model a hook changed the input. Elsewhere it runs as it is.
 * - AfterTool: a command that ran as it is and printed more than the threshold is retained (the
 *   text Gemini CLI made for the model, its last 16 MB at most), and the hook answers the stub as
 *   the reason it blocks the result: the model gets `Tool result blocked: <stub>` in its place.
 *
 * A hook never breaks the agent: on any failure it prints nothing and exits 0.
 */
import { constants, homedir } from 'node:os';
import * as z from 'zod/mini';
import { AGENTS, agentHome, GEMINI_SHELL_TOOL } from '../../../shared/agents';
import { check } from '../../../shared/check';
import { ID_MAX, PATH_MAX } from '../../../shared/ids';
import type { Launcher } from '../../../shared/launcher';
import type { Exit } from '../../../shared/protocol';
import { isRewritten, type RewriteOptions, rewrite } from '../../../shared/rewrite';
import type { RetentionService } from '../core/service';
import { utf8Bytes } from '../core/text/bytes';
import { selfLauncher } from './commandHooks';
import { geminiWouldAsk } from './geminiRules';
import type { HookAnswer } from './hook';

/**
 * What Gemini CLI sends its tool hooks (it names no call: a value gets a fresh id); loose, as
 * releases add fields. In zod/mini, as its BeforeTool runs before every shell command.
 */
const GeminiHookInput = z.looseObject({
  hook_event_name: z.string().check(z.maxLength(100)),
  session_id: z.string().check(z.minLength(1), z.maxLength(ID_MAX)),
  cwd: z.optional(z.string().check(z.maxLength(PATH_MAX))),
  tool_name: z.string().check(z.minLength(1), z.maxLength(ID_MAX)),
  tool_input: z.optional(z.looseObject({ command: z.optional(z.string()) })),
  tool_response: z.optional(z.looseObject({ llmContent: z.optional(z.unknown()) })),
});

export interface GeminiContext {
  launcher: Launcher;
  guard: boolean;
  geminiHome: string;
  /** Says why a command was left as it is. */
  why?: (reason: string) => void;
  /** Gemini CLI's own command line (read from the process above the hook when not given). */
  argv?: readonly string[];
}

/** The hook input of a shell command not rewritten yet, checked; undefined for any other call. */
function shellCall(raw: unknown): (z.infer<typeof GeminiHookInput> & { command: string }) | undefined {
  const input = check(GeminiHookInput, raw, 'the hook input');
  const command = input.tool_input?.command;
  if (input.tool_name !== GEMINI_SHELL_TOOL || !command || isRewritten(command)) return undefined;
  return { ...input, command };
}

/** Gemini CLI's answer for one hook call, or undefined to leave the call as it is. */
/** `retained hook gemini`: BeforeTool's rewrite, or AfterTool's big output retained. */
export const geminiHook: HookAnswer = (service, raw, { guard, why }) =>
  answer(service, raw, {
    launcher: selfLauncher(),
    guard,
    geminiHome: agentHome('gemini', homedir(), process.env),
    why,
  });

async function answer(service: RetentionService, raw: unknown, context: GeminiContext): Promise<unknown> {
  const input = shellCall(raw);
  if (!input) return undefined;
  if (input.hook_event_name === 'BeforeTool') return beforeTool(input, service.address, context);
  if (input.hook_event_name !== 'AfterTool') return undefined;
  const content = input.tool_response?.llmContent;
  if (typeof content !== 'string') return undefined;
  const { text, exit } = outputOf(content);
  const small = utf8Bytes(text) <= service.getSettings().thresholdBytes;
  if (small && !service.withholder.guard()?.find(text)) return undefined;
  const result = await service.retainer.retain(
    {
      runId: input.session_id,
      callId: `${GEMINI_SHELL_TOOL}-${Date.now()}-${Math.random().toString(16).slice(2, 8)}`,
      tool: GEMINI_SHELL_TOOL,
      text,
      arguments: input.tool_input,
      exit,
      isError: !('code' in exit) || exit.code !== 0,
    },
    { peekTool: AGENTS.gemini.peekTool },
  );
  if (!result.retained && !result.withheld) return undefined;
  return { decision: 'block', reason: result.content };
}

/**
 * Gemini CLI 0.61 hands bash (`bash -c`) a script around the command: it unsets the options that
 * would change how it reads (`shopt -u …`), and runs the command, trimmed, in a subshell whose EXIT
 * trap lists its background jobs into a file Gemini CLI reads after. The rewrite is what runs in
 * that script, so `retained run` starts the command in the same script, the jobs list going to
 * the same file: line numbers, `$$`, traps, options and job messages are what they would have been.
 */
function asGeminiRuns(command: string): string {
  let trimmed = command.trim();
  if (trimmed.endsWith('\\')) trimmed += ' ';
  return `shopt -u promptvars nullglob extglob nocaseglob dotglob; _bgpids_file=\${_bgpids_file:-/dev/null}; export -n _bgpids_file
(
  trap 'jobs -p > "$_bgpids_file"' EXIT
${trimmed}
)
__code=$?
exit $__code`;
}

/** The rewrite of a command for Gemini CLI's shell: it runs as Gemini CLI would have run it. */
export function geminiRewrite(launcher: Launcher, options: RewriteOptions, command: string): string | undefined {
  return rewrite(launcher, { ...options, pass: ['_bgpids_file'] }, asGeminiRuns(command));
}

/** A signal as Gemini CLI names it (its number, or its name), by its name. */
function signalName(said: string): string {
  if (/^SIG[A-Z0-9]{1,12}$/.test(said)) return said;
  const named = Object.entries(constants.signals).find(([, n]) => String(n) === said)?.[0];
  return named ?? 'SIGKILL';
}

/** The lines Gemini CLI writes after a command's output. */
const AFTER = /\n(Error|Exit Code|Signal|Background PIDs|Process Group PGID): ([^\n]*)$/;

/**
 * The command's output in the text Gemini CLI made for the model (`Output: …` then a line each
 * for the exit code, the signal, the process group; inside `<untrusted_context>`), and how it
 * ended. Gemini CLI trims the output's end, so its last newline is not there.
 */
function outputOf(content: string): { text: string; exit: Exit } {
  let text = content.replace(/^<untrusted_context>\n/, '').replace(/\n<\/untrusted_context>\s*$/, '');
  if (!text.startsWith('Output: ')) return { text: content, exit: { code: 0 } };
  const after: Record<string, string> = {};
  for (let m = AFTER.exec(text); m; m = AFTER.exec(text)) {
    after[m[1]!] = m[2]!;
    text = text.slice(0, m.index);
  }
  text = text.slice('Output: '.length);
  if (text === '(empty)') text = '';
  const signal = after.Signal;
  const exit: Exit = signal
    ? { signal: signalName(signal) }
    : { code: /^-?\d{1,9}$/.test(after['Exit Code'] ?? '') ? Number(after['Exit Code']) : 0 };
  return { text, exit };
}

/** BeforeTool: the command rewritten to run through `retained run` into `store`, where Gemini CLI would ask nothing. */
function beforeTool(
  input: z.infer<typeof GeminiHookInput> & { command: string },
  store: string,
  context: GeminiContext,
) {
  const asks = geminiWouldAsk({ cwd: input.cwd, geminiHome: context.geminiHome }, context.argv);
  if (asks) {
    context.why?.(`not rewritten: ${asks}; its AfterTool hook keeps a big output`);
    return undefined;
  }
  const run = geminiRewrite(
    context.launcher,
    { store, run: input.session_id, tool: GEMINI_SHELL_TOOL, guard: context.guard },
    input.command,
  );
  if (!run) return undefined;
  return { hookSpecificOutput: { hookEventName: 'BeforeTool', tool_input: { ...input.tool_input, command: run } } };
}

/**
 * BeforeTool with no store open (cli/rewriteHooks.ts): `{ answer }` (undefined: the call left as
 * it is), or undefined when the bundle is to answer (AfterTool, which may retain).
 */
export function geminiBeforeTool(raw: unknown, store: string, context: GeminiContext): { answer: unknown } | undefined {
  const input = shellCall(raw);
  if (!input) return { answer: undefined };
  if (input.hook_event_name !== 'BeforeTool') return undefined;
  return { answer: beforeTool(input, store, context) };
}
