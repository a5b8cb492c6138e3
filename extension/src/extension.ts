/**
 * Retained Outputs, the VS Code side: a thin client. activate() only wires things together;
 * everything it shows or does goes through the language server's `retained/…` protocol.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { PEEK_TOOL } from '../../shared/peekTool';
import { ChangedNotification, RunsRequest, type ServerOptions, StoreStateNotification } from '../../shared/protocol';
import { registerMcpServer } from './agents';
import { createApi, type RetainedApi } from './api';
import { createClient, PASSWORD_SECRET, sendSettings } from './client';
import { installCli } from './cliInstall';
import { registerCommands } from './commands';
import { readServerOptions, SECTION, storeRootOf } from './config';
import type { Ctx } from './ctx';
import { INSPECTOR_PANEL_TYPE, Inspectors } from './inspector';
import { registerPaste } from './paste';
import { PeekTool } from './peekTool';
import { ReadOnlyText } from './readOnlyText';
import { RunsTree } from './runsTree';
import { SessionsTree } from './sessionsTree';
import { RetainedStatusBar } from './statusBar';
import { registerValueDocuments } from './valueDocuments';

export type { RetainedApi };

export async function activate(context: vscode.ExtensionContext): Promise<RetainedApi> {
  const activating = performance.now();
  const output = vscode.window.createOutputChannel('Retained Outputs', { log: true });
  context.subscriptions.push(output);
  // The command line's stable copy, for what Set Up writes; made in the background.
  const cli = installCli(context);
  cli.catch((err: Error) => output.warn(`The command line's stable copy could not be made: ${err.message}`));

  // Agents' sessions opened in the inspector are converted here, not into the workspace's store.
  const sessionsRoot = vscode.Uri.joinPath(context.globalStorageUri, 'sessions').fsPath;
  let options: ServerOptions | undefined;
  try {
    options = readServerOptions(sessionsRoot);
  } catch (err) {
    void vscode.window.showErrorMessage(
      `Retained Outputs: settings refused, using defaults: ${(err as Error).message}`,
    );
    options = { sessionsRoot };
  }
  let current = options;
  const password = await context.secrets.get(PASSWORD_SECRET);
  const client: LanguageClient = createClient(context, output, options, password);
  const runChanged = new vscode.EventEmitter<{ runId: string }>();
  const runs = new RunsTree(client, () => current.storeUrl !== undefined, output);
  const texts = new ReadOnlyText();
  const sessions = new SessionsTree(vscode.workspace.workspaceFolders?.[0]?.uri.fsPath, async () => {
    const { runs } = await client.sendRequest(RunsRequest.type, {});
    return new Map(runs.map((r) => [r.name, r.runId]));
  });
  const ctx: Ctx = {
    extension: context,
    client,
    output,
    isTrusted: () => vscode.workspace.isTrusted,
    texts,
    runs,
    runsTree: vscode.window.createTreeView('retained.runs', { treeDataProvider: runs, showCollapseAll: true }),
    sessions,
    statusBar: new RetainedStatusBar(client),
    inspectors: new Inspectors(context.extensionUri, client, output, texts),
    cli,
  };
  const sessionsTree = vscode.window.createTreeView('retained.sessions', { treeDataProvider: sessions });
  sessions.setVisible(sessionsTree.visible);

  context.subscriptions.push(
    texts,
    runChanged,
    runs,
    ctx.statusBar,
    ctx.runsTree,
    ctx.inspectors,
    sessions,
    sessionsTree,
    vscode.window.registerWebviewPanelSerializer(INSPECTOR_PANEL_TYPE, ctx.inspectors),
    ctx.inspectors.onDidChangeActive((run) => void ctx.statusBar.setSession(run)),
    ...registerCommands(ctx),
    registerValueDocuments(client),
    registerPaste(),
    vscode.lm.registerTool(PEEK_TOOL, new PeekTool(client)),
    sessionsTree.onDidChangeVisibility(({ visible }) => sessions.setVisible(visible)),
    registerMcpServer(context, () => storeRootOf(current)),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (!event.affectsConfiguration(SECTION)) return;
      try {
        current = readServerOptions(sessionsRoot);
        // A restart (Set Team Store Password…, Restart Language Server) starts the server with these, not activation's.
        client.clientOptions.initializationOptions = current;
        await sendSettings(client, current);
        output.info('Settings sent to the language server.');
        await Promise.all([runs.refresh(), ctx.statusBar.refresh()]);
      } catch (err) {
        output.warn(`Settings refused: ${(err as Error).message}`);
        void vscode.window.showErrorMessage(
          `Retained Outputs: setting refused, keeping the previous ones: ${(err as Error).message}`,
        );
      }
    }),
    client,
  );

  // A burst of changes (an agent writing fast) refreshes each run at most every 150 ms.
  const pending = new Map<string, NodeJS.Timeout>();
  client.onNotification(ChangedNotification.type, ({ runId, store }) => {
    if (!store) runChanged.fire({ runId });
    const key = `${store ?? 'workspace'}:${runId}`;
    if (pending.has(key)) return;
    pending.set(
      key,
      setTimeout(() => {
        pending.delete(key);
        void runs.refresh(runId, store);
        if (!store) void ctx.statusBar.refresh();
        sessions.refresh();
        ctx.inspectors.changed(runId, store === 'team');
      }, 150),
    );
  });

  client.onNotification(StoreStateNotification.type, ({ problem }) => {
    if (problem) output.warn(`The team store: ${problem}`);
    else output.info('The team store is served again.');
    runs.teamState(problem);
    ctx.inspectors.teamState(problem);
  });

  const starting = performance.now();
  await client.start();
  const done = performance.now();
  output.info(
    `Language server started (store: ${options.storeUrl ?? options.storeRoot ?? '.retained in the workspace'}).`,
  );
  output.info(
    `Activated in ${Math.round(done - activating)} ms, ${Math.round(done - starting)} ms of it the language server's start.`,
  );
  void ctx.statusBar.refresh();
  return createApi(client, runChanged.event, ctx.isTrusted);
}

export function deactivate(): void {
  // The client is in context.subscriptions; disposing it stops the server.
}
