/**
 * An import run on a thread of its own, so the server's own thread stays free: a big session's
 * parsing, hashing and garbage are the thread's, and the server answers every other request
 * meanwhile. The thread opens the same store (its writes take the same run locks), imports,
 * answers, then makes the imported runs' indexes and ends. The server then drops what it had
 * cached of those runs and says they changed.
 */
import { parentPort, Worker, workerData } from 'node:worker_threads';
import { InvalidInput } from '../../../shared/invalidInput';
import type { ImportParams, ImportResult } from '../../../shared/protocol';
import type { SettingsInput } from '../../../shared/settings';
import { RunExists } from '../core/import/runExists';
import { RetentionService } from '../core/service';
import { inWords } from '../core/store/errorWords';

interface Job {
  kind: 'import';
  storeRoot: string;
  settings: SettingsInput;
  workspace: string;
  params: ImportParams;
}

type Answer = { ok: ImportResult } | { error: { message: string; invalid: boolean; runId?: string } };

/** Whether this thread is an import thread (the server's bundle starts as one when its entry is the thread's). */
export function isImportThread(): boolean {
  return (workerData as Job | undefined)?.kind === 'import';
}

/** In the server: imports `params` on a thread started from this same bundle; its answer, or its error as the server's. */
export function importOnThread(
  service: RetentionService,
  params: ImportParams,
  workspace: string,
  signal: AbortSignal,
): Promise<ImportResult> {
  const job: Job = {
    kind: 'import',
    storeRoot: service.address,
    settings: service.getSettings(),
    workspace,
    params,
  };
  const worker = new Worker(__filename, { workerData: job });
  const abort = () => worker.postMessage('abort');
  signal.addEventListener('abort', abort);
  return new Promise<ImportResult>((resolve, reject) => {
    let answered = false;
    worker.once('message', (answer: Answer) => {
      answered = true;
      signal.removeEventListener('abort', abort);
      if ('ok' in answer) {
        for (const run of [answer.ok, ...answer.ok.subagents]) service.changedElsewhere(run.runId);
        resolve(answer.ok);
      } else if (answer.error.runId) reject(new RunExists(answer.error.runId));
      else if (answer.error.invalid) reject(new InvalidInput(answer.error.message));
      else reject(new Error(answer.error.message));
    });
    worker.once('error', (err) => {
      if (!answered) reject(err);
    });
    worker.once('exit', (code) => {
      if (!answered) reject(new Error(`the import thread ended (${code}) without an answer`));
    });
  });
}

/** On the thread: the import, its answer, then the indexes of the runs it wrote. */
export async function runImportThread(): Promise<void> {
  const job = workerData as Job;
  const service = new RetentionService(job.storeRoot, {
    settings: job.settings,
    workspace: job.workspace,
    indexImports: false,
  });
  const cancel = new AbortController();
  parentPort!.on('message', (message) => message === 'abort' && cancel.abort());
  let result: ImportResult;
  try {
    result = await service.importer.import(job.params, cancel.signal);
  } catch (err) {
    parentPort!.postMessage({
      error: {
        // In words here: the error's code and path do not cross to the server's thread.
        message: inWords(err),
        invalid: err instanceof InvalidInput,
        ...(err instanceof RunExists ? { runId: err.runId } : {}),
      },
    } satisfies Answer);
    return;
  }
  parentPort!.postMessage({ ok: result } satisfies Answer);
  for (const run of [result, ...result.subagents]) await service.inspection.prepare(run.runId).catch(() => undefined);
  parentPort!.close();
}
