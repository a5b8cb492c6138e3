/**
 * Keeping the store in bounds from VS Code: "Clean Up Store…" shows what a clean-up would remove
 * (a dry run) and removes it only when confirmed; "Keep Run" and "Stop Keeping" pin a run.
 */
import * as vscode from 'vscode';
import { formatBytes, formatCount } from '../../shared/format';
import { CleanupRequest, PinRequest } from '../../shared/protocol';
import type { Command, Commands } from './commands';
import { type Node, storeOf } from './runsTree';

const pin =
  (pinned: boolean): Command['run'] =>
  ({ client }) =>
  async (node?: Node) => {
    if (node?.kind === 'run')
      await client.sendRequest(PinRequest.type, { runId: node.run.runId, pinned, ...storeOf(node) });
  };

export const cleanupCommands: Commands = {
  pinRun: { run: pin(true) },
  unpinRun: { run: pin(false) },
  cleanup: {
    untrusted: 'clean-ups are off',
    run:
      ({ client }) =>
      async () => {
        const plan = await vscode.window.withProgress(
          { location: vscode.ProgressLocation.Window, title: 'Retained Outputs: measuring the store' },
          () => client.sendRequest(CleanupRequest.type, { dryRun: true }),
        );
        // A run's age is its time in the store: an import of an old session counts from the import.
        const kept = [
          plan.spared.pinned ? formatCount(plan.spared.pinned, 'pinned run') : '',
          plan.spared.recent ? `${formatCount(plan.spared.recent, 'run')} stored or written to in the last hour` : '',
        ].filter(Boolean);
        const spared = kept.length ? `Kept: ${kept.join(' and ')}.` : '';
        if (plan.removed.length === 0)
          return void vscode.window.showInformationMessage(
            `Retained Outputs: nothing to clean up (the store holds ${formatBytes(plan.storeBytesBefore)}${plan.quotaBytes ? ` of ${formatBytes(plan.quotaBytes)}` : ''}). ${spared}`.trim(),
          );
        const list = plan.removed
          .slice(0, 12)
          .map(
            (r) =>
              `${r.name}: ${formatBytes(r.bytes)}, ${r.reason === 'age' ? `not written to since ${new Date(r.lastWrite).toLocaleDateString()}` : 'oldest while over the quota'}`,
          );
        if (plan.removed.length > 12) list.push(`… and ${plan.removed.length - 12} more`);
        const answer = await vscode.window.showWarningMessage(
          `Remove ${formatCount(plan.removed.length, 'run')}, freeing ${formatBytes(plan.freedBytes)}?`,
          {
            modal: true,
            detail: `${list.join('\n')}\n\nEach run goes whole: its transcript and its values. ${spared} Every removal is written to audit.jsonl in the store.`,
          },
          'Remove',
        );
        if (answer !== 'Remove') return;
        const done = await vscode.window.withProgress(
          { location: vscode.ProgressLocation.Notification, title: 'Retained Outputs: cleaning up' },
          () => client.sendRequest(CleanupRequest.type, { dryRun: false }),
        );
        void vscode.window.showInformationMessage(
          `Retained Outputs: removed ${formatCount(done.removed.length, 'run')}, freed ${formatBytes(done.freedBytes)}; the store holds ${formatBytes(done.storeBytesAfter)}.`,
        );
      },
  },
};
