/**
 * The language server: wiring only. It hosts one RetentionService over the store and maps the
 * `retained/…` protocol, document links and hovers onto it. Run as
 * `node dist/server.js --stdio` (or `--node-ipc`, as the extension does).
 */
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  createConnection,
  DocumentLink,
  ErrorCodes,
  Hover,
  InitializeError,
  MarkupKind,
  ProposedFeatures,
  ResponseError,
  TextDocuments,
  TextDocumentSyncKind,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { StreamMessageWriter, type ResponseMessage } from 'vscode-languageserver/node';
import { FrameReader, MAX_MESSAGE_BYTES } from './frames';
import { importRun, RunExists } from './core/import/importRun';
import { InvalidInput } from '../../shared/check';
import { RetentionService } from './core/retention';
import { StoreWatcher } from './core/storeWatcher';
import { findMarkers, markerAt } from '../../shared/stubText';
import {
  AppendRequest,
  ChangedNotification,
  DeleteRequest,
  ImportRequest,
  PeekRequest,
  ReplayRequest,
  RetainRequest,
  RunsRequest,
  StatusRequest,
  TranscriptRequest,
  ValueRequest,
  ValuesRequest,
  InspectRequest,
  SearchRunRequest,
  type ServerOptions,
} from './protocol';

/** The stream broke: say why and end, so the client restarts a server that can hear it. */
function fatal(reason: string): void {
  process.stderr.write(`Retained Outputs language server: the input cannot be read as LSP messages (${reason}); stopping.\n`);
  process.exit(2);
}

const writer = new StreamMessageWriter(process.stdout);
const connection = process.argv.includes('--stdio')
  ? createConnection(
      ProposedFeatures.all,
      new FrameReader(process.stdin, fatal, ({ id, method, bytes }) => {
        const message = `${method ?? 'a message'} of ${bytes} bytes is over the ${MAX_MESSAGE_BYTES}-byte limit of one message: send a bigger output through the retained CLI or MCP server, which stream it`;
        process.stderr.write(`retained: refused ${message}\n`);
        if (id !== undefined) void writer.write({ jsonrpc: '2.0', id, error: { code: ErrorCodes.InvalidRequest, message } } as ResponseMessage);
      }),
      writer,
    )
  : createConnection(ProposedFeatures.all);
const documents = new TextDocuments(TextDocument);
let serving: RetentionService | undefined;
/** Why initialize failed, when it did: every request is then refused with it. */
let initFailure: string | undefined;
let watcher: StoreWatcher | undefined;
let workspaceRoot = process.cwd();

function storeRootFor(options: ServerOptions | undefined): string {
  return options?.storeRoot || join(workspaceRoot, '.retained');
}

async function open(options: ServerOptions | undefined): Promise<void> {
  const next = new RetentionService(storeRootFor(options), options?.settings ?? {});
  await next.init();
  watcher?.dispose();
  serving = next;
  next.onChanged((runId) => connection.sendNotification(ChangedNotification.type, { runId }));
  watcher = new StoreWatcher(next.store.runsDir, (runId) => {
    next.forget(runId);
    void connection.sendNotification(ChangedNotification.type, { runId });
  });
  watcher.start();
  for (const runId of await next.store.listRunIds()) watcher.watchValues(runId);
}

/** The service; only called once initialize succeeded (handle() refuses requests before that). */
function service(): RetentionService {
  return serving!;
}

/**
 * Runs a handler: every request goes through here. Before a successful initialize it is refused
 * with the reason; bad input becomes an InvalidParams error that names what was wrong.
 */
function handle<P, R>(run: (params: P) => Promise<R>): (params: P) => Promise<R | ResponseError<void>> {
  return async (params) => {
    try {
      if (!serving) return new ResponseError(ErrorCodes.ServerNotInitialized, `Retained Outputs is not serving: ${initFailure ?? 'initialize has not succeeded yet'}`);
      if (params === undefined || params === null) params = {} as P;
      if (typeof params !== 'object' || Array.isArray(params)) {
        return new ResponseError(ErrorCodes.InvalidParams, 'params must be an object');
      }
      return await run(params);
    } catch (err) {
      // Its data names the run, so a client can offer to open it, replace it, or import anew.
      if (err instanceof RunExists) return new ResponseError(ErrorCodes.InvalidParams, err.message, { runId: err.runId }) as unknown as ResponseError<void>;
      if (err instanceof InvalidInput) {
        return new ResponseError(ErrorCodes.InvalidParams, err.message);
      }
      connection.console.error(`retained: ${(err as Error).stack ?? String(err)}`);
      return new ResponseError(ErrorCodes.InternalError, (err as Error).message);
    }
  };
}

connection.onInitialize(async (params) => {
  const folder = params.workspaceFolders?.[0]?.uri ?? params.rootUri;
  if (folder?.startsWith('file:')) workspaceRoot = fileURLToPath(folder);
  try {
    await open(params.initializationOptions as ServerOptions | undefined);
  } catch (err) {
    initFailure = err instanceof InvalidInput ? `settings refused: ${err.message}` : `the store could not be opened: ${(err as Error).message}`;
    connection.console.error(`Retained Outputs: ${initFailure}`);
    return new ResponseError<InitializeError>(ErrorCodes.InvalidParams, `Retained Outputs ${initFailure}`, { retry: false });
  }
  return {
    capabilities: {
      textDocumentSync: TextDocumentSyncKind.Incremental,
      documentLinkProvider: { resolveProvider: false },
      hoverProvider: true,
    },
    serverInfo: { name: 'Retained Outputs', version: '0.1.0' },
  };
});

connection.onDidChangeConfiguration(async (change) => {
  const options = (change.settings as { retained?: ServerOptions } | null)?.retained;
  if (!options || !serving) return;
  try {
    if (storeRootFor(options) !== service().store.root) await open(options);
    else service().updateSettings(options.settings ?? {});
    connection.console.info(`retained: settings now ${JSON.stringify(service().getSettings())} at ${service().store.root}`);
  } catch (err) {
    const message = `Retained Outputs kept its previous settings: ${(err as Error).message}`;
    connection.console.warn(message);
    void connection.window.showErrorMessage(message);
  }
});

connection.onRequest(RetainRequest.type, handle((p) => service().retain(p)));
connection.onRequest(PeekRequest.type, handle((p) => service().peek(p)));
connection.onRequest(
  AppendRequest.type,
  handle(async (p) => {
    await service().append(p.runId, p.event);
    return { ok: true as const };
  }),
);
connection.onRequest(RunsRequest.type, handle(async (p) => ({ runs: await service().runs((p as { runIds?: unknown }).runIds) })));
const uriOf = (runId: string, valueId: string) => pathToFileURL(service().store.valuePath(runId, valueId)).href;
connection.onRequest(
  ValuesRequest.type,
  handle(async (p) => {
    const values = await service().values(p.runId);
    return { values: values.map(({ stub: _stub, ...v }) => ({ ...v, uri: uriOf(v.runId, v.valueId) })) };
  }),
);
connection.onRequest(
  ValueRequest.type,
  handle(async (p) => {
    const { runId, valueId } = await service().resolveValue(p.valueId, p.runId);
    return { ...(await service().store.readMeta(runId, valueId)), uri: uriOf(runId, valueId) };
  }),
);
connection.onRequest(TranscriptRequest.type, handle((p) => service().transcript(p.runId, p.from ?? 0, p.limit ?? Infinity)));
connection.onRequest(ReplayRequest.type, handle((p) => service().replay(p.runId, p.shape, { policy: p.policy, stats: p.stats, view: p.view })));
connection.onRequest(InspectRequest.type, handle((p) => service().inspect(p)));
connection.onRequest(SearchRunRequest.type, handle((p) => service().searchRun(p.runId, p.query, { ignoreCase: p.ignoreCase, regex: p.regex })));
connection.onRequest(ImportRequest.type, handle((p) => importRun(service(), p, workspaceRoot)));
connection.onRequest(
  DeleteRequest.type,
  handle(async (p) => {
    await service().delete(p.runId, p.valueId);
    return { ok: true as const };
  }),
);
connection.onRequest(StatusRequest.type, handle(async () => {
  const runs = await service().runs();
  return {
    root: service().store.root,
    settings: service().getSettings(),
    runs: runs.length,
    values: runs.reduce((n, r) => n + r.valueCount, 0),
    valueBytes: runs.reduce((n, r) => n + r.valueBytes, 0),
    keptOutBytes: runs.reduce((n, r) => n + r.keptOutBytes, 0),
  };
}));

connection.onDocumentLinks(async ({ textDocument }) => {
  const document = documents.get(textDocument.uri);
  if (!document || !serving) return [];
  const links: DocumentLink[] = [];
  for (const ref of findMarkers(document.getText())) {
    const target = await locate(ref.valueId);
    if (!target) continue;
    links.push({
      range: { start: document.positionAt(ref.start), end: document.positionAt(ref.end) },
      target: pathToFileURL(service().store.valuePath(target.runId, target.valueId)).href,
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
  const target = await locate(ref.valueId);
  if (!target) return { contents: { kind: MarkupKind.Markdown, value: `No retained value \`#${ref.valueId}\` in this store.` } };
  const meta = await service().store.readMeta(target.runId, target.valueId);
  const preview = await service().peek({ valueId: target.valueId, runId: target.runId, start: 1, end: 12 });
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(preview.text) + 1));
  return {
    range: { start: document.positionAt(ref.start), end: document.positionAt(ref.end) },
    contents: {
      kind: MarkupKind.Markdown,
      value: [
        `**Retained value #${target.valueId}**: ${meta.tool}, ${meta.bytes} bytes, ${meta.lines} lines (run ${target.runId})`,
        '',
        `${fence}text`,
        preview.text,
        fence,
      ].join('\n'),
    },
  };
});

/** The value a stub in a document names, in the newest run that has it; undefined when none does. */
async function locate(valueId: string): Promise<{ runId: string; valueId: string } | undefined> {
  const [runId] = await service().store.runsWithValue(valueId);
  return runId ? { runId, valueId } : undefined;
}

function longestBacktickRun(text: string): number {
  return Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
}

connection.onShutdown(() => watcher?.dispose());
documents.listen(connection);
connection.listen();
