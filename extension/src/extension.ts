/**
 * Retained Outputs, the VS Code side: a thin client. activate() only wires things together;
 * everything it shows or does goes through the language server's `retained/…` protocol.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { PEEK_TOOL } from '../../shared/peekTool';
import { ChangedNotification, RunsRequest, type ServerOptions } from '../../shared/protocol';
import { registerMcpServer, registerSetUpCommand } from './agents';
import { createApi, type RetainedApi } from './api';
import { registerCleanupCommands } from './cleanupCommands';
import { createClient, sendSettings } from './client';
import { installCli } from './cliInstall';
import { readServerOptions, SECTION, storeRootOf } from './config';
import { registerGuideCommand } from './guide';
import { registerImportCommand } from './importCommand';
import { INSPECTOR_VIEW_TYPE, Inspectors } from './inspector';
import { registerPaste } from './paste';
import { PeekTool } from './peekTool';
import { ReadOnlyText } from './readOnlyText';
import { type MoreNode, type RunNode, RunsTree } from './runsTree';
import type { AgentSession } from './sessionFiles';
import { SessionsTree } from './sessionsTree';
import { RetainedStatusBar } from './statusBar';
import { registerTestHooks } from './testHooks';
import { registerValueCommands } from './valueCommands';
import { registerValueDocuments } from './valueDocuments';

export type { RetainedApi };

export async function activate(context: vscode.ExtensionContext): Promise<RetainedApi> {
  const output = vscode.window.createOutputChannel('Retained Outputs', { log: true });
  context.subscriptions.push(output);
  const isTrusted = () => vscode.workspace.isTrusted;
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
  const client: LanguageClient = createClient(context, output, options);
  const runChanged = new vscode.EventEmitter<{ runId: string }>();
  const tree = new RunsTree(client);
  const statusBar = new RetainedStatusBar(client);
  const view = vscode.window.createTreeView('retained.runs', { treeDataProvider: tree, showCollapseAll: true });
  const texts = new ReadOnlyText();
  const inspectors = new Inspectors(context.extensionUri, client, output, texts);
  const sessions = new SessionsTree(vscode.workspace.workspaceFolders?.[0]?.uri.fsPath, async () => {
    const { runs } = await client.sendRequest(RunsRequest.type, {});
    return new Map(runs.map((r) => [r.name, r.runId]));
  });
  const sessionsView = vscode.window.createTreeView('retained.sessions', { treeDataProvider: sessions });
  sessions.setVisible(sessionsView.visible);

  context.subscriptions.push(
    texts,
    runChanged,
    tree,
    statusBar,
    view,
    inspectors,
    vscode.window.registerWebviewPanelSerializer(INSPECTOR_VIEW_TYPE, inspectors),
    vscode.commands.registerCommand('retained.openInspector', (arg?: RunNode | string) =>
      inspectors.open(typeof arg === 'string' ? arg : arg?.run.runId),
    ),
    ...registerValueCommands(client, isTrusted),
    ...registerCleanupCommands(client, isTrusted),
    registerValueDocuments(client),
    registerImportCommand(client, output, isTrusted, async (runId) => {
      // The view first (it may be behind the Explorer), then the run, once the list holds it.
      await vscode.commands.executeCommand('retained.runs.focus');
      const node = await tree.runNode(runId);
      if (node) await view.reveal(node, { select: true, focus: false, expand: true });
    }),
    ...registerPaste(),
    vscode.lm.registerTool(PEEK_TOOL, new PeekTool(client)),
    sessions,
    sessionsView,
    sessionsView.onDidChangeVisibility(({ visible }) => sessions.setVisible(visible)),
    vscode.commands.registerCommand('retained.openSession', (session: AgentSession) =>
      inspectors
        .openSession(session.path, session.title)
        .catch((err: Error) => vscode.window.showErrorMessage(`Retained Outputs: ${err.message}`)),
    ),
    vscode.commands.registerCommand('retained.importSession', (session: AgentSession) =>
      vscode.commands.executeCommand('retained.importTranscript', vscode.Uri.file(session.path)),
    ),
    registerMcpServer(context, () => storeRootOf(current)),
    registerSetUpCommand(context, isTrusted, () => cli, texts),
    vscode.commands.registerCommand('retained.showMoreValues', (node: MoreNode) => tree.showMore(node)),
    vscode.commands.registerCommand('retained.refresh', () => tree.refresh()),
    vscode.commands.registerCommand('retained.showOutput', () => output.show()),
    registerGuideCommand(context),
    vscode.commands.registerCommand('retained.restartServer', async () => {
      await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: 'Retained Outputs: restarting the language server' },
        () => client.restart(),
      );
      void vscode.window.showInformationMessage('Retained Outputs: the language server restarted.');
      await Promise.all([tree.refresh(), statusBar.refresh()]);
    }),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (!event.affectsConfiguration(SECTION)) return;
      try {
        current = readServerOptions(sessionsRoot);
        await sendSettings(client, current);
        output.info('Settings sent to the language server.');
        await Promise.all([tree.refresh(), statusBar.refresh()]);
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
  client.onNotification(ChangedNotification.type, ({ runId }) => {
    runChanged.fire({ runId });
    if (pending.has(runId)) return;
    pending.set(
      runId,
      setTimeout(() => {
        pending.delete(runId);
        void tree.refresh(runId);
        void statusBar.refresh();
        sessions.refresh();
        inspectors.changed(runId);
      }, 150),
    );
  });

  await client.start();
  output.info(`Language server started (store: ${options.storeRoot ?? '.retained in the workspace'}).`);
  void statusBar.refresh();
  const api = createApi(client, runChanged.event, isTrusted);
  context.subscriptions.push(...registerTestHooks(api));
  return api;
}

export function deactivate(): void {
  // The client is in context.subscriptions; disposing it stops the server.
}
