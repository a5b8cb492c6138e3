/**
 * Pasting lines copied from a peek answer: "Paste without line numbers" strips the `N: ` gutters,
 * so the lines land as they are in the original file. It is offered only for text shaped like a
 * peek range (never for `200: OK`), and it is the plain paste only while
 * `retained.pasteWithoutLineNumbers` is on; otherwise it waits in the paste menu.
 */
import * as vscode from 'vscode';
import { isPeekRange, stripGutters } from '../../shared/stubText';
import type { Commands } from './commands';
import { SECTION } from './config';

const KIND = vscode.DocumentDropOrPasteEditKind.Text.append('retained', 'withoutLineNumbers');

class StripGuttersPasteProvider implements vscode.DocumentPasteEditProvider {
  async provideDocumentPasteEdits(
    _document: vscode.TextDocument,
    _ranges: readonly vscode.Range[],
    dataTransfer: vscode.DataTransfer,
  ): Promise<vscode.DocumentPasteEdit[] | undefined> {
    const text = await dataTransfer.get('text/plain')?.asString();
    if (!text || !isPeekRange(text)) return undefined;
    const edit = new vscode.DocumentPasteEdit(stripGutters(text), 'Paste without line numbers', KIND);
    if (!vscode.workspace.getConfiguration(SECTION).get<boolean>('pasteWithoutLineNumbers', true))
      edit.yieldTo = [vscode.DocumentDropOrPasteEditKind.Text];
    return [edit];
  }
}

export function registerPaste(): vscode.Disposable {
  return vscode.languages.registerDocumentPasteEditProvider({ pattern: '**' }, new StripGuttersPasteProvider(), {
    providedPasteEditKinds: [KIND],
    pasteMimeTypes: ['text/plain'],
  });
}

export const pasteCommands: Commands = {
  pasteWithoutLineNumbers: {
    run: () => async () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor) return;
      const text = stripGutters(await vscode.env.clipboard.readText());
      await editor.edit((edit) => {
        for (const selection of editor.selections) edit.replace(selection, text);
      });
    },
  },
};
