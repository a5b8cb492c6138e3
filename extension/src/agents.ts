/**
 * Agents outside the extension: the MCP server offered to VS Code itself (so Copilot agent mode
 * lists peek_value, run_command and list_retained with no setup), and "Set Up an Agent…"
 * (Claude Code, Codex, Gemini CLI, OpenCode), which shows the exact configuration it will add in
 * a read-only preview and writes it only when confirmed. What it writes names the command line's stable copy (cliInstall.ts).
 */
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import * as vscode from 'vscode';
import { type FileChange, type Launcher, SETUP_AGENT_INFO, SETUP_AGENTS, setupChanges } from '../../shared/agentSetup';
import { agentHome } from '../../shared/agents';
import type { Commands } from './commands';
import type { Ctx } from './ctx';

export const MCP_PROVIDER_ID = 'retained.mcp';

/** A Node on PATH when there is one (it outlives an editor update); else the editor's own, as Node. */
export function launcher(cli: string): Launcher {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const node = join(dir, process.platform === 'win32' ? 'node.exe' : 'node');
    if (dir && existsSync(node)) return { node, cli };
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

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const readText = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : undefined);

/** What Set Up will write, as a document to read: each file whole, new or changed. */
function previewText(agent: string, changes: FileChange[], write: string, moving: boolean): string {
  const files = changes.map(
    (c) =>
      `## ${c.path} (${c.before === undefined ? 'a new file' : 'changed'})\n\n\`\`\`${c.path.endsWith('.toml') ? 'toml' : 'jsonc'}\n${c.after ?? ''}\`\`\`\n`,
  );
  const warning = moving
    ? [
        "\n> The command line's stable copy could not be made: these paths name the extension's own folder, which changes with each update.\n",
      ]
    : [];
  return [
    `# Set up ${agent} for Retained Outputs\n`,
    `Nothing is written until you choose **${write}** in the notification. This preview is read-only.\n`,
    ...warning,
    ...files,
  ].join('\n');
}

/** Set Up: which agent, what will be written (a read-only preview), then the question; writes only on yes. */
async function setUp({ extension: context, cli, texts }: Ctx): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const agents = SETUP_AGENTS.filter((agent) => agent !== 'claude-code' || folder);
  const picked = await vscode.window.showQuickPick(
    agents.map((agent) => ({
      label: SETUP_AGENT_INFO[agent].name,
      detail: SETUP_AGENT_INFO[agent].adds,
      agent,
    })),
    { title: 'Set Up an Agent for Retained Outputs', placeHolder: 'Which agent?' },
  );
  if (!picked) return;
  let changes: FileChange[];
  const bundled = context.asAbsolutePath('dist/cli.js');
  const stable = await cli.catch(() => bundled);
  try {
    const run = launcher(stable);
    const places = { project: folder, home: agentHome(picked.agent, homedir(), process.env) };
    changes = setupChanges(picked.agent, places, run, readText, { sha256 });
  } catch (err) {
    void vscode.window.showErrorMessage(`Retained Outputs: ${(err as Error).message}`);
    return;
  }
  if (changes.length === 0) {
    void vscode.window.showInformationMessage(`Retained Outputs: ${picked.label} is set up already.`);
    return;
  }
  const write = `Write ${changes.length === 1 ? 'It' : `${changes.length} Files`}`;
  const uri = await texts.show(
    `Set up ${picked.label}.md`,
    previewText(picked.label, changes, write, stable === bundled),
  );
  // Not modal: the preview stays readable while the question waits.
  const answer = await vscode.window.showInformationMessage(
    `Add Retained Outputs to ${picked.label}? The editor shows exactly what will be written.`,
    write,
    'Cancel',
  );
  await texts.close(uri);
  if (answer !== write) return;
  try {
    for (const change of changes) {
      mkdirSync(dirname(change.path), { recursive: true });
      if (change.after === undefined) continue;
      writeFileSync(change.path, change.after);
      // A program the agent runs (Claude Code's shell prefix), whatever the umask.
      if (change.executable) chmodSync(change.path, 0o755);
    }
  } catch (err) {
    void vscode.window.showErrorMessage(`Retained Outputs: could not write the set-up: ${(err as Error).message}`);
    return;
  }
  void vscode.window.showInformationMessage(
    `Retained Outputs: ${picked.label} is set up. Start a new session for it to take effect.`,
  );
}

export const agentCommands: Commands = {
  setUpAgents: {
    untrusted: 'setting up agents (it writes their configuration) is off',
    run: (ctx) => () => setUp(ctx),
  },
};
