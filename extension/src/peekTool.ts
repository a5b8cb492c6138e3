/**
 * peek_value as a language-model tool for in-editor agents (Copilot agent mode and others).
 * Its result is exactly the server's peek text, gutter and all; a bad call comes back as an
 * error that says what to do.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { PeekRequest, type PeekParams } from '../../server/src/protocol';

/** The tool's input: the peek request, with the value id called `id` as stubs print it. */
export type PeekToolInput = Omit<PeekParams, 'valueId'> & { id: string };

export function toPeekParams(input: PeekToolInput): PeekParams {
  const { id, ...rest } = input;
  return { valueId: id, ...rest };
}

export function describePeek(input: PeekToolInput): string {
  if (input.landmark !== undefined) return `Jumping to the ${input.landmark} landmarks of #${input.id}`;
  if (input.query !== undefined) return `Searching #${input.id} for "${input.query}"`;
  if (input.start !== undefined) return `Reading lines ${input.start}-${input.end ?? input.start + 399} of #${input.id}`;
  return `Reading #${input.id}`;
}

export class PeekTool implements vscode.LanguageModelTool<PeekToolInput> {
  constructor(private readonly client: LanguageClient) {}

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<PeekToolInput>): vscode.PreparedToolInvocation {
    return { invocationMessage: describePeek(options.input) };
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<PeekToolInput>, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> {
    if (typeof options.input?.id !== 'string' || options.input.id === '') {
      throw new Error('peek_value needs "id": the id in the stub, e.g. "toolu_01ABC" from "[retained #toolu_01ABC]".');
    }
    try {
      const answer = await this.client.sendRequest(PeekRequest.type, toPeekParams(options.input), token);
      return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(answer.text)]);
    } catch (err) {
      // The server's message names the field and the fix (an unknown id lists the known ones).
      throw new Error(`peek_value: ${(err as Error).message}`);
    }
  }
}
