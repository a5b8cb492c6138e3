/**
 * "Open the Guide": the README the extension ships, rendered. A packaged extension holds it as
 * `readme.md` (vsce lower-cases it) and a checkout as `README.md`, so it is found by name in
 * any case.
 */
import * as vscode from 'vscode';
import type { Commands } from './commands';

async function openGuide({ extensionUri }: vscode.ExtensionContext): Promise<void> {
  const entries = await vscode.workspace.fs.readDirectory(extensionUri);
  const name = entries.find(([file, type]) => type === vscode.FileType.File && /^readme\.md$/i.test(file))?.[0];
  if (!name) throw new Error('the guide (README) is not in the installed extension.');
  await vscode.commands.executeCommand('markdown.showPreview', vscode.Uri.joinPath(extensionUri, name));
}

export const guideCommands: Commands = {
  openReadme: { run: (ctx) => () => openGuide(ctx.extension) },
};
