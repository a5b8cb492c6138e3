/**
 * Test hooks, registered only when the end-to-end harness sets RETAINED_TEST_OUTPUT: a
 * command that invokes the peek_value language-model tool through `vscode.lm.invokeTool`,
 * as an in-editor agent would, and writes what came back to a file the test reads.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { PEEK_TOOL } from '../../shared/peekTool';
import type { RetainedApi } from './api';

export function registerTestHooks(api: RetainedApi): vscode.Disposable[] {
  const outDir = process.env.RETAINED_TEST_OUTPUT;
  if (!outDir) return [];
  void vscode.commands.executeCommand('setContext', 'retained.testHooks', true);
  return [
    vscode.commands.registerCommand('retained.test.invokePeekTool', async () => {
      const cases = [
        { name: 'range', input: { id: 'toolu_lock', start: 2, end: 4 } },
        { name: 'query', input: { id: 'toolu_lock', query: '"node_modules/mocha"', context: 2 } },
        { name: 'unknown', input: { id: 'no_such_id', start: 1 } },
      ];
      const results: Record<string, unknown> = {
        registered: vscode.lm.tools.some((tool) => tool.name === PEEK_TOOL),
        api: (await api.peek({ valueId: 'toolu_lock', start: 2, end: 4 })).text,
      };
      for (const { name, input } of cases) {
        try {
          const result = await vscode.lm.invokeTool(PEEK_TOOL, { input, toolInvocationToken: undefined });
          results[name] = result.content
            .map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : ''))
            .join('');
        } catch (err) {
          results[name] = { error: (err as Error).message };
        }
      }
      await writeFile(join(outDir, 'lm-tool.json'), JSON.stringify(results, null, 2));
      void vscode.window.showInformationMessage('peek_value tool invoked');
    }),
  ];
}
