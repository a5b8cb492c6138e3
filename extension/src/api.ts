/**
 * The API `activate()` returns, for agent extensions that record their runs here:
 *
 *   const retained = vscode.extensions.getExtension<RetainedApi>('retained-outputs.retained-outputs')?.exports;
 *   const { content } = await retained.retain({ runId, callId, tool, text });  // send `content` to the model
 */
import type * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import type { TranscriptEvent } from '../../shared/events';
import {
  AppendRequest,
  type PeekParams,
  PeekRequest,
  type PeekResult,
  type ReplayParams,
  ReplayRequest,
  type ReplayResponse,
  type RetainFileParams,
  RetainFileRequest,
  type RetainParams,
  RetainRequest,
  type RetainResult,
} from '../../shared/protocol';

export interface RetainedApi {
  /** Records a tool result; returns `content`, exactly what the model should get (a stub when retained). */
  retain(params: RetainParams): Promise<RetainResult>;
  /** The same for a result held in a file (a command run into one): streamed into its value, never sent as text. */
  retainFile(params: RetainFileParams): Promise<RetainResult>;
  /** Appends any event but a result (run_started, user, system, assistant, model_call, compaction, turn_ended) to a run's transcript. */
  append(runId: string, event: TranscriptEvent): Promise<void>;
  /** A bounded read of a retained value, by line range or search: the text peek_value returns. */
  peek(params: PeekParams): Promise<PeekResult>;
  /** The model-facing history of a run, rebuilt from its transcript. */
  replay(
    runId: string,
    shape: ReplayParams['shape'],
    options?: Pick<ReplayParams, 'policy' | 'stats'>,
  ): Promise<ReplayResponse>;
  /** Fires when a run changes, in this window or in another process writing the same store. */
  readonly onDidChangeRun: vscode.Event<{ runId: string }>;
}

export function createApi(
  client: LanguageClient,
  onDidChangeRun: vscode.Event<{ runId: string }>,
  isTrusted: () => boolean,
): RetainedApi {
  const writable = () => {
    if (!isTrusted())
      throw new Error('Retained Outputs is read only in an untrusted workspace: trust the workspace to record runs.');
  };
  return {
    retain: async (params) => {
      writable();
      return client.sendRequest(RetainRequest.type, params);
    },
    retainFile: async (params) => {
      writable();
      return client.sendRequest(RetainFileRequest.type, params);
    },
    append: async (runId, event) => {
      writable();
      await client.sendRequest(AppendRequest.type, { runId, event });
    },
    peek: (params) => client.sendRequest(PeekRequest.type, params),
    replay: (runId, shape, options) => client.sendRequest(ReplayRequest.type, { runId, shape, ...options }),
    onDidChangeRun,
  };
}
