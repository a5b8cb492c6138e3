/**
 * `Retained Outputs: Import Agent Session…`: a session of any agent IMPORT_FORMATS names (its
 * picker's title lists them), or a Copilot Chat replay, becomes a run. A file imported before offers a way on (open the run, replace it, or import it as a new run); the
 * message says what came in, what was left out, and opens the inspector. The file picker starts
 * in this workspace's Claude Code sessions (or Codex's), where the files are.
 */
import { existsSync } from 'node:fs';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { agentName, IMPORT_FORMATS } from '../../shared/agents';
import { formatCount } from '../../shared/format';
import { leftOutSentence } from '../../shared/leftOut';
import { type IfExists, ImportRequest, type ImportResult } from '../../shared/protocol';
import type { Commands } from './commands';
import type { Ctx } from './ctx';
import { claudeCodeDir, codexDir } from './sessionFiles';

/** The run an import found already there, from the server's error. */
function existingRun(err: unknown): string | undefined {
  const data = (err as { data?: unknown } | null)?.data;
  return typeof data === 'object' && data !== null && typeof (data as { runId?: unknown }).runId === 'string'
    ? (data as { runId: string }).runId
    : undefined;
}

/** The import in a few sentences: what came in, how exact it is, and what was not. */
function summary(result: ImportResult): string {
  const agent = agentName(result.format);
  const sentences = [
    `Imported the ${agent} session "${result.name}": ${formatCount(result.toolCalls, 'tool call')}, ${formatCount(result.retained, 'big result')} kept as values${result.subagents.length ? `, and ${formatCount(result.subagents.length, 'subagent')} as runs of their own` : ''}.`,
    result.fidelity === 'exact'
      ? `What ${agent} sent the model is rebuilt exactly.`
      : `What ${agent} sent the model is rebuilt from the conversation, not exactly.`,
  ];
  if (result.lostOutputs)
    sentences.push(
      `${formatCount(result.lostOutputs, 'full output')} had been deleted: only what the model got is kept.`,
    );
  const skipped = leftOutSentence(result.skipped);
  if (skipped) sentences.push(`${skipped[0]!.toUpperCase()}${skipped.slice(1)}.`);
  if (result.skippedLines.length)
    sentences.push(`${formatCount(result.skippedLines.length, 'line')} could not be read (torn or not JSON).`);
  return sentences.join(' ');
}

/** Everything the import reports, for the log: each kind of record left out by its own name. */
function details(path: string, result: ImportResult): string {
  const skipped = Object.entries(result.skipped).sort((a, b) => b[1] - a[1]);
  return [
    `Imported ${path} as run ${result.runId} (${result.events} events, fidelity ${result.fidelity}).`,
    ...(skipped.length ? [`Left out: ${skipped.map(([kind, n]) => `${kind} ×${n}`).join(', ')}.`] : []),
    ...(result.skippedLines.length ? [`Unreadable lines: ${result.skippedLines.slice(0, 50).join(', ')}.`] : []),
    ...result.notes,
  ].join('\n');
}

/** Where the picker starts: this workspace's Claude Code sessions, else Codex's, else the workspace. */
function startFolder(): vscode.Uri | undefined {
  const workspace = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const candidates = [workspace ? claudeCodeDir(workspace) : undefined, codexDir(), workspace];
  const found = candidates.find((dir) => dir && existsSync(dir));
  return found ? vscode.Uri.file(found) : undefined;
}

/** Imports with a progress notification whose Cancel stops the import; undefined when cancelled. */
function importWithProgress(client: LanguageClient, path: string, ifExists?: IfExists) {
  return vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: `Importing ${vscode.workspace.asRelativePath(path)}…`,
      cancellable: true,
    },
    async (_progress, token) => {
      try {
        return await client.sendRequest(ImportRequest.type, { path, ...(ifExists ? { ifExists } : {}) }, token);
      } catch (err) {
        if (!token.isCancellationRequested) throw err;
        // The server removes what the import wrote: nothing of it is kept.
        void vscode.window.showInformationMessage('Retained Outputs: import cancelled; nothing of it was kept.');
        return undefined;
      }
    },
  );
}

/** Selects the run in Runs (the view first: it may be behind the Explorer), so the way to it stays once the message is gone. */
async function reveal({ runs, runsTree }: Ctx, runId: string): Promise<void> {
  await vscode.commands.executeCommand('retained.runs.focus');
  const node = await runs.runNode(runId);
  if (node) await runsTree.reveal(node, { select: true, focus: false, expand: true });
}

async function importSession(ctx: Ctx, uri?: vscode.Uri): Promise<void> {
  const { client, output } = ctx;
  const run = (path: string, ifExists?: IfExists) => importWithProgress(client, path, ifExists);
  const file =
    uri ??
    (
      await vscode.window.showOpenDialog({
        title: `Import an agent session (${IMPORT_FORMATS.map((f) => agentName(f)).join(', ')})`,
        openLabel: 'Import',
        canSelectMany: false,
        defaultUri: startFolder(),
        filters: { 'Agent sessions': ['jsonl', 'json'] },
      })
    )?.[0];
  if (!file) return;
  let result: ImportResult | undefined;
  try {
    result = await run(file.fsPath);
  } catch (err) {
    const existing = existingRun(err);
    if (!existing) return void vscode.window.showErrorMessage(`Retained Outputs: ${(err as Error).message}`);
    const choice = await vscode.window.showWarningMessage(
      `This session was imported before, as run ${existing}.`,
      'Open',
      'Replace',
      'Import as New Run',
    );
    if (choice === 'Open') return void vscode.commands.executeCommand('retained.openInspector', existing);
    if (choice !== 'Replace' && choice !== 'Import as New Run') return;
    try {
      result = await run(file.fsPath, choice === 'Replace' ? 'replace' : 'new');
    } catch (again) {
      return void vscode.window.showErrorMessage(`Retained Outputs: ${(again as Error).message}`);
    }
  }
  if (!result) return;
  output.info(details(file.fsPath, result));
  await reveal(ctx, result.runId).catch(() => undefined);
  // The run opens at once: what was imported to be seen is not behind a button that hides.
  await vscode.commands.executeCommand('retained.openInspector', result.runId);
  if ((await vscode.window.showInformationMessage(summary(result), 'Details')) === 'Details') output.show(true);
}

export const importCommands: Commands = {
  importTranscript: { untrusted: 'importing is off', run: (ctx) => (uri?: vscode.Uri) => importSession(ctx, uri) },
};
