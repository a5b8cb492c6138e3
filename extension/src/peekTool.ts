/**
 * peek_value as a language-model tool for in-editor agents (Copilot agent mode and others).
 * Its result is exactly the server's peek text, gutter and all; a bad call comes back as an
 * error that says what to do. The tool itself is declared in shared/peekTool.ts.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { check } from '../../shared/check';
import { describePeek, PeekToolInput, toPeekParams } from '../../shared/peekTool';
import { PeekRequest } from '../../shared/protocol';

export class PeekTool implements vscode.LanguageModelTool<PeekToolInput> {
  constructor(private readonly client: LanguageClient) {}

  prepareInvocation(
    options: vscode.LanguageModelToolInvocationPrepareOptions<PeekToolInput>,
  ): vscode.PreparedToolInvocation {
    return { invocationMessage: describePeek(options.input) };
  }

  async invoke(
    options: vscode.LanguageModelToolInvocationOptions<PeekToolInput>,
    token: vscode.CancellationToken,
  ): Promise<vscode.LanguageModelToolResult> {
    try {
      const input = check(PeekToolInput, options.input, 'input');
      const answer = await this.client.sendRequest(PeekRequest.type, toPeekParams(input), token);
      return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(answer.text)]);
    } catch (err) {
      // The message names the field and the fix (an unknown id lists the known ones).
      throw new Error(`peek_value: ${(err as Error).message}`);
    }
  }
}
