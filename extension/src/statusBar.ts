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
    const over = status.overQuota;
    this.item.text = `$(${over ? 'warning' : 'archive'}) ${status.values} retained · ${formatBytes(status.keptOutBytes)} kept out`;
    this.item.backgroundColor = over ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    // Over the quota, a click offers the clean-up; otherwise the runs to inspect.
    this.item.command = over ? 'retained.cleanup' : 'retained.openInspector';
    const size = `Store: ${formatBytes(status.storeBytes)} on disk${status.quotaBytes ? ` of a ${formatBytes(status.quotaBytes)} quota` : ''} (${status.root})`;
    this.item.tooltip = [
      `Retained Outputs: ${formatCount(status.values, 'value')} in ${formatCount(status.runs, 'run')} (${formatBytes(status.valueBytes)}); ${formatBytes(status.keptOutBytes)} kept out of agents' context.`,
      size,
      ...(status.withheld ? [`${formatCount(status.withheld, 'result')} withheld by the guard.`] : []),
      over ? 'Over the quota: click to clean up.' : 'Click to open a run in the inspector.',
    ].join('\n');
  }

  dispose(): void {
    this.item.dispose();
  }
}
