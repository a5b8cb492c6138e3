/**
 * Agents outside the extension: the MCP server offered to VS Code itself (so Copilot agent mode
 * lists peek_value, run_command and list_retained with no setup), and "Set Up an Agent…"
 * (each agent of shared/agents.ts), which shows the exact configuration it will add in
 * a read-only preview and writes it only when confirmed. Both are `retained setup` (the command
 * line's stable copy, cliInstall.ts, which is what the configuration then names): `--dry-run
 * --json` for the preview, `--expect` its digest for the write.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, isAbsolute, join } from 'node:path';
import * as vscode from 'vscode';
import { AGENT_IDS, AGENTS, type AgentId, agentHome, setupSummary } from '../../shared/agents';
import { check } from '../../shared/check';
import type { Launcher } from '../../shared/launcher';
import { type FileChange, SetupAnswer } from '../../shared/setupAnswer';
import type { Commands } from './commands';
import type { Ctx } from './ctx';

export const MCP_PROVIDER_ID = 'retained.mcp';

/** A Node on PATH when there is one (it outlives an editor update); else the editor's own, as Node. */
export function launcher(cli: string): Launcher {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const node = join(dir, process.platform === 'win32' ? 'node.exe' : 'node');
    // A relative entry names wherever the agent starts: never written into its configuration.
    if (isAbsolute(dir) && existsSync(node)) return { node, cli };
  }
  return { node: process.execPath, cli, env: { ELECTRON_RUN_AS_NODE: '1' } };
}

export function registerMcpServer(context: vscode.ExtensionContext, storeRoot: () => string): vscode.Disposable {
  const changed = new vscode.EventEmitter<void>();
  const provider: vscode.McpServerDefinitionProvider = {
    onDidChangeMcpServerDefinitions: changed.event,
    provideMcpServerDefinitions: () => {
      // The editor's own Node: it is there, and this definition is made afresh each session.
      const cli = context.asAbsolutePath('dist/cli.js');
      const server = new vscode.McpStdioServerDefinition(
        'Retained Outputs',
        process.execPath,
        [cli, 'mcp', '--store', storeRoot()],
        { ELECTRON_RUN_AS_NODE: '1' },
        String(context.extension.packageJSON.version),
      );
      const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
      if (folder) server.cwd = folder;
      return [server];
    },
  };
  return vscode.Disposable.from(
    changed,
    vscode.lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, provider),
    vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('retained.storeRoot') && changed.fire()),
  );
}

/** How long a setup may take: it waits up to 10 s for another setup's lock. */
const SETUP_TIMEOUT_MS = 60_000;

/** `retained setup <agent> --json …` run by `run`, and its answer (a failure's message thrown). */
function runSetup(
  run: Launcher,
  agent: AgentId,
  flags: string[],
  cwd: string,
): Promise<{ changes: FileChange[]; digest: string; written: boolean }> {
  return new Promise((done, fail) => {
    execFile(
      run.node,
      [run.cli, 'setup', agent, '--json', ...flags],
      { cwd, env: { ...process.env, ...run.env }, timeout: SETUP_TIMEOUT_MS, maxBuffer: 64 << 20, windowsHide: true },
      (err, stdout, stderr) => {
        if (err?.killed)
          // Each file is written whole or not at all, but some may be and others not.
          return fail(
            new Error(
              `retained setup was stopped after ${SETUP_TIMEOUT_MS / 1000} s${flags.includes('--dry-run') ? '' : '; some of the files may be written: run it again to see them as they are'}`,
            ),
          );
        let answer: SetupAnswer;
        try {
          answer = check(
            SetupAnswer,
            JSON.parse(stdout.trim().split('\n').pop() ?? ''),
            'the answer of retained setup',
          );
        } catch (bad) {
          const said = (stderr || err?.message || stdout).trim().slice(0, 500);
          return fail(
            new Error(
              `retained setup gave no answer (${(bad as Error).message.slice(0, 300)})${said ? `: ${said}` : ''}`,
            ),
          );
        }
        if ('error' in answer) fail(new Error(answer.error));
        // JSON leaves out a file's missing side: a FileChange names both.
        else done({ ...answer, changes: answer.changes.map((c) => ({ ...c, before: c.before, after: c.after })) });
      },
    );
  });
}

/** What Set Up (or Remove) will change, as a document to read: each file whole, new, changed or deleted. */
function previewText(title: string, changes: FileChange[], write: string, moving: boolean): string {
  const files = changes.map((c) =>
    c.after === undefined
      ? `## ${c.path} (deleted: it holds only what Set Up wrote)\n`
      : `## ${c.path} (${c.before === undefined ? 'a new file' : 'changed'})\n\n\`\`\`${c.path.endsWith('.toml') ? 'toml' : 'jsonc'}\n${c.after}\`\`\`\n`,
  );
  const warning = moving
    ? [
        "\n> The command line's stable copy could not be made: these paths name the extension's own folder, which changes with each update.\n",
      ]
    : [];
  return [
    `# ${title}\n`,
    `Nothing is written until you choose **${write}** in the question above. This preview is read-only.\n`,
    ...warning,
    ...files,
  ].join('\n');
}

/**
 * Set Up, or with `remove` Remove: which agent, what will change (a read-only preview), then the
 * question, which stays until answered; writes only on yes, and only what the preview showed.
 */
async function change({ extension: context, cli, texts }: Ctx, remove: boolean): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const agents = AGENT_IDS.filter((agent) => AGENTS[agent].setupIn === 'home' || folder);
  const verb = remove ? 'Remove Retained Outputs from' : 'Set Up';
  const picked = await vscode.window.showQuickPick(
    agents.map((agent) => {
      const { name, adds } = setupSummary(agent);
      return { label: name, detail: remove ? `Takes out what Set Up added: ${adds}` : adds, agent };
    }),
    {
      title: remove ? 'Remove Retained Outputs from an Agent' : 'Set Up an Agent for Retained Outputs',
      placeHolder: 'Which agent?',
    },
  );
  if (!picked) return;
  const bundled = context.asAbsolutePath('dist/cli.js');
  const stable = await cli.catch(() => bundled);
  const run = launcher(stable);
  const home = agentHome(picked.agent, homedir(), process.env);
  const flags = [
    ...(remove ? ['--remove'] : []),
    '--home',
    home,
    ...(folder ? ['--project', folder] : []),
    // The Node on PATH as PATH names it (a link, a version manager's shim), not the binary it resolves to.
    ...(run.env ? [] : ['--node', run.node]),
  ];
  const setup = (more: string[]) =>
    vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: `Retained Outputs: ${verb} ${picked.label}…` },
      () => runSetup(run, picked.agent, [...flags, ...more], folder ?? homedir()),
    );
  let shown: Awaited<ReturnType<typeof runSetup>>;
  try {
    shown = await setup(['--dry-run']);
  } catch (err) {
    void vscode.window.showErrorMessage(`Retained Outputs: ${(err as Error).message}`);
    return;
  }
  const { changes } = shown;
  if (changes.length === 0) {
    void vscode.window.showInformationMessage(
      `Retained Outputs: ${remove ? `${picked.label} has nothing of Retained Outputs to remove.` : `${picked.label} is set up already.`}`,
    );
    return;
  }
  const count = changes.length === 1 ? 'It' : `${changes.length} Files`;
  const write = remove ? `Remove from ${count === 'It' ? '1 File' : count}` : `Write ${count}`;
  const title = remove ? `Remove Retained Outputs from ${picked.label}` : `Set up ${picked.label} for Retained Outputs`;
  const doc = remove ? `Remove from ${picked.label}.md` : `Set up ${picked.label}.md`;
  const uri = await texts.show(doc, previewText(title, changes, write, stable === bundled && !remove));
  // A quick pick that stays when focus moves: the preview can be scrolled while it waits, and it
  // does not hide after a while as a notification does.
  const answer = await vscode.window.showQuickPick([{ label: write }, { label: 'Cancel' }], {
    title,
    placeHolder: 'The editor shows exactly what will change.',
    ignoreFocusOut: true,
  });
  await texts.close(uri);
  if (answer?.label !== write) return;
  try {
    // Written only if the files are still as the preview showed them.
    const done = await setup(['--expect', shown.digest]);
    if (!done.written) {
      void vscode.window.showWarningMessage(
        `Retained Outputs: the files changed since they were shown (another setup, or an edit): nothing written. Run ${verb} again to see them as they are.`,
      );
      return;
    }
  } catch (err) {
    void vscode.window.showErrorMessage(`Retained Outputs: ${(err as Error).message}`);
    return;
  }
  void vscode.window.showInformationMessage(
    remove
      ? `Retained Outputs: removed from ${picked.label}. Its sessions started from now on run without it.`
      : `Retained Outputs: ${picked.label} is set up. Start a new session for it to take effect.`,
  );
}

export const agentCommands: Commands = {
  setUpAgents: {
    untrusted: 'setting up agents (it writes their configuration) is off',
    run: (ctx) => () => change(ctx, false),
  },
  removeFromAgent: {
    untrusted: 'removing Retained Outputs from agents (it writes their configuration) is off',
    run: (ctx) => () => change(ctx, true),
  },
};
