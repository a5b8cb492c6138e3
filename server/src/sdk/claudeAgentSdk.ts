/**
 * Retained Outputs for programs built on the Claude Agent SDK (`@anthropic-ai/claude-agent-sdk`),
 * whose hooks are callbacks in the program's own process:
 *
 * ```js
 * // claudeAgentSdk.js sits beside cli.js (the extension's stable copy, or a checkout's dist/)
 * const { retainedHooks, retainedMcpServer } = require(join(cliFolder, 'claudeAgentSdk.js'));
 * query({ prompt, options: { hooks: retainedHooks(), mcpServers: { retained: retainedMcpServer() } } });
 * ```
 *
 * The PostToolUse callback hands each tool result to `retained hook claude-code` (the same hook
 * Claude Code runs from its settings, proven against the real binary), so a big result is
 * retained and the model gets the stub in the tool's own output shape. It never breaks the
 * agent: on any failure, or past its deadline, it answers nothing and the result goes as it was.
 * Nothing of the SDK is imported: it is the program's, at whatever version it uses.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

export interface RetainedOptions {
  /** The `retained` command line's cli.js (default: the one beside this file). */
  cli?: string;
  /** The Node that runs it (default: this process's). */
  node?: string;
  /** The store folder (default: `.retained` in the session's working folder). */
  store?: string;
  /** Withhold results that hold secrets from the model (`--guard`). */
  guard?: boolean;
  /** How long one result may take to retain before it goes as it was (default 60 s). */
  timeoutMs?: number;
}

/** What the SDK hands a hook callback, as far as this uses it. */
interface HookInput {
  hook_event_name?: string;
  cwd?: string;
}

type HookOutput = Record<string, unknown>;
type HookCallback = (
  input: HookInput,
  toolUseId: string | undefined,
  context: { signal?: AbortSignal },
) => Promise<HookOutput>;

/** The most of the hook's answer that is read: a stub is small. */
const ANSWER_MAX_BYTES = 1 << 20;

function launcher(options: RetainedOptions): { node: string; cli: string } {
  return { node: options.node ?? process.execPath, cli: options.cli ?? join(__dirname, 'cli.js') };
}

/** Runs `retained hook claude-code` on one hook input; its answer, or `{}`. */
function runHook(options: RetainedOptions, input: HookInput, signal?: AbortSignal): Promise<HookOutput> {
  const { node, cli } = launcher(options);
  const args = [cli, ...(options.store ? [`--store=${options.store}`] : []), 'hook', 'claude-code'];
  if (options.guard) args.push('--guard');
  if (signal?.aborted) return Promise.resolve({});
  return new Promise((done) => {
    try {
      start(done);
    } catch {
      // No process could be started (descriptors, memory): the result goes as it was.
      done({});
    }
  });

  function start(done: (value: HookOutput) => void): void {
    let answer = '';
    let settled = false;
    const finish = (value: HookOutput) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
      done(value);
    };
    const child = spawn(node, args, {
      cwd: input.cwd ?? process.cwd(),
      stdio: ['pipe', 'pipe', 'ignore'],
      env: { ...process.env, ...(process.versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {}) },
    });
    const abort = () => {
      child.kill('SIGKILL');
      finish({});
    };
    const timer = setTimeout(abort, options.timeoutMs ?? 60_000);
    signal?.addEventListener('abort', abort, { once: true });
    child.on('error', () => finish({}));
    // A process started without its pipes (out of descriptors) is given up on.
    if (!child.stdout || !child.stdin) {
      abort();
      return;
    }
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (part: string) => {
      answer += part;
      if (answer.length > ANSWER_MAX_BYTES) abort();
    });
    child.on('close', () => {
      try {
        const parsed = answer.trim() ? (JSON.parse(answer) as unknown) : {};
        finish(typeof parsed === 'object' && parsed !== null ? (parsed as HookOutput) : {});
      } catch {
        finish({});
      }
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(JSON.stringify(input));
  }
}

/** `options.hooks` for `query()`: a PostToolUse callback on every tool that retains big results. */
export function retainedHooks(options: RetainedOptions = {}): { PostToolUse: { hooks: HookCallback[] }[] } {
  const callback: HookCallback = async (input, _toolUseId, context) =>
    input?.hook_event_name === 'PostToolUse' ? runHook(options, input, context?.signal) : {};
  return { PostToolUse: [{ hooks: [callback] }] };
}

/** `options.mcpServers.retained` for `query()`: peek_value and run_command over stdio. */
export function retainedMcpServer(options: RetainedOptions = {}): {
  type: 'stdio';
  command: string;
  args: string[];
  env?: Record<string, string>;
} {
  const { node, cli } = launcher(options);
  return {
    type: 'stdio',
    command: node,
    args: [cli, ...(options.store ? [`--store=${options.store}`] : []), 'mcp'],
    ...(process.versions.electron ? { env: { ELECTRON_RUN_AS_NODE: '1' } } : {}),
  };
}
