/**
 * Hooks that run an agent's shell commands through Retained Outputs: before the shell tool
 * runs, the hook answers the same command wrapped in `retained run`, which streams the whole
 * output into a value of the session's run and prints what the model then gets: the output
 * itself when small, else our stub with its landmarks. The exit status is the command's. For
 * agents whose after-tool hooks cannot replace a result cleanly:
 *
 * - `retained hook codex` (PreToolUse): Codex hands PostToolUse the output already cut to about
 *   10 KB. Rewriting needs `permissionDecision: "allow"`, which would also approve the command,
 *   so it rewrites only where Codex asks no approval anyway (`permission_mode:
 *   bypassPermissions`, as `codex exec` runs); elsewhere MCP `run_command` keeps outputs whole.
 * - `retained hook gemini` (BeforeTool, Gemini CLI and its descendants): an AfterTool answer
 *   replaces a result only as an error; a BeforeTool one rewrites `tool_input` and the model
 *   gets the output, with the CLI's own line saying a hook changed the input.
 *
 * A hook never breaks the agent: on any failure it prints nothing and exits 0.
 */
import { realpathSync } from 'node:fs';
import * as z from 'zod';
import { commandLine, GEMINI_SHELL_TOOL, type Launcher } from '../../../shared/agentSetup';
import { check } from '../../../shared/check';
import { ID_MAX } from '../../../shared/protocol';

/** What Codex sends a PreToolUse hook; loose, as each release adds fields. */
const CodexHookInput = z.looseObject({
  hook_event_name: z.string().max(100),
  session_id: z.string().min(1).max(ID_MAX),
  tool_name: z.string().min(1).max(ID_MAX),
  tool_use_id: z.string().min(1).max(ID_MAX),
  permission_mode: z.string().max(100).optional(),
  tool_input: z.looseObject({ command: z.string().optional() }).optional(),
});

/** What Gemini CLI sends a BeforeTool hook (it names no call: the value gets a fresh id). */
const GeminiHookInput = z.looseObject({
  hook_event_name: z.string().max(100),
  session_id: z.string().min(1).max(ID_MAX),
  tool_name: z.string().min(1).max(ID_MAX),
  tool_input: z.looseObject({ command: z.string().optional() }).optional(),
});

/** Marks a command a hook wrapped, so a command is never wrapped twice. */
const WRAPPED = '--quiet';

/** `command`, run through `retained run` in the session's run. */
function wrapped(
  command: string,
  launcher: Launcher,
  store: string,
  { session, call, tool, guard }: { session: string; call?: string; tool: string; guard: boolean },
): string {
  // `--flag=value`: an id that starts with a dash is still the flag's value.
  return commandLine(launcher, [
    'run',
    `--store=${store}`,
    `--run=${session}`,
    ...(call ? [`--call=${call}`] : []),
    `--tool=${tool}`,
    WRAPPED,
    ...(guard ? ['--guard'] : []),
    '--',
    command,
  ]);
}

const isWrapped = (command: string) => command.includes(' run --store=') && command.includes(` ${WRAPPED} `);

/** The hook's answer for one call, or undefined to leave it as it is; `why` says why not. */
export function codexAnswer(
  raw: unknown,
  launcher: Launcher,
  store: string,
  guard: boolean,
  why: (reason: string) => void = () => undefined,
): unknown {
  const input = check(CodexHookInput, raw, 'the hook input');
  if (input.hook_event_name !== 'PreToolUse' || input.tool_name !== 'Bash') return undefined;
  const command = input.tool_input?.command;
  if (!command || isWrapped(command)) return undefined;
  if (input.permission_mode !== 'bypassPermissions') {
    why(`${input.tool_use_id}: not wrapped: Codex asks approvals here (${input.permission_mode ?? 'no mode'})`);
    return undefined;
  }
  const run = wrapped(command, launcher, store, {
    session: input.session_id,
    call: input.tool_use_id,
    tool: 'Bash',
    guard,
  });
  return {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'allow',
      updatedInput: { ...input.tool_input, command: run },
    },
  };
}

/** Gemini CLI's BeforeTool answer for one call, or undefined to leave it as it is. */
export function geminiAnswer(raw: unknown, launcher: Launcher, store: string, guard: boolean): unknown {
  const input = check(GeminiHookInput, raw, 'the hook input');
  if (input.hook_event_name !== 'BeforeTool' || input.tool_name !== GEMINI_SHELL_TOOL) return undefined;
  const command = input.tool_input?.command;
  if (!command || isWrapped(command)) return undefined;
  const run = wrapped(command, launcher, store, { session: input.session_id, tool: GEMINI_SHELL_TOOL, guard });
  return {
    hookSpecificOutput: { hookEventName: 'BeforeTool', tool_input: { ...input.tool_input, command: run } },
  };
}

/** This command line, as the wrapped command starts it again. */
export function selfLauncher(): Launcher {
  // Under an editor's own binary, Node runs a script only with ELECTRON_RUN_AS_NODE.
  return {
    node: process.execPath,
    cli: realpathSync(process.argv[1] ?? ''),
    ...(process.versions.electron ? { env: { ELECTRON_RUN_AS_NODE: '1' } } : {}),
  };
}
