/**
 * Text the extension shows but that is no file: a message's whole body from the inspector, what
 * Set Up will write. Shown as a read-only document (`retained-text:/<name>`), so it is never
 * dirty, never asks to be saved, and closes like any preview. Its text is dropped when the
 * document closes.
 */
import * as vscode from 'vscode';

const SCHEME = 'retained-text';

export class ReadOnlyText implements vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  private readonly disposables: vscode.Disposable[];
  private next = 0;

  constructor() {
    this.disposables = [
      this.changed,
      vscode.workspace.registerTextDocumentContentProvider(SCHEME, {
        onDidChange: this.changed.event,
        provideTextDocumentContent: (uri) => this.texts.get(uri.toString()) ?? '',
      }),
      vscode.workspace.onDidCloseTextDocument((doc) => {
        if (doc.uri.scheme === SCHEME) this.texts.delete(doc.uri.toString());
      }),
    ];
  }

  /**
   * Shows `text` as a read-only document named `name` (its extension picks the language). Each
   * call is a document of its own (a number in the query keeps two of one name apart).
   */
  async show(name: string, text: string, options: vscode.TextDocumentShowOptions = {}): Promise<vscode.Uri> {
    const uri = vscode.Uri.from({ scheme: SCHEME, path: `/${name}`, query: String(++this.next) });
    this.texts.set(uri.toString(), text);
    this.changed.fire(uri);
    await vscode.window.showTextDocument(uri, { preview: true, ...options });
    return uri;
  }

  /** Closes the tabs showing `uri`. */
  async close(uri: vscode.Uri): Promise<void> {
    const tabs = vscode.window.tabGroups.all.flatMap((group) =>
      group.tabs.filter(
        (tab) => tab.input instanceof vscode.TabInputText && tab.input.uri.toString() === uri.toString(),
      ),
    );
    if (tabs.length) await vscode.window.tabGroups.close(tabs);
    this.texts.delete(uri.toString());
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
