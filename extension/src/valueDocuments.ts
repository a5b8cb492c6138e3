/**
 * Values open read-only: the stored original must not change by accident. A value's document
 * (shared/valueDocument.ts) holds the value's ids; this read-only file system asks the language
 * server which file they are and serves it. The extension never reads a store path out of a URI.
 */
import { promises as fs } from 'node:fs';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import type { CallSubject } from '../../shared/callSubject';
import { ValueFileRequest } from '../../shared/protocol';
import { parseValueDocument, VALUE_SCHEME, type ValueDocument, valueDocumentParts } from '../../shared/valueDocument';

/** The read-only document of a value, named after what its call read. */
export function valueDocument(value: ValueDocument & { subject?: CallSubject | undefined }): vscode.Uri {
  return vscode.Uri.from(valueDocumentParts(value));
}

class ValueFileSystem implements vscode.FileSystemProvider {
  private readonly changed = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changed.event;

  constructor(private readonly client: LanguageClient) {}

  /** The file the server says the document's value is; a document that names none is not found. */
  private async file(uri: vscode.Uri): Promise<string> {
    const value = parseValueDocument(uri.query);
    if (!value) throw vscode.FileSystemError.FileNotFound(uri);
    const found = await this.client.sendRequest(ValueFileRequest.type, value).catch(() => undefined);
    if (!found) throw vscode.FileSystemError.FileNotFound(uri);
    return vscode.Uri.parse(found.uri).fsPath;
  }

  async stat(uri: vscode.Uri): Promise<vscode.FileStat> {
    const stat = await fs.lstat(await this.file(uri)).catch(() => undefined);
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
    const file = await this.file(uri);
    if (!(await fs.lstat(file).catch(() => undefined))?.isFile()) throw vscode.FileSystemError.FileNotFound(uri);
    return fs.readFile(file);
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

/** Serves value documents, each resolved by the language server. */
export function registerValueDocuments(client: LanguageClient): vscode.Disposable {
  return vscode.workspace.registerFileSystemProvider(VALUE_SCHEME, new ValueFileSystem(client), {
    isReadonly: new vscode.MarkdownString('A retained value is the original output, kept as it was: read-only.'),
    isCaseSensitive: true,
  });
}
