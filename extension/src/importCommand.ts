/** `Retained: Import Transcript…`: a Claude Code or Codex transcript file becomes a run. */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { ImportRequest } from '../../server/src/protocol';

export function registerImportCommand(client: LanguageClient, isTrusted: () => boolean): vscode.Disposable {
  return vscode.commands.registerCommand('retained.importTranscript', async (uri?: vscode.Uri) => {
    if (!isTrusted()) return void vscode.window.showErrorMessage('Retained Outputs: importing is off in an untrusted workspace.');
    const file =
      uri ??
      (await vscode.window.showOpenDialog({ title: 'Import an agent transcript', canSelectMany: false, filters: { 'Agent transcripts': ['jsonl'] } }))?.[0];
    if (!file) return;
    try {
      const result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Importing ${vscode.workspace.asRelativePath(file)}…`, cancellable: false },
        () => client.sendRequest(ImportRequest.type, { path: file.fsPath }),
      );
      void vscode.window.showInformationMessage(
        `Imported ${result.format} transcript as run ${result.runId}: ${result.toolCalls} tool calls, ${result.retained} results retained.`,
      );
    } catch (err) {
      void vscode.window.showErrorMessage(`Retained Outputs: ${(err as Error).message}`);
    }
  });
}
