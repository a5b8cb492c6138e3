/**
 * The inspector panels: one webview per run, showing the full transcript beside the model's
 * view. The extension only relays: every message from the webview is checked, then answered
 * from the language server. Panels come back after a window reload through the serializer.
 */
import { randomBytes } from 'node:crypto';
import { watch } from 'node:fs';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import type { TranscriptEvent } from '../../shared/events';
import { formatBytes } from '../../shared/format';
import { INSPECT_PAGE_ROWS, INSPECT_VIEW, type View } from '../../shared/history';
import { type HostToPage, type PageToHost, parsePageMessage, parseState } from '../../shared/messages';
import {
  ExportRequest,
  type InspectQuery,
  InspectRequest,
  type InspectResult,
  PAGE_REQUESTS,
  RunsRequest,
  SessionRequest,
  TranscriptRequest,
  ValueFileRequest,
  ValueRequest,
} from '../../shared/protocol';
import type { Commands } from './commands';
import type { ReadOnlyText } from './readOnlyText';
import { type RunNode, storeOf } from './runsTree';
import type { AgentSession } from './sessionFiles';
import { openValue } from './valueCommands';

export const INSPECTOR_PANEL_TYPE = 'retained.inspector';

/** The column right of the inspector: every value it opens goes there, not into a new group each time. */
function besides(panel: vscode.WebviewPanel): vscode.ViewColumn {
  return ((panel.viewColumn ?? vscode.ViewColumn.One) + 1) as vscode.ViewColumn;
}

/** The whole body the inspector showed cut: a result, a message's text, or one call's arguments (as shown, indented JSON). */
function bodyOf(event: TranscriptEvent, callId?: string): string {
  if (event.type === 'tool_call_finished') {
    if (event.result === undefined) throw new Error('the result is kept in its value: open the value');
    return event.result;
  }
  if (event.type === 'user' || event.type === 'system') return event.text;
  if (event.type === 'compaction') return event.summary ?? '';
  if (event.type !== 'assistant') throw new Error(`event ${event.type} has no body to open`);
  if (callId === undefined) return event.text ?? '';
  const call = event.toolCalls?.find((c) => c.id === callId);
  if (!call) throw new Error(`the assistant event has no call ${callId}`);
  return JSON.stringify(call.arguments ?? {}, null, 2);
}

/** What a panel shows: a run of the workspace's store or of the team's, or an agent's session followed live. */
interface Target {
  runId: string;
  /** A run of the team store (`retained.storeUrl`). */
  team?: boolean;
  /** The session file, for a session (its run is in the sessions store). */
  session?: string;
  title?: string;
  /** The view a restored page will ask for first (a new page asks for the default one). */
  view?: { view?: View; policy?: boolean };
}

const keyOf = (target: Target) =>
  target.session ? `session:${target.session}` : target.team ? `team:${target.runId}` : target.runId;
/** The `store` of a request about the panel's run. */
const targetStore = (target: Target) =>
  target.session ? { store: 'sessions' as const } : target.team ? { store: 'team' as const } : {};

export class Inspectors implements vscode.WebviewPanelSerializer, vscode.Disposable {
  private readonly panels = new Map<string, vscode.WebviewPanel>();
  /** Each new page's first page, asked for as its panel opened (see attach). */
  private readonly firstPages = new WeakMap<
    vscode.WebviewPanel,
    { view: View; policy: boolean; answer: Promise<InspectResult> }
  >();

  private readonly active = new vscode.EventEmitter<{ runId: string; team: boolean } | undefined>();
  /** The run of the inspector shown (a session's is not a run of a store), or undefined when none is. */
  readonly onDidChangeActive = this.active.event;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly client: LanguageClient,
    private readonly log: vscode.LogOutputChannel,
    private readonly texts: ReadOnlyText,
  ) {}

  /** Opens (or reveals) the inspector of `runId`; without one, asks which run. */
  async open(runId?: string, team = false): Promise<void> {
    runId ??= await this.pickRun();
    if (!runId) return;
    this.show({ runId, ...(team ? { team } : {}) });
  }

  /** Opens (or reveals) an agent's session, converted by the server and followed as it grows. */
  async openSession(path: string, title: string): Promise<void> {
    const open = this.panels.get(keyOf({ runId: '', session: path }));
    if (open) return open.reveal();
    const { runId } = await this.client.sendRequest(SessionRequest.type, { path });
    this.show({ runId, session: path, title });
  }

  private show(target: Target): void {
    const open = this.panels.get(keyOf(target));
    if (open) {
      open.reveal();
      return;
    }
    const panel = vscode.window.createWebviewPanel(INSPECTOR_PANEL_TYPE, '', vscode.ViewColumn.Active, this.options());
    this.attach(panel, target);
  }

  /** Restores a panel after a reload, from the state its webview saved. */
  async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: unknown): Promise<void> {
    const saved = parseState(state);
    if (!saved) {
      panel.dispose(); // nothing to show: a state from another version
      return;
    }
    panel.webview.options = this.options();
    if (saved.session) {
      // The session may have grown while the window was away: convert it again first.
      const { runId } = await this.client
        .sendRequest(SessionRequest.type, { path: saved.session })
        .catch(() => ({ runId: saved.runId }));
      this.attach(panel, { runId, session: saved.session, view: saved });
    } else this.attach(panel, { runId: saved.runId, ...(saved.team ? { team: true } : {}), view: saved });
  }

  /** Tells the run's panel, if open, that the run changed. */
  changed(runId: string, team = false): void {
    void this.panels.get(keyOf({ runId, team }))?.webview.postMessage({ type: 'changed' } satisfies HostToPage);
  }

  /** Tells every team run's panel that the team store was lost (why) or is served again. */
  teamState(problem: string | undefined): void {
    const message: HostToPage = problem ? { type: 'storeState', problem } : { type: 'storeState' };
    for (const [key, panel] of this.panels) if (key.startsWith('team:')) void panel.webview.postMessage(message);
  }

  dispose(): void {
    for (const panel of this.panels.values()) panel.dispose();
    this.active.dispose();
  }

  private options(): vscode.WebviewPanelOptions & vscode.WebviewOptions {
    return {
      enableScripts: true,
      enableFindWidget: true,
      // Only the bundle, its CSS and codicons are loadable; the state survives hiding via setState.
      localResourceRoots: [
        vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview'),
        vscode.Uri.joinPath(this.extensionUri, 'media'),
      ],
    };
  }

  private attach(panel: vscode.WebviewPanel, target: Target): void {
    const { runId } = target;
    const key = keyOf(target);
    this.panels.set(key, panel);
    panel.title = target.session
      ? `Session: ${target.title ?? runId}`
      : `Inspector: ${runId}${target.team ? ' (team)' : ''}`;
    const follow = target.session ? this.follow(panel, target.session) : undefined;
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'retained.svg');
    // While the page loads, the server answers the page's first request (the view it will ask
    // for: the saved one, or the default), so the answer is there when the page asks.
    const first = { view: target.view?.view ?? INSPECT_VIEW, policy: target.view?.policy ?? false };
    const answer = this.client.sendRequest(InspectRequest.type, {
      runId,
      ...first,
      from: 0,
      limit: INSPECT_PAGE_ROWS,
      ...targetStore(target),
    });
    answer.catch(() => undefined);
    this.firstPages.set(panel, { ...first, answer });
    panel.webview.html = this.html(panel.webview);
    const subscription = panel.webview.onDidReceiveMessage((data: unknown) => {
      let message: PageToHost;
      try {
        message = parsePageMessage(data);
      } catch (err) {
        this.log.warn(`Inspector (${runId}): message refused: ${(err as Error).message}`);
        return;
      }
      void this.handle(panel, target, message);
    });
    const activeRun = () => (target.session ? undefined : { runId, team: target.team === true });
    if (panel.active) this.active.fire(activeRun());
    const shown = panel.onDidChangeViewState(({ webviewPanel }) => {
      if (webviewPanel.active) this.active.fire(activeRun());
      else if (![...this.panels.values()].some((p) => p.active)) this.active.fire(undefined);
    });
    panel.onDidDispose(() => {
      subscription.dispose();
      shown.dispose();
      follow?.dispose();
      if (this.panels.get(key) === panel) this.panels.delete(key);
      if (![...this.panels.values()].some((p) => p.active)) this.active.fire(undefined);
    });
  }

  /** Follows a session file: converted again after the agent writes, and the panel told. */
  private follow(panel: vscode.WebviewPanel, path: string): vscode.Disposable {
    let timer: NodeJS.Timeout | undefined;
    const watcher = watch(path, { persistent: false }, () => {
      clearTimeout(timer);
      timer = setTimeout(async () => {
        try {
          await this.client.sendRequest(SessionRequest.type, { path });
          void panel.webview.postMessage({ type: 'changed' } satisfies HostToPage);
        } catch (err) {
          this.log.warn(`Session ${path}: ${(err as Error).message}`);
        }
      }, 300);
    });
    watcher.on('error', () => watcher.close());
    return new vscode.Disposable(() => {
      clearTimeout(timer);
      watcher.close();
    });
  }

  private async handle(panel: vscode.WebviewPanel, target: Target, message: PageToHost): Promise<void> {
    const { runId } = target;
    const post = (reply: HostToPage) => void panel.webview.postMessage(reply);
    // A session's run is read from the sessions store, a team run from the team's.
    const store = targetStore(target);
    switch (message.type) {
      case 'ready': {
        const state = parseState(message.state);
        const session = target.session ? { session: target.session } : target.team ? { team: true } : {};
        return post({
          type: 'init',
          runId,
          ...session,
          ...(state?.runId === runId ? { state: { ...state, ...session } } : {}),
        });
      }
      case 'rendered':
        this.log.info(
          `Inspector (${runId}): first rows rendered ${message.ms} ms after the page started (${message.rows} rows; ${JSON.stringify(message.marks ?? {})}).`,
        );
        return;
      case 'openValue':
        try {
          const meta = await this.client.sendRequest(ValueRequest.type, { runId, valueId: message.valueId, ...store });
          const last = Math.max(1, meta.lines);
          const lines = message.line
            ? { start: Math.min(message.line, last), end: Math.min(message.endLine ?? message.line, last) }
            : undefined;
          await openValue({ ...meta, ...store }, lines, besides(panel));
        } catch (err) {
          void vscode.window.showErrorMessage(`Retained Outputs: ${(err as Error).message}`);
        }
        return;
      case 'openEvent':
        try {
          const [event] = (
            await this.client.sendRequest(TranscriptRequest.type, { runId, from: message.index, limit: 1, ...store })
          ).events;
          if (!event) throw new Error(`run ${runId} has no event #${message.index}`);
          // A withheld result's original is in the store's withheld/ folder: it opens read-only.
          if (event.type === 'tool_call_finished' && event.withheld?.file) {
            const { valueId } = await this.client.sendRequest(ValueFileRequest.type, {
              runId,
              event: message.index,
              ...store,
            });
            await openValue({ runId, valueId, ...store }, undefined, besides(panel));
            return;
          }
          const name = `${runId} #${message.index}${message.callId ? ` ${message.callId}` : ''}.txt`;
          await this.texts.show(name, bodyOf(event, message.callId), { viewColumn: besides(panel) });
        } catch (err) {
          void vscode.window.showErrorMessage(`Retained Outputs: ${(err as Error).message}`);
        }
        return;
      case 'request':
        try {
          const started = Date.now();
          // Every request of the page is its row of PAGE_REQUESTS, about the panel's run.
          const ask = () =>
            this.client.sendRequest(PAGE_REQUESTS[message.method].request.method, {
              runId,
              ...message.params,
              ...store,
            });
          const first = message.method === 'inspect' ? this.takeFirstPage(panel, message.params) : undefined;
          const result = first ? await first.catch(ask) : await ask();
          const ms = Date.now() - started;
          // A slow request, and every first page (one line per open: how long the panel waited).
          const firstPage = message.method === 'inspect' && !message.params.from && Boolean(message.params.limit);
          if (ms > 500 || firstPage)
            this.log.info(
              `Inspector (${runId}): ${message.method} ${JSON.stringify(message.params)} took ${ms} ms in the language server.`,
            );
          return post({ type: 'response', id: message.id, result });
        } catch (err) {
          return post({ type: 'error', id: message.id, message: (err as Error).message });
        }
    }
  }

  /** The answer asked for as the panel opened, once, when the page asks for that very page. */
  private takeFirstPage(panel: vscode.WebviewPanel, params: InspectQuery): Promise<InspectResult> | undefined {
    const first = this.firstPages.get(panel);
    this.firstPages.delete(panel);
    const same =
      first &&
      !params.from &&
      params.limit === INSPECT_PAGE_ROWS &&
      params.modelCall === undefined &&
      (params.view ?? INSPECT_VIEW) === first.view &&
      (params.policy ?? false) === first.policy;
    return same ? first.answer : undefined;
  }

  private async pickRun(): Promise<string | undefined> {
    const { runs } = await this.client.sendRequest(RunsRequest.type, {});
    if (runs.length === 0) {
      void vscode.window.showInformationMessage('Retained Outputs: no runs recorded yet.');
      return undefined;
    }
    const picked = await vscode.window.showQuickPick(
      runs.map((run) => ({
        label: run.title ?? run.name,
        runId: run.runId,
        description: `${run.title ? `${run.name} · ` : ''}${new Date(run.startedAt).toLocaleString()}`,
        detail: `${run.valueCount} retained values · ${formatBytes(run.keptOutBytes)} kept out of context`,
      })),
      // A run called by its first prompt is found by its id too.
      { title: 'Open Inspector', placeHolder: 'Which run? (newest first)', matchOnDescription: true },
    );
    return picked?.runId;
  }

  private html(webview: vscode.Webview): string {
    const nonce = randomBytes(18).toString('base64');
    const asset = (file: string) =>
      webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview', file)).toString();
    const csp = [
      "default-src 'none'",
      `img-src ${webview.cspSource} data:`,
      `font-src ${webview.cspSource}`,
      `style-src ${webview.cspSource} 'nonce-${nonce}'`,
      `script-src 'nonce-${nonce}'`,
    ].join('; ');
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" nonce="${nonce}" id="vscode-codicon-stylesheet" href="${asset('codicon.css')}">
<link rel="stylesheet" nonce="${nonce}" href="${asset('inspector.css')}">
<title>Retained Outputs Inspector</title>
</head>
<body>
<div id="root"></div>
<script nonce="${nonce}" src="${asset('inspector.js')}"></script>
</body>
</html>`;
  }
}

const EXPORTS = [
  { label: 'Markdown', format: 'markdown', ext: 'md', detail: 'A report to paste into an issue' },
  {
    label: 'HTML',
    format: 'html',
    ext: 'html',
    detail: 'One self-contained file: no script, nothing loaded from elsewhere',
  },
  {
    label: 'JSON',
    format: 'json',
    ext: 'json',
    detail: "The protocol's shapes: the run, its outline, its usage, its events",
  },
] as const;

export const inspectorCommands: Commands = {
  exportRun: {
    run:
      ({ client }) =>
      async (node?: RunNode) => {
        if (node?.kind !== 'run') throw new Error('Choose a run under Runs in the Retained Outputs sidebar first.');
        const picked = await vscode.window.showQuickPick(EXPORTS, {
          title: `Export run ${node.run.name}`,
          placeHolder: 'As…',
        });
        if (!picked) return;
        const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
        const target = await vscode.window.showSaveDialog({
          title: `Export run ${node.run.name}`,
          ...(folder ? { defaultUri: vscode.Uri.joinPath(folder, `${node.run.runId}.${picked.ext}`) } : {}),
          filters: { [picked.label]: [picked.ext] },
        });
        if (!target) return;
        const { text } = await vscode.window.withProgress(
          { location: vscode.ProgressLocation.Notification, title: `Exporting run ${node.run.name}…` },
          () =>
            client.sendRequest(ExportRequest.type, { runId: node.run.runId, format: picked.format, ...storeOf(node) }),
        );
        await vscode.workspace.fs.writeFile(target, Buffer.from(text, 'utf8'));
        const open = await vscode.window.showInformationMessage(`Exported run ${node.run.name}.`, 'Open');
        if (open) await vscode.commands.executeCommand('vscode.open', target);
      },
  },
  openInspector: {
    run: (ctx) => (arg?: RunNode | string) =>
      typeof arg === 'string' ? ctx.inspectors.open(arg) : ctx.inspectors.open(arg?.run.runId, arg?.store === 'team'),
  },
  openSession: { run: (ctx) => (session: AgentSession) => ctx.inspectors.openSession(session.path, session.title) },
};
