/**
 * `dist/cli.js`: the command `retained` as the agents and the extension start it. It loads the
 * server bundle (`dist/server.js`: the command line, the language server, the MCP server, the
 * hooks) for everything but the one path that runs on every tool call of every session and must
 * cost no more than Node itself: a hook on a small output (Claude Code's, Qwen Code's, Gemini
 * CLI's AfterTool, Copilot CLI's). That output passes untouched and unrecorded, as the hook leaves
 * it (cli/hook.ts and each agent's cli/*Hook.ts), so nothing is loaded for it. The hooks that
 * rewrite a command before it runs (Codex's, Gemini CLI's BeforeTool) load a small bundle of their
 * own (cli/rewriteHooks.ts).
 * This file imports only Node's own modules and a constant.
 */
import { readSync } from 'node:fs';
import { DEFAULT_THRESHOLD_BYTES } from '../../shared/threshold';

/** The hooks cli/rewriteHooks.ts answers (named here: that file loads only when one of them runs). */
const REWRITE_HOOKS = ['codex', 'gemini'] as const;

type Input = Record<string, unknown> | null;
const named = (v: Input, keys: readonly string[]) => keys.every((key) => typeof v?.[key] === 'string' && v[key] !== '');

/**
 * The hooks that run on every tool call, and when each surely leaves an input alone, given it is
 * no bigger than the threshold: a tool result (not another event the hook answers, not one whose
 * whole output is in a file it reads: Claude Code's `persistedOutputPath`, Qwen Code's failure
 * cut), with the fields the hook needs (else it says why in its log).
 */
const SMALL_LEFT_ALONE: Record<string, (v: Input, raw: Buffer) => boolean> = {
  'claude-code': (v, raw) =>
    v?.hook_event_name !== 'SessionStart' &&
    !raw.includes('persistedOutputPath') &&
    named(v, ['session_id', 'tool_name', 'tool_use_id']),
  qwen: (v) => v?.hook_event_name === 'PostToolUse' && named(v, ['session_id', 'tool_name']),
  // Its BeforeTool may rewrite the command: only the AfterTool of a small output is surely left alone.
  gemini: (v) => v?.hook_event_name === 'AfterTool' && named(v, ['session_id', 'tool_name']),
  // Not the notice of an output Copilot CLI saved to a file (small, but the file is read).
  'copilot-cli': (v) => {
    const result = v?.toolResult as Input;
    return (
      typeof result?.textResultForLlm === 'string' &&
      !result.textResultForLlm.startsWith('Output too large to read at once') &&
      named(v, ['sessionId', 'toolName'])
    );
  },
};
// The name Copilot CLI's hook went by (the hook files setup wrote then run `retained hook copilot`):
// shared/agents.ts FORMER_AGENT_IDS says so for the bundle; this file loads no agent table, so says it again.
SMALL_LEFT_ALONE.copilot = SMALL_LEFT_ALONE['copilot-cli']!;

/**
 * Whether the hook leaves this input alone, surely: all of it no bigger than the threshold (the
 * output is within it, as JSON never makes text shorter) and the agent's rule above.
 */
function leftAlone(agent: string, input: Buffer): boolean {
  if (input.length > DEFAULT_THRESHOLD_BYTES) return false;
  try {
    return SMALL_LEFT_ALONE[agent]!(JSON.parse(input.toString('utf8')) as Input, input);
  } catch {
    return false;
  }
}

/**
 * Stdin up to one byte past the threshold (never more: an endless input is the bundle's to bound),
 * and whether that was all of it. What cannot be read here (a non-blocking descriptor) is left to the bundle.
 */
function readStdin(): { head: Buffer; ended: boolean } {
  const buffer = Buffer.alloc(DEFAULT_THRESHOLD_BYTES + 1);
  let length = 0;
  try {
    while (length < buffer.length) {
      const read = readSync(0, buffer, length, buffer.length - length, null);
      if (read === 0) return { head: buffer.subarray(0, length), ended: true };
      length += read;
    }
  } catch {
    // EAGAIN and the like: the bundle reads the rest.
  }
  return { head: buffer.subarray(0, length), ended: false };
}

const argv = process.argv.slice(2);
// `--guard` (a secret in a small output is withheld) or any other option: the bundle decides.
const plainHook = argv.length === 2 && argv[0] === 'hook';
const agent = argv[1] as (typeof REWRITE_HOOKS)[number];
const small = plainHook && Object.hasOwn(SMALL_LEFT_ALONE, agent);
// The hooks that rewrite a command before it runs: a bundle of their own (cli/rewriteHooks.ts) answers them.
const rewrites = plainHook && REWRITE_HOOKS.includes(agent);
const stdin = small || rewrites ? readStdin() : undefined;
const answered =
  stdin?.ended &&
  ((small && leftAlone(agent, stdin.head)) ||
    (rewrites && (require('./rewriteHooks.js') as typeof import('./cli/rewriteHooks')).answer(agent, stdin.head)));
if (!answered) require('./server.js').start(stdin);
