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
 *
 * A hook never breaks the agent: on any failure it prints nothing and exits 0.
 */
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import * as z from 'zod/mini';
import { check } from '../../../shared/check';
import { ID_MAX, PATH_MAX } from '../../../shared/ids';
import type { Launcher } from '../../../shared/launcher';
import { isRewritten, rewrite } from '../../../shared/rewrite';
import { codexWouldAsk } from './codexRules';
import type { HookAnswer } from './hook';

/**
 * What Codex sends a PreToolUse hook; loose, as each release adds fields. In zod/mini (the same
 * checks, a sixth of the code to load), as this runs before every shell command.
 */
const CodexHookInput = z.looseObject({
  hook_event_name: z.string().check(z.maxLength(100)),
  session_id: z.string().check(z.minLength(1), z.maxLength(ID_MAX)),
  tool_name: z.string().check(z.minLength(1), z.maxLength(ID_MAX)),
  tool_use_id: z.string().check(z.minLength(1), z.maxLength(ID_MAX)),
  permission_mode: z.optional(z.string().check(z.maxLength(100))),
  cwd: z.optional(z.string().check(z.maxLength(PATH_MAX))),
  tool_input: z.optional(z.looseObject({ command: z.optional(z.string()) })),
});

/** The hook's answer for one call, or undefined to leave it as it is; `why` says why not. */
export function codexAnswer(
  raw: unknown,
  launcher: Launcher,
  store: string,
  guard: boolean,
  why: (reason: string) => void = () => undefined,
  codexHome = process.env.CODEX_HOME || join(homedir(), '.codex'),
): unknown {
  const input = check(CodexHookInput, raw, 'the hook input');
  if (input.hook_event_name !== 'PreToolUse' || input.tool_name !== 'Bash') return undefined;
  const command = input.tool_input?.command;
  if (!command || isRewritten(command)) return undefined;
  const asks = codexWouldAsk(command, { permissionMode: input.permission_mode, cwd: input.cwd, codexHome });
  if (asks) {
    why(`${input.tool_use_id}: not rewritten: ${asks}`);
    return undefined;
  }
  const run = rewrite(
    launcher,
    { store, run: input.session_id, call: input.tool_use_id, tool: 'Bash', guard },
    command,
  );
  if (!run) {
    why(`${input.tool_use_id}: not rewritten: the command is too long to rewrite`);
    return undefined;
  }
  return {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'allow',
      updatedInput: { ...input.tool_input, command: run },
    },
  };
}

/** `retained hook codex` as the bundle answers it (when rewriteHooks.ts declined: the same answer, with the reason logged). */
export const codexHook: HookAnswer = (service, raw, { guard, why }) =>
  codexAnswer(raw, selfLauncher(), service.address, guard, why);

/** This command line, as the wrapped command starts it again. */
export function selfLauncher(): Launcher {
  // Under an editor's own binary, Node runs a script only with ELECTRON_RUN_AS_NODE.
  return {
    node: process.execPath,
    cli: realpathSync(process.argv[1] ?? ''),
    ...(process.versions.electron ? { env: { ELECTRON_RUN_AS_NODE: '1' } } : {}),
  };
}
