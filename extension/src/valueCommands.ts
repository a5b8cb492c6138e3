/** The commands on a retained value or run: open, peek, search, copy, reveal, delete. */
import * as vscode from 'vscode';
import type { CallSubject } from '../../shared/callSubject';
import { formatBytes, formatCount } from '../../shared/format';
import { DeleteRequest, PeekRequest, ValueRequest } from '../../shared/protocol';
import type { ValueDocument } from '../../shared/valueDocument';
import type { Commands } from './commands';
import { type Node, type RunNode, storeOf, type Team, type ValueNode } from './runsTree';
import { valueDocument } from './valueDocuments';

/**
 * Opens a value's original text, read-only, optionally selecting lines (1-based, inclusive).
 * Through `vscode.open`: the tab is there at once, with the editor's own progress bar while a big
 * value loads (opening the document first showed nothing for seconds on 50 MiB). From the
 * inspector (`beside`), the focus stays on the row the user was on.
 */
export async function openValue(
  value: ValueDocument & { subject?: CallSubject | undefined; bytes?: number },
  lines?: { start: number; end: number },
  beside?: vscode.ViewColumn,
): Promise<void> {
  const options: vscode.TextDocumentShowOptions = {
    preview: true,
    ...(beside ? { viewColumn: beside, preserveFocus: true } : {}),
    // The editor clamps a range past the end of a line or of the text.
    ...(lines ? { selection: new vscode.Range(lines.start - 1, 0, lines.end - 1, Number.MAX_SAFE_INTEGER) } : {}),
  };
  const size = value.bytes === undefined ? '' : ` (${formatBytes(value.bytes)})`;
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: `Opening #${value.valueId}${size}` },
    () => vscode.commands.executeCommand('vscode.open', valueDocument(value), options),
  );
}

function parseRange(input: string): { start: number; end: number } | string {
  const match = /^\s*(\d+)\s*(?:[-–:,]\s*(\d+))?\s*$/.exec(input);
  if (!match) return 'Enter a line or a range, e.g. 120 or 120-180';
  const start = Number(match[1]);
  const end = match[2] ? Number(match[2]) : start;
  if (start < 1) return 'Lines start at 1';
  if (end < start) return 'The range ends before it starts';
  return { start, end };
}

/** The value a command was run on, from the Runs view, with the store it is in. */
function chosenValue(node: Node | undefined): ValueNode['value'] & Team {
  if (node?.kind !== 'value') throw new Error('Choose a retained value in the Retained Outputs view first.');
  return { ...node.value, ...storeOf(node) };
}

export const valueCommands: Commands = {
  openValue: { run: () => async (node: Node) => openValue(chosenValue(node)) },

  peekLines: {
    run: () => async (node: Node) => {
      const value = chosenValue(node);
      const input = await vscode.window.showInputBox({
        title: `Peek lines of #${value.valueId} (${value.lines} lines)`,
        prompt: 'A line or a range, e.g. 120 or 120-180',
        validateInput: (text) => {
          const range = parseRange(text);
          if (typeof range === 'string') return range;
          return range.start > value.lines ? `The value has ${value.lines} lines` : undefined;
        },
      });
      if (input === undefined) return;
      await openValue(value, parseRange(input) as { start: number; end: number });
    },
  },

  searchValue: {
    run:
      ({ client }) =>
      async (node: Node) => {
        const value = chosenValue(node);
        const query = await vscode.window.showInputBox({
          title: `Search in #${value.valueId}`,
          prompt: 'Text to find (case-insensitive)',
        });
        if (!query) return;
        const answer = await vscode.window.withProgress(
          {
            location: vscode.ProgressLocation.Notification,
            title: `Searching ${formatBytes(value.bytes)} for "${query}"…`,
          },
          () =>
            client.sendRequest(PeekRequest.type, {
              valueId: value.valueId,
              runId: value.runId,
              query,
              ignoreCase: true,
              ...storeOf(value),
            }),
        );
        const items = answer.text
          .split('\n')
          .map((line) => /^(\d+): (.*)$/.exec(line))
          .filter((m): m is RegExpExecArray => m !== null)
          .map((m) => ({ label: m[2]!.trim() || '(empty line)', description: `line ${m[1]}`, line: Number(m[1]) }));
        if (items.length === 0)
          return void vscode.window.showInformationMessage(`No line of #${value.valueId} contains "${query}".`);
        const pick = await vscode.window.showQuickPick(items, {
          title: `${formatCount(answer.matches ?? 0, 'matching line')} in #${value.valueId}${answer.truncated ? ` (showing ${items.length})` : ''}`,
          matchOnDescription: true,
        });
        if (pick) await openValue(value, { start: pick.line, end: pick.line });
      },
  },

  copyStub: {
    run:
      ({ client }) =>
      async (node: Node) => {
        const value = chosenValue(node);
        const meta = await client.sendRequest(ValueRequest.type, {
          runId: value.runId,
          valueId: value.valueId,
          ...storeOf(value),
        });
        await vscode.env.clipboard.writeText(meta.stub);
        void vscode.window.setStatusBarMessage(`Copied the stub of #${value.valueId}`, 3000);
      },
  },

  copyPath: {
    run: () => async (node: Node) => {
      await vscode.env.clipboard.writeText(vscode.Uri.parse(chosenValue(node).uri).fsPath);
      void vscode.window.setStatusBarMessage('Copied the path', 3000);
    },
  },

  revealValue: {
    run: () => (node: Node) =>
      vscode.commands.executeCommand('revealInExplorer', vscode.Uri.parse(chosenValue(node).uri)),
  },

  deleteValue: {
    untrusted: 'deleting is off',
    run:
      ({ client }) =>
      async (node: Node) => {
        const value = chosenValue(node);
        const answer = await vscode.window.showWarningMessage(
          `Delete retained value #${value.valueId} (${formatBytes(value.bytes)})?`,
          {
            modal: true,
            detail: 'The transcript keeps the full result; replays will send it in full instead of the stub.',
          },
          'Delete',
        );
        if (answer === 'Delete')
          await client.sendRequest(DeleteRequest.type, {
            runId: value.runId,
            valueId: value.valueId,
            ...storeOf(value),
          });
      },
  },

  deleteRun: {
    untrusted: 'deleting is off',
    run:
      ({ client }) =>
      async (node: Node) => {
        if (node?.kind !== 'run') throw new Error('Choose a run in the Retained Outputs view first.');
        const { run } = node as RunNode;
        const answer = await vscode.window.showWarningMessage(
          `Delete run ${run.runId}, its transcript and its ${run.valueCount} values (${formatBytes(run.valueBytes)})?`,
          { modal: true },
          'Delete',
        );
        if (answer === 'Delete') await client.sendRequest(DeleteRequest.type, { runId: run.runId, ...storeOf(node) });
      },
  },
};
