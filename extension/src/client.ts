/**
 * Starts the language server over IPC and keeps it running: the client restarts a crashed
 * server, and every step is in the "Retained Outputs" output channel.
 */
import * as vscode from 'vscode';
import {
  CloseAction,
  DidChangeConfigurationNotification,
  ErrorAction,
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions as ProcessOptions,
  TransportKind,
} from 'vscode-languageclient/node';
import type { ServerOptions } from '../../shared/protocol';
import type { Commands } from './commands';

const MAX_RESTARTS = 5;
/** Where the team store's password is kept: VS Code's secret storage, never settings.json. */
export const PASSWORD_SECRET = 'retained.storePassword';
/** Each client's server environment: the password reaches the server as libpq's PGPASSWORD, at each (re)start. */
const environments = new WeakMap<LanguageClient, NodeJS.ProcessEnv>();
const RESTART_WINDOW_MS = 3 * 60 * 1000;

export function createClient(
  context: vscode.ExtensionContext,
  output: vscode.LogOutputChannel,
  options: ServerOptions,
  password: string | undefined,
): LanguageClient {
  // The command line's bundle is the server too: `retained lsp`.
  const module = context.asAbsolutePath('dist/cli.js');
  const args = ['lsp'];
  const env: NodeJS.ProcessEnv = { ...process.env, ...(password ? { PGPASSWORD: password } : {}) };
  const server: ProcessOptions = {
    run: { module, args, transport: TransportKind.ipc, options: { env } },
    debug: { module, args, transport: TransportKind.ipc, options: { env, execArgv: ['--nolazy', '--inspect=6019'] } },
  };
  const restarts: number[] = [];
  const clientOptions: LanguageClientOptions = {
    // Stub links and hovers work in any text document: transcripts, chat logs, notes.
    documentSelector: [{ scheme: 'file' }, { scheme: 'untitled' }],
    initializationOptions: options,
    outputChannel: output,
    initializationFailedHandler: (error) => {
      output.error(`The language server did not start: ${error instanceof Error ? error.message : String(error)}`);
      void vscode.window.showErrorMessage(
        `Retained Outputs: ${error instanceof Error ? error.message : String(error)}`,
      );
      return false;
    },
    errorHandler: {
      error: (error, _message, count) => {
        output.error(`Connection error (${count ?? 0}): ${error.message}`);
        return { action: (count ?? 0) <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown };
      },
      closed: () => {
        const now = Date.now();
        restarts.push(now);
        while (restarts.length && now - restarts[0]! > RESTART_WINDOW_MS) restarts.shift();
        if (restarts.length > MAX_RESTARTS) {
          output.error(
            `The language server stopped ${restarts.length} times in 3 minutes; not restarting it. Run "Retained Outputs: Restart Language Server" to try again.`,
          );
          return {
            action: CloseAction.DoNotRestart,
            message: 'Retained Outputs: the language server keeps stopping; see the log.',
          };
        }
        output.warn('The language server stopped; restarting it.');
        return { action: CloseAction.Restart };
      },
    },
  };
  const client = new LanguageClient('retained', 'Retained Outputs', server, clientOptions);
  environments.set(client, env);
  return client;
}

/** Sends changed settings to a running server; it applies them without a restart. */
export function sendSettings(client: LanguageClient, options: ServerOptions): Promise<void> {
  return client.sendNotification(DidChangeConfigurationNotification.type, { settings: { retained: options } });
}

export const serverCommands: Commands = {
  restartServer: {
    run:
      ({ client, runs, statusBar }) =>
      async () => {
        await vscode.window.withProgress(
          { location: vscode.ProgressLocation.Window, title: 'Retained Outputs: restarting the language server' },
          () => client.restart(),
        );
        void vscode.window.showInformationMessage('Retained Outputs: the language server restarted.');
        await Promise.all([runs.refresh(), statusBar.refresh()]);
      },
  },
  showOutput: { run: (ctx) => () => ctx.output.show() },
  setStorePassword: {
    run:
      ({ client, extension, runs, statusBar }) =>
      async () => {
        if (!vscode.workspace.getConfiguration('retained').get<string>('storeUrl')) {
          const open = 'Open Settings';
          const chosen = await vscode.window.showInformationMessage(
            'Retained Outputs: there is no team store to give a password to: set retained.storeUrl first (postgres://role@host/database, without the password).',
            open,
          );
          if (chosen === open)
            await vscode.commands.executeCommand('workbench.action.openSettings', 'retained.storeUrl');
          return;
        }
        const password = await vscode.window.showInputBox({
          title: 'Set Team Store Password',
          prompt: 'The password of the role retained.storeUrl connects as. Kept in secret storage; empty removes it.',
          password: true,
          ignoreFocusOut: true,
        });
        if (password === undefined) return;
        const env = environments.get(client)!;
        if (password) {
          await extension.secrets.store(PASSWORD_SECRET, password);
          env.PGPASSWORD = password;
        } else {
          await extension.secrets.delete(PASSWORD_SECRET);
          delete env.PGPASSWORD;
        }
        await vscode.window.withProgress(
          { location: vscode.ProgressLocation.Window, title: 'Retained Outputs: reconnecting to the team store' },
          () => client.restart(),
        );
        await Promise.all([runs.refresh(), statusBar.refresh()]);
      },
  },
};
