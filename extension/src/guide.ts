/**
 * "Open the Guide": the README the extension ships, rendered. A packaged extension holds it as
 * `readme.md` (vsce lower-cases it) and a checkout as `README.md`, so it is found by name in
 * any case.
 */
import * as vscode from 'vscode';

export function registerGuideCommand(context: vscode.ExtensionContext): vscode.Disposable {
  return vscode.commands.registerCommand('retained.openReadme', async () => {
    const entries = await vscode.workspace.fs.readDirectory(context.extensionUri);
    const name = entries.find(([file, type]) => type === vscode.FileType.File && /^readme\.md$/i.test(file))?.[0];
    if (!name) {
      void vscode.window.showErrorMessage('Retained Outputs: the guide (README) is not in the installed extension.');
      return;
    }
    await vscode.commands.executeCommand('markdown.showPreview', vscode.Uri.joinPath(context.extensionUri, name));
  });
}
