/**
 * `retained hook codex`: a Codex `PreToolUse` hook. Codex hands a PostToolUse hook the shell's
 * output already cut to about 10 KB, so the whole output can only be had by running the command
 * through Retained Outputs: for the shell tool (`Bash` to hooks), the hook answers the same
 * command wrapped in `retained run`, which streams its whole output into a value of the session's
 * run (named after the call) and prints what the model then gets: the output itself when small,
 * else our stub with its landmarks. The exit status is the command's.
 *
 * Rewriting a command needs `permissionDecision: "allow"`, which would also approve it: so the
 * hook rewrites only where Codex asks no approval anyway (`permission_mode: bypassPermissions`,
 * as `codex exec` runs), and otherwise leaves the command alone (MCP `run_command` still keeps
 * outputs whole). It never breaks the agent: on any failure it prints nothing and exits 0.
 */
import { realpathSync } from 'node:fs';
import { z } from 'zod';
import { commandLine, type Launcher } from '../../../shared/agentSetup';
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

/** Marks a command this hook wrapped, so a command is never wrapped twice. */
const WRAPPED = '--tool Bash --quiet';

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
  if (!command || command.includes(WRAPPED)) return undefined;
  if (input.permission_mode !== 'bypassPermissions') {
    why(`${input.tool_use_id}: not wrapped: Codex asks approvals here (${input.permission_mode ?? 'no mode'})`);
    return undefined;
  }
  const wrapped = commandLine(launcher, [
    'run',
    '--store',
    store,
    '--run',
    input.session_id,
    '--call',
    input.tool_use_id,
    ...WRAPPED.split(' '),
    ...(guard ? ['--guard'] : []),
    '--',
    command,
  ]);
  return {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'allow',
      updatedInput: { ...input.tool_input, command: wrapped },
    },
  };
}

/** This command line, as the wrapped command starts it again. */
export function selfLauncher(): Launcher {
  return { node: process.execPath, cli: realpathSync(process.argv[1] ?? '') };
}
