/**
 * The language server: wiring only. It hosts one RetentionService over the store and maps the
 * `retained/…` protocol, document links and hovers onto it; every request goes through one
 * handler. Run as `node dist/cli.js lsp --stdio` (or `--node-ipc`, as the extension does).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type CancellationToken,
  createConnection,
  type DocumentLink,
  ErrorCodes,
  type Hover,
  type InitializeError,
  MarkupKind,
  ProposedFeatures,
  type RequestHandler,
  type RequestType,
  ResponseError,
  type ResponseMessage,
  StreamMessageWriter,
  TextDocumentSyncKind,
  TextDocuments,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { check } from '../../../shared/check';
import { formatBytes, formatCount } from '../../../shared/format';
import { InvalidInput } from '../../../shared/invalidInput';
import type { PageRequests } from '../../../shared/messages';
import {
  AppendRequest,
  ChangedNotification,
  CleanupRequest,
  DeleteRequest,
  ExportRequest,
  ImportParams,
  ImportRequest,
  MAX_MESSAGE_BYTES,
  PAGE_REQUESTS,
  type PageRequestMethod,
  PeekRequest,
  PinRequest,
  ReplayRequest,
  RetainFileRequest,
  RetainRequest,
  RunsRequest,
  ServerOptions,
  SessionRequest,
  StatusRequest,
  StoreStateNotification,
  TranscriptRequest,
  ValueBytesRequest,
  ValueFileRequest,
  ValueRequest,
  ValuesRequest,
  WithholdRequest,
} from '../../../shared/protocol';
import { STORE_DIR } from '../../../shared/storeDir';
import { findMarkers, markerAt } from '../../../shared/stubText';
import { valueDocumentUri } from '../../../shared/valueDocument';
import { VERSION } from '../../../shared/version';
import { RunExists } from '../core/import/runExists';
import { RetentionService } from '../core/service';
import { inWords } from '../core/store/errorWords';
import { FrameReader } from './frames';
import { importOnThread } from './importThread';
import { escapedTexts } from './liftText';
import { Sessions } from './sessions';

/** The stream broke: say why and end, so the client restarts a server that can hear it. */
function fatal(reason: string): void {
  process.stderr.write(
    `Retained Outputs language server: the input cannot be read as LSP messages (${reason}); stopping.\n`,
  );
  process.exit(2);
}

const writer = new StreamMessageWriter(process.stdout);
const connection = process.argv.includes('--stdio')
  ? createConnection(
      ProposedFeatures.all,
      new FrameReader(process.stdin, fatal, ({ id, method, bytes }) => {
        const message = `${method ?? 'a message'} of ${bytes} bytes is over the ${MAX_MESSAGE_BYTES}-byte limit of one message: send a bigger output through the retained CLI or MCP server, which stream it`;
        process.stderr.write(`retained: refused ${message}\n`);
        if (id !== undefined)
          void writer.write({
            jsonrpc: '2.0',
            id,
            error: { code: ErrorCodes.InvalidRequest, message },
          } as ResponseMessage);
      }),
      writer,
    )
  : createConnection(ProposedFeatures.all);
const documents = new TextDocuments(TextDocument);
let serving: RetentionService | undefined;
/** The team store, beside the workspace's, when `storeUrl` names one; or why it could not be opened. */
type TeamState = { service?: RetentionService; url: string; failure?: string; retry?: NodeJS.Timeout };
let team: TeamState | undefined;
/** How often a team store that could not be opened is tried again (a database started, a password granted). */
const TEAM_RETRY_MS = 10_000;
/** Agents' sessions the inspector shows, converted into a store of their own (when the client gives one). */
let sessions: { service: RetentionService; cache: Sessions } | undefined;
/** Why initialize failed, when it did: every request is then refused with it. */
let initFailure: string | undefined;
let workspaceRoot = process.cwd();

function storeRootFor(options: ServerOptions | undefined): string {
  return options?.storeRoot || join(workspaceRoot, STORE_DIR);
}

/**
 * Opens the team store `storeUrl` names (again when it changed). One that cannot be opened (not
 * reached, no schema) leaves the workspace's store served, and its requests say why.
 */
async function openTeam(options: ServerOptions | undefined, retrying = false): Promise<void> {
  const url = options?.storeUrl;
  if (url && url === team?.url && team.service) {
    team.service.updateSettings(options?.settings ?? {});
    return;
  }
  clearTimeout(team?.retry);
  team?.service?.dispose();
  team = undefined;
  if (!url) return;
  const service = new RetentionService(url, { settings: options?.settings, workspace: workspaceRoot });
  try {
    await service.init();
  } catch (err) {
    service.dispose();
    const failure = (err as Error).message;
    // Tried again in a while, in turn with settings changes, until it opens or the URL changes.
    const failed: TeamState = { url, failure };
    failed.retry = setTimeout(() => {
      if (team === failed) configuring = configuring.then(() => openTeam(options, true));
    }, TEAM_RETRY_MS);
    failed.retry.unref();
    team = failed;
    if (!retrying) connection.console.warn(`retained: the team store is not served: ${failure}`);
    else teamState(failure);
    return;
  }
  team = { url, service };
  service.onChanged((runId) => void connection.sendNotification(ChangedNotification.type, { runId, store: 'team' }));
  service.onReached(teamState);
  service.watch();
  if (retrying) {
    connection.console.info('retained: the team store is served again');
    teamState(undefined);
  }
}

/** Tells the client the team store was lost (why) or is served again. */
function teamState(problem: string | undefined): void {
  void connection.sendNotification(
    StoreStateNotification.type,
    problem ? { store: 'team', problem } : { store: 'team' },
  );
}

async function open(options: ServerOptions | undefined): Promise<void> {
  const next = new RetentionService(storeRootFor(options), { settings: options?.settings, workspace: workspaceRoot });
  const { cleanup } = await next.init();
  if (cleanup?.removed.length)
    connection.console.info(
      `retained: cleaned up at start-up: ${cleanup.removed.length} run(s), ${cleanup.freedBytes} bytes (see audit.jsonl)`,
    );
  serving?.dispose();
  serving = next;
  next.onChanged((runId) => void connection.sendNotification(ChangedNotification.type, { runId }));
  next.watch();
  await openTeam(options);
  if (options?.sessionsRoot && options.sessionsRoot !== sessions?.service.address) {
    sessions?.service.dispose();
    const service = new RetentionService(options.sessionsRoot, {
      settings: options.settings,
      workspace: workspaceRoot,
    });
    await service.init();
    sessions = { service, cache: new Sessions(service) };
  }
}

/** The store a request is of: the workspace's, the team's (`store: 'team'`), or the sessions' (`store: 'sessions'`). */
function storeFor(params: unknown): RetentionService {
  const store = (params as { store?: unknown } | undefined)?.store;
  if (store === 'team') {
    if (team?.service) return team.service;
    throw new InvalidInput(
      team?.failure
        ? `the team store is not served: ${team.failure}`
        : 'params.store "team" needs a storeUrl in initializationOptions',
    );
  }
  if (store !== 'sessions') return serving!;
  if (!sessions) throw new InvalidInput('params.store "sessions" needs a sessionsRoot in initializationOptions');
  return sessions.service;
}

/** The value a stub in a document names: in the workspace's store, else in the team's. */
async function locateValue(valueId: string) {
  for (const [service, store] of [
    [serving, undefined],
    [team?.service, 'team'],
  ] as const) {
    const target = service ? await service.values.locate(valueId).catch(() => undefined) : undefined;
    if (service && target) return { service, target: { ...target, ...(store ? { store } : {}) } };
  }
  return undefined;
}

/**
 * The one handler every request goes through. Before a successful initialize it is refused
 * with the reason; bad input is an InvalidParams error naming what was wrong.
 */
function serve<P, R>(
  request: { type: RequestType<P, R, void> },
  run: (service: RetentionService, params: P, signal: AbortSignal) => Promise<R>,
): void {
  // The library hands positional params over as separate arguments, the cancellation token last.
  const handler = async (...args: unknown[]): Promise<R | ResponseError<void>> => {
    const token = args[args.length - 1] as CancellationToken;
    const params = (args.length > 1 ? args[0] : undefined) as P;
    if (args.length > 2)
      return new ResponseError(
        ErrorCodes.InvalidParams,
        `params must be an object (got an array of ${args.length - 1} items)`,
      );
    // A client's $/cancelRequest reaches the work as an AbortSignal (an import stops and undoes itself).
    const cancel = new AbortController();
    const listening = token.onCancellationRequested(() => cancel.abort());
    try {
      // A settings change sent before this request (another store root) is in force when it runs.
      await configuring;
      if (!serving)
        return new ResponseError(
          ErrorCodes.ServerNotInitialized,
          `Retained Outputs is not serving: ${initFailure ?? 'initialize has not succeeded yet'}`,
        );
      return await run(storeFor(params), (params ?? {}) as P, cancel.signal);
    } catch (err) {
      // Its data names the run, so a client can offer to open it, replace it, or import anew.
      if (err instanceof RunExists)
        return new ResponseError(ErrorCodes.InvalidParams, err.message, {
          runId: err.runId,
        }) as unknown as ResponseError<void>;
      if (err instanceof InvalidInput) return new ResponseError(ErrorCodes.InvalidParams, err.message);
      connection.console.error(`retained: ${(err as Error).stack ?? String(err)}`);
      return new ResponseError(ErrorCodes.InternalError, inWords(err));
    } finally {
      listening.dispose();
    }
  };
  // The library's handler type is conditional on R, which a generic R cannot satisfy.
  connection.onRequest(request.type, handler as unknown as RequestHandler<P, R, void>);
}

connection.onInitialize(async (params) => {
  const folder = params.workspaceFolders?.[0]?.uri ?? params.rootUri;
  if (folder?.startsWith('file:')) workspaceRoot = fileURLToPath(folder);
  try {
    await open(check(ServerOptions, params.initializationOptions ?? {}, 'initializationOptions'));
  } catch (err) {
    initFailure =
      err instanceof InvalidInput
        ? `settings refused: ${err.message}`
        : `the store could not be opened: ${(err as Error).message}`;
    connection.console.error(`Retained Outputs: ${initFailure}`);
    return new ResponseError<InitializeError>(ErrorCodes.InvalidParams, `Retained Outputs ${initFailure}`, {
      retry: false,
    });
  }
  return {
    capabilities: {
      textDocumentSync: TextDocumentSyncKind.Incremental,
      documentLinkProvider: { resolveProvider: false },
      hoverProvider: true,
    },
    serverInfo: { name: 'Retained Outputs', version: VERSION },
  };
});

/**
 * The settings change being applied: requests wait for it, as the client sends them after it (a
 * store root changed is a new store: a request must not be answered from the old one meanwhile).
 */
let configuring: Promise<void> = Promise.resolve();

connection.onDidChangeConfiguration((change) => {
  configuring = configuring.then(() => configure(change.settings));
});

async function configure(settings: unknown): Promise<void> {
  const given = (settings as { retained?: unknown } | null)?.retained;
  if (given === undefined || !serving) return;
  try {
    const options = check(ServerOptions, given, 'retained');
    if (storeRootFor(options) !== serving.address) await open(options);
    else {
      serving.updateSettings(options.settings ?? {});
      await openTeam(options);
    }
    connection.console.info(
      `retained: settings now ${JSON.stringify(serving.getSettings())} at ${serving.store.where}`,
    );
  } catch (err) {
    const message = `Retained Outputs kept its previous settings: ${(err as Error).message}`;
    connection.console.warn(message);
    void connection.window.showErrorMessage(message);
  }
}

serve(RetainRequest, (s, p) => {
  // A big text the framing left escaped (liftText.ts) is streamed into its value.
  const escaped = escapedTexts.get(p);
  return escaped ? s.retainer.retainEscaped(p, escaped) : s.retainer.retain(p);
});
serve(RetainFileRequest, (s, p) => s.retainer.retainFile(p));
serve(AppendRequest, async (s, p) => {
  await s.retainer.append(p);
  return { ok: true as const };
});
serve(PeekRequest, (s, p) => s.values.peek(p));
serve(ValuesRequest, (s, p) => s.values.list(p));
serve(ValueRequest, (s, p) => s.values.meta(p));
serve(ValueFileRequest, (s, p) => s.valueFile(p));
serve(ValueBytesRequest, (s, p) => s.values.bytes(p));
serve(ExportRequest, (s, p) => s.inspection.export(p));
serve(DeleteRequest, async (s, p) => {
  await s.delete(p);
  return { ok: true as const };
});
serve(RunsRequest, async (s, p) => ({ runs: await s.listRuns(p) }));
serve(TranscriptRequest, (s, p) => s.transcript(p));
serve(StatusRequest, (s, p) => s.status(p));
serve(PinRequest, async (s, p) => {
  await s.cleaner.pin(p);
  return { ok: true as const };
});
serve(CleanupRequest, (s, p) => s.cleaner.cleanup(p));
serve(WithholdRequest, (s, p) => s.withholder.withhold(p));
serve(ReplayRequest, (s, p) => s.history.replay(p));
/** Each inspector request's params to its result: the inspection methods of the rows' names must be these. */
type PageAnswers = {
  [M in PageRequestMethod]: (
    params: (typeof PAGE_REQUESTS)[M]['request']['type'] extends RequestType<infer P, infer _R, infer _E> ? P : never,
  ) => Promise<PageRequests[M]['result']>;
};
// The inspector page's requests: a row each of its table (shared/protocol.ts), each answered by
// the inspection method of its name.
for (const method of Object.keys(PAGE_REQUESTS) as PageRequestMethod[])
  serve(PAGE_REQUESTS[method].request as { type: RequestType<unknown, unknown, void> }, (s, p) => {
    // Compiles only while every row has an inspection method of its name that answers it.
    const answers: PageAnswers = s.inspection;
    return (answers[method] as (params: unknown) => Promise<unknown>).call(answers, p);
  });
// Off the server's thread: a big session's parsing and its garbage never hold the other requests.
serve(ImportRequest, (s, p, signal) => importOnThread(s, check(ImportParams, p), workspaceRoot, signal));
serve(SessionRequest, (_s, p) => {
  if (!sessions) throw new InvalidInput('retained/session needs a sessionsRoot in initializationOptions');
  return sessions.cache.open(p);
});

connection.onDocumentLinks(async ({ textDocument }) => {
  const document = documents.get(textDocument.uri);
  if (!document || !serving) return [];
  const links: DocumentLink[] = [];
  for (const ref of findMarkers(document.getText())) {
    const found = await locateValue(ref.valueId);
    if (!found) continue;
    const { service, target } = found;
    // Opens read-only, named after what the call read, as the sidebar opens it.
    const { subject } = await service.store.values.readMeta(target.runId, target.valueId);
    links.push({
      range: { start: document.positionAt(ref.start), end: document.positionAt(ref.end) },
      target: valueDocumentUri({ ...target, subject }),
      tooltip: `Open retained value #${target.valueId} (run ${target.runId})`,
    });
  }
  return links;
});

connection.onHover(async ({ textDocument, position }): Promise<Hover | null> => {
  const document = documents.get(textDocument.uri);
  if (!document || !serving) return null;
  const ref = markerAt(document.getText(), document.offsetAt(position));
  if (!ref) return null;
  const found = await locateValue(ref.valueId);
  if (!found)
    return { contents: { kind: MarkupKind.Markdown, value: `No retained value \`#${ref.valueId}\` in this store.` } };
  const { service, target } = found;
  const meta = await service.store.values.readMeta(target.runId, target.valueId);
  const preview = await service.values.peek({ valueId: target.valueId, runId: target.runId, start: 1, end: 12 });
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(preview.text) + 1));
  return {
    range: { start: document.positionAt(ref.start), end: document.positionAt(ref.end) },
    contents: {
      kind: MarkupKind.Markdown,
      value: [
        `**Retained value #${target.valueId}**: ${meta.tool}, ${formatBytes(meta.bytes)}, ${formatCount(meta.lines, 'line')} (run ${target.runId})`,
        '',
        `${fence}text`,
        preview.text,
        fence,
      ].join('\n'),
    },
  };
});

function longestBacktickRun(text: string): number {
  return Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
}

connection.onShutdown(async () => {
  // Indexes computed in the last second are kept: the next start opens those runs at once.
  await Promise.all([serving, sessions?.service].map((service) => service?.inspection.indexes.flush()));
  serving?.dispose();
  clearTimeout(team?.retry);
  team?.service?.dispose();
});
documents.listen(connection);
connection.listen();
