/**
 * A command run for an agent (the CLI's `run`, the MCP server's `run_command`): through the
 * shell, in the workspace, its stdout and stderr streamed into one result as they arrive (never
 * held whole), which is retained like any other. The answer names the exit status.
 */
import { spawn } from 'node:child_process';
import type { RetainResult } from '../../../../shared/protocol';
import type { Door, Retainer } from './retainer';

export interface CommandParams {
  runId: string;
  callId: string;
  /** A shell command line, run with `sh -c`. */
  command: string;
  cwd: string;
  /** Killed (its whole process group) after this long; 0: no limit. */
  timeoutMs?: number;
  /** Recorded with the result as the call's arguments. */
  arguments?: unknown;
  tool?: string;
}

export interface CommandResult extends RetainResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  durationMs: number;
}

/** Chunks read ahead of the store before the command's output is paused. */
const QUEUE_MAX = 64;

export async function runCommand(retainer: Retainer, params: CommandParams, door: Door = {}): Promise<CommandResult> {
  const started = Date.now();
  const child = spawn('/bin/sh', ['-c', params.command], {
    cwd: params.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const queue: Buffer[] = [];
  let wake: (() => void) | undefined;
  let open = 2;
  let failure: Error | undefined;
  const onData = (chunk: Buffer) => {
    queue.push(chunk);
    if (queue.length > QUEUE_MAX) {
      child.stdout.pause();
      child.stderr.pause();
    }
    wake?.();
  };
  const onEnd = () => {
    open--;
    wake?.();
  };
  child.stdout.on('data', onData).on('end', onEnd);
  child.stderr.on('data', onData).on('end', onEnd);
  child.on('error', (err) => {
    failure = err;
    open = 0;
    wake?.();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  let timedOut = false;
  const timer = params.timeoutMs
    ? setTimeout(() => {
        timedOut = true;
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          child.kill('SIGKILL');
        }
      }, params.timeoutMs)
    : undefined;

  async function* output(): AsyncGenerator<Buffer> {
    for (;;) {
      const chunk = queue.shift();
      if (chunk) {
        if (queue.length < QUEUE_MAX / 2) {
          child.stdout.resume();
          child.stderr.resume();
        }
        yield chunk;
        continue;
      }
      if (open <= 0) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
    if (failure) throw failure;
  }

  let exit: { code: number | null; signal: NodeJS.Signals | null } = { code: null, signal: null };
  try {
    const result = await retainer.retainStream(
      {
        runId: params.runId,
        callId: params.callId,
        tool: params.tool ?? 'run_command',
        ...(params.arguments !== undefined ? { arguments: params.arguments } : {}),
      },
      output(),
      async () => {
        exit = await exited;
        return { isError: exit.code !== 0, durationMs: Date.now() - started };
      },
      door,
    );
    return { ...result, exitCode: exit.code, signal: exit.signal, timedOut, durationMs: Date.now() - started };
  } finally {
    if (timer) clearTimeout(timer);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}
