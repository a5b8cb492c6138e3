/**
 * Values open read-only: the stored original must not change by accident. A value's document
 * (shared/valueDocument.ts) holds the value's ids; this read-only file system asks the language
 * server which file they are and serves it; a value with no file here (a team store's) is read
 * through the server a stretch at a time. The extension never reads a store path out of a URI.
 */
import { promises as fs } from 'node:fs';
import * as vscode from 'vscode';
import { type LanguageClient, State } from 'vscode-languageclient/node';
import type { CallSubject } from '../../shared/callSubject';
import { VALUE_BYTES_MAX, ValueBytesRequest, ValueFileRequest } from '../../shared/protocol';
import { parseValueDocument, VALUE_SCHEME, type ValueDocument, valueDocumentParts } from '../../shared/valueDocument';

/** The read-only document of a value, named after what its call read. */
export function valueDocument(value: ValueDocument & { subject?: CallSubject | undefined }): vscode.Uri {
  return vscode.Uri.from(valueDocumentParts(value));
}

/** How long a value's editor waits for the language server to start before asking anyway. */
const READY_WAIT_MS = 30_000;

class ValueFileSystem implements vscode.FileSystemProvider {
  private readonly changed = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changed.event;

  constructor(private readonly client: LanguageClient) {}

  /**
   * Until the server runs: an editor restored with the window asks before the client has started
   * (or while it restarts for a password), and must not be told its value is gone.
   */
  private async ready(): Promise<void> {
    if (this.client.isRunning()) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        listening.dispose();
        resolve();
      };
      const timer = setTimeout(done, READY_WAIT_MS);
      const listening = this.client.onDidChangeState(({ newState }) => newState === State.Running && done());
    });
  }

  /** Where the server says the document's value is; a document that names none is not found. */
  private async find(uri: vscode.Uri) {
    const value = parseValueDocument(uri.query);
    if (!value) throw vscode.FileSystemError.FileNotFound(uri);
    await this.ready();
    const found = await this.client.sendRequest(ValueFileRequest.type, value).catch((err: Error) => {
      // A team store out of reach is not a value gone: the editor says why, and Try Again may work.
      if (value.store === 'team') throw vscode.FileSystemError.Unavailable(`Retained Outputs: ${err.message}`);
      return undefined;
    });
    if (!found) throw vscode.FileSystemError.FileNotFound(uri);
    return { ...found, runId: value.runId, ...(value.store ? { store: value.store } : {}) };
  }

  async stat(uri: vscode.Uri): Promise<vscode.FileStat> {
    const found = await this.find(uri);
    if (!found.uri.startsWith('file:'))
      return {
        type: vscode.FileType.File,
        ctime: 0,
        mtime: 0,
        size: found.bytes,
        permissions: vscode.FilePermission.Readonly,
      };
    const stat = await fs.lstat(vscode.Uri.parse(found.uri).fsPath).catch(() => undefined);
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
    const found = await this.find(uri);
    if (!found.uri.startsWith('file:')) return this.readThroughServer(uri, found);
    const file = vscode.Uri.parse(found.uri).fsPath;
    if (!(await fs.lstat(file).catch(() => undefined))?.isFile()) throw vscode.FileSystemError.FileNotFound(uri);
    return fs.readFile(file);
  }

  /** A team store's value, a stretch per request (the server caps each). */
  private async readThroughServer(
    uri: vscode.Uri,
    found: { valueId: string; runId?: string | undefined; bytes: number; store?: 'team' | 'sessions' },
  ): Promise<Uint8Array> {
    if (!found.runId) throw vscode.FileSystemError.FileNotFound(uri);
    const out = new Uint8Array(found.bytes);
    for (let offset = 0; offset < found.bytes; ) {
      const { base64 } = await this.client.sendRequest(ValueBytesRequest.type, {
        valueId: found.valueId,
        runId: found.runId,
        offset,
        length: Math.min(VALUE_BYTES_MAX, found.bytes - offset),
        ...(found.store ? { store: found.store } : {}),
      });
      const part = Buffer.from(base64, 'base64');
      if (part.length === 0) break;
      out.set(part, offset);
      offset += part.length;
    }
    return out;
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
