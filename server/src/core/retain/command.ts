/**
 * A command run for an agent (the CLI's `run`, the MCP server's `run_command`): through a shell,
 * its stdout and stderr streamed into one result as they arrive (never held whole), which is
 * retained like any other. The answer names how it ended.
 *
 * The command runs in a process group of its own, so that a timeout, a signal passed on, or
 * the end of this process reaches everything it started: a watchdog (a shell waiting on a pipe
 * from us) kills the group if this process dies without saying it is done, even by SIGKILL. On
 * a terminal (stdin a TTY) it stays in ours instead, so it can read the terminal, and the
 * terminal's own signals reach it.
 */
import { spawn } from 'node:child_process';
import { accessSync, createWriteStream, existsSync, constants as fsConstants, type WriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { constants } from 'node:os';
import { delimiter, join } from 'node:path';
import { isatty } from 'node:tty';
import { InvalidInput } from '../../../../shared/invalidInput';
import type { Exit, RetainResult } from '../../../../shared/protocol';
import { INTERRUPTED_RESULT } from '../../../../shared/stubText';
import { StoreRefused } from '../store/open';
import type { Door, Retainer } from './retainer';

/** How a command line is run: a shell and the flags before the command line (`bash -c`, `bash -lc`). */
export interface Shell {
  file: string;
  args: readonly string[];
}

export interface CommandParams {
  runId: string;
  callId: string;
  /** A shell command line, the last argument of `shell`. */
  command: string;
  cwd: string;
  /** Default: bash (`bash -c`) where there is one, else `/bin/sh -c`. */
  shell?: Shell;
  /** The command's stdin: ours (a wrapper's, as the agent gave it) or none. Default none. */
  stdin?: 'inherit' | 'ignore';
  /** Killed (its whole process group) after this long; 0: no limit. */
  timeoutMs?: number;
  /** Recorded with the result as the call's arguments. */
  arguments?: unknown;
  tool?: string;
  /** Each piece of output as it comes, and the stream it came on (a wrapper passes a small output through as it was). */
  onOutput?: (stream: 1 | 2, chunk: Buffer) => void;
}

export interface CommandResult extends RetainResult {
  /**
   * The whole output (both streams, in the order they came), in the file `door.keepTo` names,
   * when the store could not take it: the caller's to give on and to remove.
   */
  whole?: string;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  durationMs: number;
}

/** A command started: its answer, and a way to pass it a signal. */
export interface RunningCommand {
  result: Promise<CommandResult>;
  /** Sends `signal` to the command's process group (to the command alone on a terminal). */
  signal(signal: NodeJS.Signals): void;
}

/** Chunks read ahead of the store before the command's output is paused. */
const QUEUE_MAX = 64;
/** What is kept aside of an output, at its start and at its end, for when the store cannot take it. */
const KEEP_BYTES = 512 << 10;
/** After a timeout kills the command's group, how long its pipes may stay open (a detached child holding them). */
const GRACE_MS = 500;

/** The exit status a shell gives for a command that ended so: its code, or 128 + the signal's number. */
export function exitStatus(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  const n = signal ? (constants.signals as Record<string, number | undefined>)[signal] : undefined;
  return n === undefined ? 1 : 128 + n;
}

/** How the command ended, for its stub. */
export function exitOf(code: number | null, signal: NodeJS.Signals | null, timedOut = false): Exit {
  if (signal) return { signal, ...(timedOut ? { timedOut: true } : {}) };
  return { code: code ?? 1 };
}

let bash: string | null | undefined;
/** bash on the PATH (found once), as agents run commands; else the POSIX shell. */
export function defaultShell(): Shell {
  if (bash === undefined) {
    bash = null;
    for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(delimiter)) {
      try {
        accessSync(join(dir, 'bash'), fsConstants.X_OK);
        bash = join(dir, 'bash');
        break;
      } catch {
        // not here
      }
    }
  }
  return { file: bash ?? '/bin/sh', args: ['-c'] };
}

/**
 * Kills the command's group unless told `done` first: a pipe from us is its stdin, so our
 * death, however it comes, is an end of file it reads.
 */
const WATCHDOG = 'read -r said; [ "$said" = done ] || kill -s KILL -- "-$1" 2>/dev/null';

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

export function runCommand(retainer: Retainer, params: CommandParams, door: Door = {}): Promise<CommandResult> {
  return startCommand(retainer, params, door).result;
}

export function startCommand(retainer: Retainer, params: CommandParams, door: Door = {}): RunningCommand {
  const started = Date.now();
  const shell = params.shell ?? defaultShell();
  const stdin = params.stdin ?? 'ignore';
  // On a terminal the command stays in our group: a group of its own could not read the terminal.
  const ownGroup = !(stdin === 'inherit' && isatty(0));
  const child = spawn(shell.file, [...shell.args, params.command], {
    cwd: params.cwd,
    stdio: [stdin, 'pipe', 'pipe'],
    detached: ownGroup,
  });
  const watchdog =
    ownGroup && child.pid !== undefined
      ? spawn('/bin/sh', ['-c', WATCHDOG, 'retained-watchdog', String(child.pid)], {
          stdio: ['pipe', 'ignore', 'ignore'],
          detached: true,
        })
      : undefined;
  if (watchdog) {
    watchdog.on('error', () => undefined);
    watchdog.stdin?.on('error', () => undefined);
    watchdog.unref();
    (watchdog.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  }
  const send = (signal: NodeJS.Signals) => {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(ownGroup ? -child.pid : child.pid, signal);
    } catch {
      // gone meanwhile
    }
  };
  const result = collect(retainer, params, door, child, send, started).finally(() => {
    // Said last, once the command has ended: what it left running on purpose (a server started with `&`) stays.
    watchdog?.stdin?.end('done\n');
  });
  return { result, signal: send };
}

async function collect(
  retainer: Retainer,
  params: CommandParams,
  door: Door,
  child: ReturnType<typeof spawn>,
  send: (signal: NodeJS.Signals) => void,
  started: number,
): Promise<CommandResult> {
  const stdout = child.stdout!;
  const stderr = child.stderr!;
  const queue: Buffer[] = [];
  const kept = new Kept();
  let wake: (() => void) | undefined;
  let open = 2;
  let failure: Error | undefined;
  /** Set when the store failed: the rest of the output is only kept aside, never queued. */
  let draining = false;
  /** Bytes the store has taken from the queue. */
  let taken = 0;
  /** Where the whole output goes when the store failed before taking any of it (see door.keepTo). */
  let spill: WriteStream | undefined;
  const onData = (stream: 1 | 2) => (chunk: Buffer) => {
    params.onOutput?.(stream, chunk);
    kept.push(chunk);
    if (draining) {
      spill?.write(chunk);
      return;
    }
    queue.push(chunk);
    if (queue.length > QUEUE_MAX) {
      stdout.pause();
      stderr.pause();
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
  stdout.on('data', onData(1)).on('end', onEnd);
  stderr.on('data', onData(2)).on('end', onEnd);
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
        send('SIGKILL');
        // A child that left the group (setsid) may hold the pipes open: they are closed on our side.
        setTimeout(() => {
          stdout.destroy();
          stderr.destroy();
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
          stdout.resume();
          stderr.resume();
        }
        taken += chunk.length;
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
        return {
          isError: exit.code !== 0,
          durationMs: Date.now() - started,
          exit: exitOf(exit.code, exit.signal, timedOut),
        };
      },
      door,
    );
    const done = { exitCode: exit.code, signal: exit.signal, timedOut, durationMs: Date.now() - started };
    // Not recorded (the store took the value but not its event, or nothing): the output still reaches the model.
    if (result.content === INTERRUPTED_RESULT)
      return { ...result, ...done, retained: false, content: kept.text(result.warning ?? 'not recorded') };
    return { ...result, ...done };
  } catch (err) {
    // A request that cannot be used is said as such; a store that refuses (a role without the right,
    // a team store gone) is the store's trouble, not the command's.
    if ((err instanceof InvalidInput && !(err instanceof StoreRefused)) || failure) throw err;
    // The store could not take the output: the command runs to its end, its output kept aside
    // (bounded), and given back verbatim with the reason.
    draining = true;
    // Failed before it took a byte (or after it had them all, and moved them to keepTo): the rest goes there too.
    if (door.keepTo && taken === 0 && !existsSync(door.keepTo)) {
      spill = createWriteStream(door.keepTo);
      spill.on('error', () => undefined);
      for (const chunk of queue) spill.write(chunk);
    }
    queue.length = 0;
    stdout.resume();
    stderr.resume();
    await streamsEnded;
    exit = await exited;
    if (spill) await new Promise((resolve) => spill!.end(resolve));
    const why = (err as Error).message;
    const content = kept.text(why);
    const whole = door.keepTo && (await stat(door.keepTo).catch(() => undefined))?.size === kept.total;
    return {
      content,
      ...(whole ? { whole: door.keepTo } : {}),
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
    if (child.exitCode === null && child.signalCode === null) send('SIGKILL');
  }
}
