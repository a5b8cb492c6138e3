/**
 * Pasting lines copied from a peek answer: offer "Paste without line numbers", which strips
 * the `N: ` gutters, so the lines land as they are in the original file.
 */
import * as vscode from 'vscode';
import { stripGutters } from '../../shared/stubText';

const KIND = vscode.DocumentDropOrPasteEditKind.Text.append('retained', 'withoutLineNumbers');

class StripGuttersPasteProvider implements vscode.DocumentPasteEditProvider {
  async provideDocumentPasteEdits(
    _document: vscode.TextDocument,
    _ranges: readonly vscode.Range[],
    dataTransfer: vscode.DataTransfer,
  ): Promise<vscode.DocumentPasteEdit[] | undefined> {
    const text = await dataTransfer.get('text/plain')?.asString();
    if (!text) return undefined;
    const stripped = stripGutters(text);
    if (stripped === text) return undefined;
    return [new vscode.DocumentPasteEdit(stripped, 'Paste without line numbers', KIND)];
  }
}

export function registerPaste(): vscode.Disposable[] {
  return [
    vscode.languages.registerDocumentPasteEditProvider({ pattern: '**' }, new StripGuttersPasteProvider(), {
      providedPasteEditKinds: [KIND],
      pasteMimeTypes: ['text/plain'],
    }),
    vscode.commands.registerTextEditorCommand('retained.pasteWithoutLineNumbers', async (editor) => {
      const text = stripGutters(await vscode.env.clipboard.readText());
      await editor.edit((edit) => {
        for (const selection of editor.selections) edit.replace(selection, text);
      });
    }),
  ];
}
