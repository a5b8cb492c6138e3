/**
 * The sidebar: runs (newest first) → their retained values; with a team store configured
 * (`retained.storeUrl`), under "This machine" and "Team". Children load lazily, and a
 * `retained/changed` refreshes only the run that changed, so the tree stays fast with
 * thousands of values.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { formatAge, formatBytes, formatCount } from '../../shared/format';
import {
  type RunSummary,
  RunsRequest,
  VALUES_PAGE_MAX,
  ValueRequest,
  type ValueSummary,
  ValuesRequest,
} from '../../shared/protocol';
import type { Commands } from './commands';

/** Which store a node is of: the team store's (`'team'`), or the workspace's (absent). */
export type Team = { store?: 'team' };
/** A store's heading, when there are two. */
export type StoreNode = { kind: 'store'; store: 'workspace' | 'team' };
export type RunNode = { kind: 'run'; run: RunSummary; shown?: number } & Team;
export type ValueNode = { kind: 'value'; value: ValueSummary } & Team;
/** The rest of a long run's values, listed on demand. */
export type MoreNode = { kind: 'more'; run: RunNode; shown: number; total: number };
/** Why the team store lists nothing: its words, in the tree itself (a toast is cut to a line and gone). */
export type ProblemNode = { kind: 'problem'; message: string };
export type Node = StoreNode | RunNode | ValueNode | MoreNode | ProblemNode;

/** The `store` field of a request about a node's run or value. */
export const storeOf = (node: Team): Team => (node.store ? { store: node.store } : {});
const keyOf = (runId: string, store?: 'team') => `${store ?? 'workspace'}:${runId}`;
const HEADINGS: Record<StoreNode['store'], StoreNode> = {
  workspace: { kind: 'store', store: 'workspace' },
  team: { kind: 'store', store: 'team' },
};

/** Values listed when a run opens; a run of 10,000 values opens as fast as one of 200. */
const VALUES_PAGE = 200;

export class RunsTree implements vscode.TreeDataProvider<Node> {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  /** The run nodes last shown, by store and id, so a change can refresh just that node. */
  private runs = new Map<string, RunNode>();
  /** Why the team store is not served, when it is not (the last request's error, or the server's notice). */
  private teamProblem: string | undefined;

  /** `team`: whether a team store is configured (then both stores are shown, each under its heading). */
  constructor(
    private readonly client: LanguageClient,
    private readonly team: () => boolean,
    private readonly output: vscode.LogOutputChannel,
  ) {}

  /** The server says the team store was lost (why) or is served again: Team is listed again. */
  teamState(problem: string | undefined): void {
    this.teamProblem = problem;
    this.changed.fire(undefined);
  }

  /** Refreshes everything (undefined) or one run. */
  async refresh(runId?: string, store?: 'team'): Promise<void> {
    const node = runId ? this.runs.get(keyOf(runId, store)) : undefined;
    if (!node) return this.changed.fire(undefined);
    const [summary] = (await this.client.sendRequest(RunsRequest.type, { runIds: [runId!], ...storeOf(node) })).runs;
    if (!summary) return this.changed.fire(undefined); // deleted: the list changes
    node.run = summary;
    this.changed.fire(node);
  }

  async getChildren(element?: Node): Promise<Node[]> {
    if (!element && this.team()) return [HEADINGS.workspace, HEADINGS.team];
    if (!element || element.kind === 'store') {
      const store = element?.store === 'team' ? ('team' as const) : undefined;
      let runs: RunSummary[];
      try {
        ({ runs } = await this.client.sendRequest(RunsRequest.type, store ? { store } : {}));
      } catch (err) {
        // An unreachable team store leaves this machine's runs listed; Team says why, in its place.
        if (!store) throw err;
        const message = (err as Error).message;
        if (message !== this.teamProblem) this.output.warn(`The team store: ${message}`);
        this.teamProblem = message;
        return [{ kind: 'problem', message }];
      }
      if (store) this.teamProblem = undefined;
      const kept = new Map([...this.runs].filter(([, node]) => node.store !== store));
      for (const run of runs) {
        const key = keyOf(run.runId, store);
        const node = this.runs.get(key) ?? { kind: 'run', run, ...(store ? { store } : {}) };
        node.run = run;
        kept.set(key, node);
      }
      this.runs = kept;
      // The welcome text shows only once the store is known to be empty, not while loading.
      if (!store) void vscode.commands.executeCommand('setContext', 'retained.empty', runs.length === 0);
      return runs.map((run) => this.runs.get(keyOf(run.runId, store))!);
    }
    if (element.kind === 'run') {
      const shown = element.shown ?? VALUES_PAGE;
      const { values, total } = await this.client.sendRequest(ValuesRequest.type, {
        runId: element.run.runId,
        limit: Math.min(shown, VALUES_PAGE_MAX),
        ...storeOf(element),
      });
      const nodes: Node[] = values.map((value) => ({ kind: 'value', value, ...storeOf(element) }));
      if (total > values.length) nodes.push({ kind: 'more', run: element, shown: values.length, total });
      return nodes;
    }
    return [];
  }

  /** The node of this machine's run, after listing the runs again (a run just imported). */
  async runNode(runId: string): Promise<RunNode | undefined> {
    await this.getChildren(this.team() ? HEADINGS.workspace : undefined);
    this.changed.fire(undefined);
    return this.runs.get(keyOf(runId));
  }

  /** Lists more of a run's values. */
  showMore(node: MoreNode): void {
    node.run.shown = Math.min(VALUES_PAGE_MAX, node.shown + VALUES_PAGE * 4);
    this.changed.fire(node.run);
  }

  getParent(element: Node): Node | undefined {
    if (element.kind === 'more') return element.run;
    if (element.kind === 'value') return this.runs.get(keyOf(element.value.runId, element.store));
    if (element.kind === 'run' && this.team()) return HEADINGS[element.store ?? 'workspace'];
    return undefined;
  }

  getTreeItem(element: Node): vscode.TreeItem {
    if (element.kind === 'store') {
      const team = element.store === 'team';
      const item = new vscode.TreeItem(team ? 'Team' : 'This machine', vscode.TreeItemCollapsibleState.Expanded);
      item.id = `store:${element.store}`;
      item.contextValue = `store ${element.store}`;
      item.iconPath = new vscode.ThemeIcon(team ? 'organization' : 'device-desktop');
      item.tooltip = team
        ? 'Runs in the team store (retained.storeUrl): CI, cloud agents and teammates'
        : "Runs in this workspace's store (retained.storeRoot)";
      item.accessibilityInformation = {
        label: team ? 'Team: runs in the team store' : "This machine: runs in this workspace's store",
      };
      if (team && this.teamProblem) item.description = needsPassword(this.teamProblem) ? 'password needed' : 'offline';
      return item;
    }
    if (element.kind === 'problem') return problemItem(element.message);
    if (element.kind === 'run') {
      const { run } = element;
      // Called by what it is (an imported session's first prompt) where it has more than an id.
      const item = new vscode.TreeItem(run.title ?? run.name, vscode.TreeItemCollapsibleState.Collapsed);
      item.id = element.store ? `team-run:${run.runId}` : `run:${run.runId}`;
      // A team run's context names it (its values have no file to copy or reveal).
      item.contextValue = `${run.pinned ? 'run pinned' : 'run'}${element.store ? ' team' : ''}`;
      item.iconPath = new vscode.ThemeIcon(run.pinned ? 'pinned' : 'history');
      // An imported session is dated by when it ran, not by when it was imported.
      const when = run.title ? new Date(run.startedAt).toLocaleDateString() : formatAge(run.updatedAt);
      // Kept out, as the status bar counts: the values' own size (a little more: their stubs stay) is in the tooltip.
      item.description = `${formatCount(run.valueCount, 'value')} · ${formatBytes(run.keptOutBytes)} kept out · ${when}`;
      if (run.title) item.accessibilityInformation = { label: `${run.title}, run ${run.name}, ${item.description}` };
      const tooltip = new vscode.MarkdownString();
      if (run.title) tooltip.appendText(`${run.title}\n\n`);
      item.tooltip = tooltip.appendMarkdown(
        [
          `**Run ${run.name}**${run.name === run.runId ? '' : ` (id \`${run.runId}\`)`}`,
          '',
          `- started ${new Date(run.startedAt).toLocaleString()}, last change ${formatAge(run.updatedAt)}`,
          `- ${formatCount(run.valueCount, 'retained value')}, ${formatBytes(run.valueBytes)}`,
          `- ${formatBytes(run.keptOutBytes)} kept out of the model's context`,
          `- transcript ${formatBytes(run.transcriptBytes)}`,
          ...(run.pinned ? ['- kept: clean-ups never remove it'] : []),
        ].join('\n'),
      );
      return item;
    }
    if (element.kind === 'more') {
      const more = new vscode.TreeItem(
        `${(element.total - element.shown).toLocaleString()} more values…`,
        vscode.TreeItemCollapsibleState.None,
      );
      more.id = `more:${element.run.store ?? 'workspace'}:${element.run.run.runId}:${element.shown}`;
      more.iconPath = new vscode.ThemeIcon('ellipsis');
      more.tooltip =
        element.shown >= VALUES_PAGE_MAX
          ? 'The first 1,000 are listed here; the command line (retained ls) and the inspector show them all.'
          : 'List more of them';
      if (element.shown < VALUES_PAGE_MAX)
        more.command = { command: 'retained.showMoreValues', title: 'Show More', arguments: [element] };
      return more;
    }
    const { value } = element;
    // Named by what it is (`Read src/app.ts`, `Bash npm test`); the call id is in the tooltip.
    const item = new vscode.TreeItem(
      value.subject ? `${value.tool} ${value.subject.text}` : `${value.tool} · ${value.valueId}`,
      vscode.TreeItemCollapsibleState.None,
    );
    item.id = `${element.store ? 'team-value' : 'value'}:${value.runId}/${value.valueId}`;
    item.contextValue = element.store ? 'value team' : 'value';
    item.resourceUri = vscode.Uri.parse(value.uri);
    item.iconPath = new vscode.ThemeIcon(value.isError ? 'error' : 'file-text');
    item.description = `${formatBytes(value.bytes)} · ${formatCount(value.lines, 'line')} · ${formatAge(value.createdAt)}`;
    item.command = { command: 'retained.openValue', title: 'Open Original', arguments: [element] };
    return item;
  }

  /** The tooltip (the stub's preview) is fetched only when the user hovers. */
  async resolveTreeItem(item: vscode.TreeItem, element: Node): Promise<vscode.TreeItem> {
    if (element.kind !== 'value') return item;
    const meta = await this.client.sendRequest(ValueRequest.type, {
      runId: element.value.runId,
      valueId: element.value.valueId,
      ...storeOf(element),
    });
    const tooltip = new vscode.MarkdownString(
      `**#${meta.valueId}**: ${meta.tool}, ${formatBytes(meta.bytes)}, ${formatCount(meta.lines, 'line')}, call \`${meta.callId}\`, ${new Date(meta.createdAt).toLocaleString()}\n\n`,
    );
    tooltip.appendCodeblock(meta.stub || '(no stub recorded)', 'text');
    item.tooltip = tooltip;
    return item;
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** A team store's problem is a password when the server's words send the user to the password command. */
const needsPassword = (message: string) => message.includes('Set Team Store Password');

function problemItem(message: string): vscode.TreeItem {
  const password = needsPassword(message);
  const item = new vscode.TreeItem(
    password ? 'The team store wants a password' : 'The team store is unavailable',
    vscode.TreeItemCollapsibleState.None,
  );
  item.id = 'store:team:problem';
  item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'));
  item.description = password ? 'Set Password…' : 'tried again by itself · Refresh';
  item.tooltip = message;
  item.accessibilityInformation = { label: message };
  item.command = password
    ? { command: 'retained.setStorePassword', title: 'Set Team Store Password…' }
    : { command: 'retained.refresh', title: 'Refresh' };
  return item;
}

export const runsCommands: Commands = {
  showMoreValues: { run: (ctx) => (node: MoreNode) => ctx.runs.showMore(node) },
  refresh: { run: (ctx) => () => ctx.runs.refresh() },
};
