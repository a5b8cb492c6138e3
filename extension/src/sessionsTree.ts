/**
 * The "Agent Sessions" view: this workspace's sessions of each agent that keeps them (sessionFiles.ts), newest
 * first, read where the agents keep them and refreshed while the view is visible. Opening one
 * shows it in the inspector, followed live; nothing goes into the store unless it is imported.
 * A session whose run is in the store already (the hook wrote it as the agent ran, or it was
 * imported) says so: importing it enriches that run, never a second one.
 */
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { agentName } from '../../shared/agents';
import { formatAge } from '../../shared/format';
import type { Commands } from './commands';
import { type AgentSession, type FactsCache, findSessions } from './sessionFiles';

/** How often a visible view looks for new and growing sessions. */
const POLL_MS = 3000;
/** How often it shows again regardless, so the ages it shows move on. */
const AGES_MS = 60_000;

export class SessionsTree implements vscode.TreeDataProvider<AgentSession>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<AgentSession | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly cache: FactsCache = new Map();
  private timer: NodeJS.Timeout | undefined;
  private shown = '';
  private shownAt = 0;

  /** The store's runs by name, as last listed: a session named like one is that run. */
  private stored = new Map<string, string>();

  constructor(
    private readonly workspace: string | undefined,
    /** The store's runs, name → run id. */
    private readonly runs: () => Promise<Map<string, string>>,
  ) {}

  /** Looks again every few seconds while the view is visible. */
  setVisible(visible: boolean): void {
    clearInterval(this.timer);
    this.timer = visible ? setInterval(() => this.poll(), POLL_MS) : undefined;
  }

  /** Shows the sessions again (a run came or went). */
  refresh(): void {
    this.changed.fire(undefined);
  }

  private poll(): void {
    const now = this.list()
      .map((s) => `${s.path}:${s.mtimeMs}`)
      .join('|');
    if (now !== this.shown || Date.now() - this.shownAt > AGES_MS) this.changed.fire(undefined);
  }

  private list(): AgentSession[] {
    return this.workspace ? findSessions(this.workspace, process.env, this.cache) : [];
  }

  async getChildren(element?: AgentSession): Promise<AgentSession[]> {
    if (element) return [];
    this.stored = await this.runs().catch(() => this.stored);
    const sessions = this.list();
    this.shown = sessions.map((s) => `${s.path}:${s.mtimeMs}`).join('|');
    this.shownAt = Date.now();
    void vscode.commands.executeCommand('setContext', 'retained.noSessions', sessions.length === 0);
    return sessions;
  }

  getTreeItem(session: AgentSession): vscode.TreeItem {
    const item = new vscode.TreeItem(session.title, vscode.TreeItemCollapsibleState.None);
    item.id = `session:${session.path}`;
    item.contextValue = 'session';
    item.iconPath = new vscode.ThemeIcon(session.agent === 'claude-code' ? 'comment-discussion' : 'terminal');
    item.description = `${agentName(session.agent)} · ${formatAge(new Date(session.lastAt).toISOString())}`;
    item.tooltip = new vscode.MarkdownString(
      `**${agentName(session.agent)}** session\n\n${session.title}\n\n\`${session.path}\``,
    );
    item.command = { command: 'retained.openSession', title: 'Open in Inspector', arguments: [session] };
    if (this.stored.has(session.run ?? basename(session.path, '.jsonl'))) {
      item.description += ' · in Runs';
      item.tooltip.appendMarkdown(
        "\n\nIts run is in Runs (Retained Outputs' hook wrote it as the agent ran). Import the session to bring its requests into that run: one run, every value it holds kept.",
      );
    }
    return item;
  }

  dispose(): void {
    clearInterval(this.timer);
    this.changed.dispose();
  }
}

export const sessionCommands: Commands = {
  importSession: {
    run: () => (session: AgentSession) =>
      vscode.commands.executeCommand('retained.importTranscript', vscode.Uri.file(session.path)),
  },
};
