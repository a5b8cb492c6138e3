/**
 * A command run for an agent (the CLI's `run`, the MCP server's `run_command`): through the
 * shell, in the workspace, its stdout and stderr streamed into one result as they arrive (never
 * held whole), which is retained like any other. The answer names the exit status.
 */
import { spawn } from 'node:child_process';
import { InvalidInput } from '../../../../shared/invalidInput';
import type { RetainResult } from '../../../../shared/protocol';
import { INTERRUPTED_RESULT } from '../../../../shared/stubText';
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
/** What is kept aside of an output, at its start and at its end, for when the store cannot take it. */
const KEEP_BYTES = 512 << 10;
/** After a timeout kills the command's group, how long its pipes may stay open (a detached child holding them). */
const GRACE_MS = 500;

/**
 * The start and the end of an output, bounded: what a command gives back verbatim when the store
 * cannot take its output (a full or read-only disk), so the output is never lost to the model.
 */
class Kept {
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  total = 0;
  lines = 0;
  private last = 0x0a;

  push(chunk: Buffer): void {
    this.total += chunk.length;
    if (chunk.length) {
      for (let at = chunk.indexOf(0x0a); at !== -1; at = chunk.indexOf(0x0a, at + 1)) this.lines++;
      this.last = chunk[chunk.length - 1]!;
    }
    if (this.headBytes < KEEP_BYTES) {
      const part = chunk.subarray(0, KEEP_BYTES - this.headBytes);
      this.head.push(part);
      this.headBytes += part.length;
      chunk = chunk.subarray(part.length);
      if (chunk.length === 0) return;
    }
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    while (this.tailBytes - (this.tail[0]?.length ?? 0) >= KEEP_BYTES) this.tailBytes -= this.tail.shift()!.length;
  }

  /** Lines as a value counts them: a last line without its newline counts too. */
  lineCount(): number {
    return this.lines + (this.total > 0 && this.last !== 0x0a ? 1 : 0);
  }

  /** The output, whole when it fits, else its head and tail with what was left out said between them. */
  text(why: string): string {
    const head = Buffer.concat(this.head).toString('utf8');
    const tail = Buffer.concat(this.tail);
    const dropped = this.total - this.headBytes - tail.length;
    if (dropped <= 0) return head + tail.toString('utf8');
    const end = tail.subarray(tail.length - Math.min(tail.length, KEEP_BYTES)).toString('utf8');
    return `${head}\n[… ${dropped} bytes of ${this.total} not shown: the store could not keep this output (${why}) …]\n${end}`;
  }
}

export async function runCommand(retainer: Retainer, params: CommandParams, door: Door = {}): Promise<CommandResult> {
  const started = Date.now();
  const child = spawn('/bin/sh', ['-c', params.command], {
    cwd: params.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const queue: Buffer[] = [];
  const kept = new Kept();
  let wake: (() => void) | undefined;
  let open = 2;
  let failure: Error | undefined;
  /** Set when the store failed: the rest of the output is only kept aside, never queued. */
  let draining = false;
  const onData = (chunk: Buffer) => {
    kept.push(chunk);
    if (draining) return;
    queue.push(chunk);
    if (queue.length > QUEUE_MAX) {
      child.stdout.pause();
      child.stderr.pause();
    }
    wake?.();
  };
  let ended: () => void = () => undefined;
  const streamsEnded = new Promise<void>((resolve) => {
    ended = resolve;
  });
  const onEnd = () => {
    open--;
    if (open <= 0) ended();
    wake?.();
  };
  child.stdout.on('data', onData).on('end', onEnd);
  child.stderr.on('data', onData).on('end', onEnd);
  child.on('error', (err) => {
    failure = err;
    open = 0;
    ended();
    wake?.();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
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
        // A child that left the group (setsid) may hold the pipes open: they are closed on our side.
        setTimeout(() => {
          child.stdout.destroy();
          child.stderr.destroy();
          open = 0;
          ended();
          wake?.();
        }, GRACE_MS).unref();
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
  const call = {
    runId: params.runId,
    callId: params.callId,
    tool: params.tool ?? 'run_command',
    ...(params.arguments !== undefined ? { arguments: params.arguments } : {}),
  };
  try {
    const result = await retainer.retainStream(
      call,
      output(),
      async () => {
        exit = await exited;
        return { isError: exit.code !== 0, durationMs: Date.now() - started };
      },
      door,
    );
    const done = { exitCode: exit.code, signal: exit.signal, timedOut, durationMs: Date.now() - started };
    // Not recorded (the store took the value but not its event, or nothing): the output still reaches the model.
    if (result.content === INTERRUPTED_RESULT)
      return { ...result, ...done, retained: false, content: kept.text(result.warning ?? 'not recorded') };
    return { ...result, ...done };
  } catch (err) {
    if (err instanceof InvalidInput || failure) throw err;
    // The store could not take the output: the command runs to its end, its output kept aside
    // (bounded), and given back verbatim with the reason.
    draining = true;
    queue.length = 0;
    child.stdout.resume();
    child.stderr.resume();
    await streamsEnded;
    exit = await exited;
    const why = (err as Error).message;
    const content = kept.text(why);
    return {
      content,
      retained: false,
      bytes: kept.total,
      lines: kept.lineCount(),
      warning: `kept verbatim, not recorded: the store could not take the output (${why})`,
      exitCode: exit.code,
      signal: exit.signal,
      timedOut,
      durationMs: Date.now() - started,
    };
  } finally {
    if (timer) clearTimeout(timer);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}
