/**
 * The status-bar item: values retained in this workspace and the bytes kept out of context; and
 * while an inspector is in view, what Retained Outputs saved that run, in money where its model
 * is priced (else in tokens), with prompt caching simulated on both sides.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { formatBytes, formatCount } from '../../shared/format';
import { InspectRequest, StatusRequest, UsageRequest } from '../../shared/protocol';

export class RetainedStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('retained.status', vscode.StatusBarAlignment.Right, 100);
  /** The run of the inspector in view, and what it saved. */
  private session: { runId: string; team: boolean; saving?: string } | undefined;

  constructor(private readonly client: LanguageClient) {
    this.item.name = 'Retained Outputs';
    this.item.command = 'retained.openInspector';
    this.item.text = '$(archive) Retained';
    this.item.show();
  }

  async refresh(): Promise<void> {
    const status = await this.client.sendRequest(StatusRequest.type, {});
    const over = status.overQuota;
    const saving = this.session?.saving ? ` · ${this.session.saving}` : '';
    this.item.text = `$(${over ? 'warning' : 'archive'}) ${status.values} retained · ${formatBytes(status.keptOutBytes)} kept out${saving}`;
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

  /** The run in view changed: what it saved is asked for, and shown until another is in view. */
  async setSession(run: { runId: string; team: boolean } | undefined): Promise<void> {
    this.session = run;
    if (run) {
      const saving = await this.savingOf(run).catch(() => undefined);
      // Still the run in view when the answer came.
      if (this.session !== run) return;
      this.session = { ...run, ...(saving ? { saving } : {}) };
    }
    await this.refresh().catch(() => undefined);
  }

  /** The run with Retained Outputs against the run without it (the server's baseline). */
  private async savingOf(run: { runId: string; team: boolean }): Promise<string | undefined> {
    const store = run.team ? { store: 'team' as const } : {};
    const { outline } = await this.client.sendRequest(InspectRequest.type, { runId: run.runId, limit: 0, ...store });
    const [ours, base] = await Promise.all([
      // With Retained Outputs: an imported run's simulation, else the run as it was sent.
      this.client.sendRequest(UsageRequest.type, {
        runId: run.runId,
        ...(outline.source ? { view: 'retained' as const } : {}),
        ...store,
      }),
      this.client.sendRequest(UsageRequest.type, { runId: run.runId, baseline: true, ...store }),
    ]);
    if (base.totals.total === 0) return undefined;
    if (ours.totals.usd !== undefined && base.totals.usd !== undefined) {
      const saved = base.totals.usd - ours.totals.usd;
      return `${saved >= 0 ? 'saved' : 'cost'} $${Math.abs(saved).toFixed(2)} on this run`;
    }
    const share = Math.round((1 - ours.totals.total / base.totals.total) * 100);
    return `${share >= 0 ? '−' : '+'}${Math.abs(share)} % tokens on this run`;
  }

  dispose(): void {
    this.item.dispose();
  }
}
