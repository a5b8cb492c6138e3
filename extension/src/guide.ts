/**
 * "Open the Guide": the README the extension ships, rendered. A packaged extension holds it as
 * `readme.md` (vsce lower-cases it) and a checkout as `README.md`, so it is found by name in
 * any case. vsce points the packaged README's pictures at the repository online; the package
 * holds them too, so the guide is shown from a copy whose pictures are the local ones: it reads
 * the same offline.
 */
import * as vscode from 'vscode';
import type { Commands } from './commands';

/** A picture link vsce made absolute: its path inside the extension is the part from `media/`. */
const REMOTE_PICTURE = /\]\((https?:\/\/[^)\s]*?\/(media\/screenshots\/[\w.-]+\.png))\)/g;

async function openGuide({ extensionUri, globalStorageUri, extension }: vscode.ExtensionContext): Promise<void> {
  const entries = await vscode.workspace.fs.readDirectory(extensionUri);
  const name = entries.find(([file, type]) => type === vscode.FileType.File && /^readme\.md$/i.test(file))?.[0];
  if (!name) throw new Error('the guide (README) is not in the installed extension.');
  const readme = vscode.Uri.joinPath(extensionUri, name);
  const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(readme));
  const pictures = [...text.matchAll(REMOTE_PICTURE)].map((m) => m[2]!);
  if (pictures.length === 0) return void (await show(readme));
  // A copy per version beside its pictures: the preview shows only files under the document's folder.
  const folder = vscode.Uri.joinPath(globalStorageUri, 'guide', String(extension.packageJSON.version));
  const copy = vscode.Uri.joinPath(folder, 'README.md');
  const copied = new Set<string>();
  for (const picture of new Set(pictures)) {
    const source = vscode.Uri.joinPath(extensionUri, picture);
    const exists = await vscode.workspace.fs.stat(source).then(
      () => true,
      () => false,
    );
    if (!exists) continue;
    await vscode.workspace.fs.copy(source, vscode.Uri.joinPath(folder, picture), { overwrite: true });
    copied.add(picture);
  }
  const local = text.replace(REMOTE_PICTURE, (whole, _url: string, path: string) =>
    copied.has(path) ? `](${path})` : whole,
  );
  await vscode.workspace.fs.writeFile(copy, new TextEncoder().encode(local));
  await show(copy);
}

function show(document: vscode.Uri): Thenable<unknown> {
  return vscode.commands.executeCommand('markdown.showPreview', document);
}

export const guideCommands: Commands = {
  openReadme: { run: (ctx) => () => openGuide(ctx.extension) },
};
