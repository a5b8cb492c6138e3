/** The status-bar item: values retained in this workspace and the bytes kept out of context. */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { formatBytes, formatCount } from '../../shared/format';
import { StatusRequest } from '../../shared/protocol';

export class RetainedStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('retained.status', vscode.StatusBarAlignment.Right, 100);

  constructor(private readonly client: LanguageClient) {
    this.item.name = 'Retained Outputs';
    this.item.command = 'retained.openInspector';
    this.item.text = '$(archive) Retained';
    this.item.show();
  }

  async refresh(): Promise<void> {
    const status = await this.client.sendRequest(StatusRequest.type, {});
    this.item.text = `$(archive) ${status.values} retained · ${formatBytes(status.keptOutBytes)} kept out`;
    this.item.tooltip = `Retained Outputs: ${formatCount(status.values, 'value')} in ${formatCount(status.runs, 'run')} (${formatBytes(status.valueBytes)}); ${formatBytes(status.keptOutBytes)} kept out of agents' context.\nStore: ${status.root}\nClick to open a run in the inspector.`;
  }

  dispose(): void {
    this.item.dispose();
  }
}
