/**
 * What the extension's commands and views work with, made once in activate(): the language
 * client, the log, the views, and whether the workspace is trusted. Commands take it whole
 * (commands.ts) rather than each its own few arguments.
 */
import type * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import type { Inspectors } from './inspector';
import type { ReadOnlyText } from './readOnlyText';
import type { Node, RunsTree } from './runsTree';
import type { SessionsTree } from './sessionsTree';
import type { RetainedStatusBar } from './statusBar';

export interface Ctx {
  readonly extension: vscode.ExtensionContext;
  readonly client: LanguageClient;
  readonly output: vscode.LogOutputChannel;
  isTrusted(): boolean;
  readonly texts: ReadOnlyText;
  readonly runs: RunsTree;
  readonly runsTree: vscode.TreeView<Node>;
  readonly sessions: SessionsTree;
  readonly statusBar: RetainedStatusBar;
  readonly inspectors: Inspectors;
  /** The command line's stable copy (cliInstall.ts), for what Set Up writes. */
  readonly cli: Promise<string>;
}
