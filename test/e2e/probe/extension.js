// @ts-check
/**
 * A second extension, as any agent in VS Code is: it calls peek_value through
 * `vscode.lm.invokeTool` and Retained Outputs' exported API, and writes what came back to
 * $RETAINED_TEST_OUTPUT/lm-tool.json for the end-to-end test. Installed only by the test harness.
 */
const { writeFile } = require('node:fs/promises');
const { join } = require('node:path');
const vscode = require('vscode');

const PEEK_TOOL = 'peek_value';

/** @param {vscode.ExtensionContext} context */
function activate(context) {
  context.subscriptions.push(
    vscode.commands.registerCommand('retained.test.invokePeekTool', async () => {
      const api = await vscode.extensions.getExtension('retained-outputs.retained-outputs')?.activate();
      const cases = [
        { name: 'range', input: { id: 'toolu_lock', start: 2, end: 4 } },
        { name: 'query', input: { id: 'toolu_lock', query: '"node_modules/mocha"', context: 2 } },
        { name: 'unknown', input: { id: 'no_such_id', start: 1 } },
      ];
      /** @type {Record<string, unknown>} */
      const results = {
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
          results[name] = { error: /** @type {Error} */ (err).message };
        }
      }
      await writeFile(join(process.env.RETAINED_TEST_OUTPUT ?? '.', 'lm-tool.json'), JSON.stringify(results, null, 2));
      void vscode.window.showInformationMessage('peek_value tool invoked');
    }),
  );
}

module.exports = { activate };
