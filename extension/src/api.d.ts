/**
 * The API `activate()` returns, for agent extensions that record their runs here:
 *
 *   const retained = vscode.extensions.getExtension<RetainedApi>('retained-outputs.retained-outputs')?.exports;
 *   const { content } = await retained.retain({ runId, callId, tool, text });  // send `content` to the model
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { type PeekParams, type PeekResult, type ReplayParams, type ReplayResponse, type RetainParams, type RetainResult, type TranscriptEvent } from '../../server/src/protocol';
export interface RetainedApi {
    /** Records a tool result; returns `content`, exactly what the model should get (a stub when retained). */
    retain(params: RetainParams): Promise<RetainResult>;
    /** Appends a run_started, user, assistant or turn_ended event to a run's transcript. */
    append(runId: string, event: TranscriptEvent): Promise<void>;
    /** A bounded read of a retained value, by line range or search: the text peek_value returns. */
    peek(params: PeekParams): Promise<PeekResult>;
    /** The model-facing history of a run, rebuilt from its transcript. */
    replay(runId: string, shape: ReplayParams['shape']): Promise<ReplayResponse>;
    /** Fires when a run changes, in this window or in another process writing the same store. */
    readonly onDidChangeRun: vscode.Event<{
        runId: string;
    }>;
}
export declare function createApi(client: LanguageClient, onDidChangeRun: vscode.Event<{
    runId: string;
}>, isTrusted: () => boolean): RetainedApi;
