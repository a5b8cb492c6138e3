/**
 * Values open read-only: the stored original must not change by accident. A value's document is
 * `retained-value:/<run>/<name>?<file path>`, served from the value's file by a read-only file
 * system; the name is the file the call read (so a `.json` read opens as JSON) or `<id>.txt`, and
 * the breadcrumb reads run › name. Only files of a `.values` folder or of `withheld/` (a guard's
 * originals), under the store or the sessions cache, are served.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { type CallSubject, subjectFileName } from '../../shared/callSubject';

export const VALUE_SCHEME = 'retained-value';

/** The read-only document of a value's file (a `file:` URI), named after what the call read. */
export function valueDocumentUri(file: vscode.Uri, value: { valueId: string; subject?: CallSubject }): vscode.Uri {
  const name = subjectFileName(value.subject);
  const shown = name ? `${value.valueId} · ${name}` : path.basename(file.fsPath);
  const run = path.basename(path.dirname(file.fsPath)).replace(/\.values$/, '');
  return vscode.Uri.from({ scheme: VALUE_SCHEME, path: `/${run}/${shown}`, query: file.fsPath });
}

class ValueFileSystem implements vscode.FileSystemProvider {
  private readonly changed = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changed.event;

  constructor(private readonly roots: () => string[]) {}

  /** The value file a document stands for; refuses anything else. */
  private file(uri: vscode.Uri): string {
    const file = uri.query;
    const inside = this.roots().some((root) => {
      const rel = path.relative(path.resolve(root), file);
      return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
    });
    const folder = path.dirname(file);
    const known = folder.endsWith('.values') || path.basename(folder) === 'withheld';
    if (!path.isAbsolute(file) || !inside || !file.endsWith('.txt') || !known)
      throw vscode.FileSystemError.FileNotFound(uri);
    return file;
  }

  async stat(uri: vscode.Uri): Promise<vscode.FileStat> {
    const stat = await fs.lstat(this.file(uri)).catch(() => undefined);
    if (!stat?.isFile()) throw vscode.FileSystemError.FileNotFound(uri);
    return {
      type: vscode.FileType.File,
      ctime: stat.ctimeMs,
      mtime: stat.mtimeMs,
      size: stat.size,
      permissions: vscode.FilePermission.Readonly,
    };
  }

  async readFile(uri: vscode.Uri): Promise<Uint8Array> {
    await this.stat(uri);
    return fs.readFile(this.file(uri));
  }

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }
  readDirectory(): [string, vscode.FileType][] {
    return [];
  }
  createDirectory(uri: vscode.Uri): never {
    throw vscode.FileSystemError.NoPermissions(uri);
  }
  writeFile(uri: vscode.Uri): never {
    throw vscode.FileSystemError.NoPermissions(uri);
  }
  delete(uri: vscode.Uri): never {
    throw vscode.FileSystemError.NoPermissions(uri);
  }
  rename(uri: vscode.Uri): never {
    throw vscode.FileSystemError.NoPermissions(uri);
  }
}

/** Serves value documents from the folders `roots` gives (the store and the sessions cache). */
export function registerValueDocuments(roots: () => string[]): vscode.Disposable {
  return vscode.workspace.registerFileSystemProvider(VALUE_SCHEME, new ValueFileSystem(roots), {
    isReadonly: new vscode.MarkdownString('A retained value is the original output, kept as it was: read-only.'),
    isCaseSensitive: true,
  });
}
