/**
 * Spawns the built language server (`dist/cli.js lsp --stdio`) as a real process and speaks
 * JSON-RPC to it over its stdin and stdout, as any LSP client would.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  createMessageConnection,
  type MessageConnection,
  type RequestType,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-jsonrpc/node';
import { ChangedNotification, RetainRequest, type ServerOptions } from '../../shared/protocol';

/** The built language server as node's arguments: the command line's bundle, `retained lsp`, over stdio. */
export const SERVER_ARGS = [resolve(__dirname, '../../dist/cli.js'), 'lsp', '--stdio'];

export interface StartOptions extends ServerOptions {
  workspace: string;
  /** Prefix for the command, e.g. a shell that sets `ulimit -f` first. */
  shellPrefix?: string;
}

export class ServerProcess {
  readonly changed: string[] = [];
  private readonly changeWaiters: { runId: string; resolve: () => void }[] = [];
  stderr = '';

  private constructor(
    readonly child: ChildProcess,
    readonly connection: MessageConnection,
  ) {
    child.stderr!.on('data', (d: Buffer) => (this.stderr += d.toString()));
    connection.onNotification(ChangedNotification.type, ({ runId }) => {
      this.changed.push(runId);
      for (const w of this.changeWaiters.filter((w) => w.runId === runId)) w.resolve();
    });
  }

  static async start(options: StartOptions): Promise<ServerProcess> {
    const child = options.shellPrefix
      ? spawn(
          'bash',
          ['-c', `${options.shellPrefix}; exec "${process.execPath}" ${SERVER_ARGS.map((a) => `"${a}"`).join(' ')}`],
          {
            stdio: 'pipe',
          },
        )
      : spawn(process.execPath, SERVER_ARGS, { stdio: 'pipe' });
    const connection = createMessageConnection(
      new StreamMessageReader(child.stdout!),
      new StreamMessageWriter(child.stdin!),
    );
    connection.onError(() => undefined);
    connection.onClose(() => undefined);
    connection.listen();
    const server = new ServerProcess(child, connection);
    const { workspace, shellPrefix: _ignored, ...initializationOptions } = options;
    await connection.sendRequest('initialize', {
      processId: process.pid,
      rootUri: pathToFileURL(workspace).href,
      workspaceFolders: [{ uri: pathToFileURL(workspace).href, name: 'ws' }],
      capabilities: {},
      initializationOptions,
    });
    await connection.sendNotification('initialized', {});
    return server;
  }

  /** A typed request: its params and result are the protocol's, so a renamed field fails to compile here too. */
  request<P, R>(type: RequestType<P, R, void>, params: NoInfer<P>): Promise<R> {
    return this.connection.sendRequest(type.method, params) as Promise<R>;
  }

  /** Any message, typed or not: for hostile input and for LSP methods outside our protocol. */
  raw<R = unknown>(method: string, params?: unknown): Promise<R> {
    return this.connection.sendRequest(method, params) as Promise<R>;
  }

  /** Whether the server still records a result in `runId` and answers it back: it survived what came before. */
  async stillServes(runId: string, callId: string): Promise<boolean> {
    const answer = await this.request(RetainRequest.type, { runId, callId, tool: 't', text: 'still serving' });
    return answer.content === 'still serving';
  }

  /** Resolves on the next retained/changed notification for `runId`. */
  nextChange(runId: string, timeoutMs = 5000): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no retained/changed for ${runId} within ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.changeWaiters.push({
        runId,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  /** Peak resident memory of the server process, from /proc (Linux). */
  peakRssBytes(): number {
    return this.status('VmHWM');
  }

  /** Resident memory of the server process now. */
  rssBytes(): number {
    return this.status('VmRSS');
  }

  private status(field: 'VmHWM' | 'VmRSS'): number {
    const { readFileSync } = require('node:fs') as typeof import('node:fs');
    const status = readFileSync(`/proc/${this.child.pid}/status`, 'utf8');
    const kb = new RegExp(`${field}:\\s+(\\d+) kB`).exec(status);
    return kb ? Number(kb[1]) * 1024 : NaN;
  }

  kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    return new Promise((resolve) => {
      if (this.child.exitCode !== null || this.child.signalCode !== null) return resolve();
      this.child.once('exit', () => resolve());
      this.connection.dispose();
      this.child.kill(signal);
    });
  }

  async stop(): Promise<void> {
    try {
      await Promise.race([this.connection.sendRequest('shutdown'), new Promise((r) => setTimeout(r, 2000))]);
      await this.connection.sendNotification('exit');
    } catch {
      // already gone
    }
    await this.kill('SIGTERM');
  }
}
