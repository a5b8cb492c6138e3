/**
 * The extension-host suite: runs inside a real VS Code with the `vscode` API, through
 * @vscode/test-cli on desktop (`npm run test:vscode`) or through code-server here
 * (`npm run test:e2e`, which loads it via extensionTestsPath).
 */
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { RetainedApi } from '../../extension/src/api';

const EXTENSION_ID = 'retained-outputs.retained-outputs';

function textOf(result: vscode.LanguageModelToolResult): string {
  return result.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : '')).join('');
}

describe('Retained Outputs in the extension host', function () {
  this.timeout(60_000);
  let api: RetainedApi;
  const runId = `host-${Date.now()}`;
  const big = `${Array.from({ length: 3000 }, (_, i) => `row ${i + 1}: ${'x'.repeat(20)}`).join('\n')}\n`;

  before(async () => {
    const extension = vscode.extensions.getExtension<RetainedApi>(EXTENSION_ID);
    assert.ok(extension, `${EXTENSION_ID} is installed`);
    api = await extension.activate();
  });

  it('registers peek_value as a language-model tool', () => {
    assert.ok(vscode.lm.tools.some((tool) => tool.name === 'peek_value'));
  });

  it('retains through the API and reads back through vscode.lm.invokeTool, gutter and all', async () => {
    const changed = new Promise<string>((resolve) => {
      const sub = api.onDidChangeRun(({ runId: id }) => {
        sub.dispose();
        resolve(id);
      });
    });
    const retained = await api.retain({ runId, callId: 'call_host_1', tool: 'read_file', text: big });
    assert.equal(retained.retained, true);
    assert.match(retained.content, /^\[retained #call_host_1\] read_file result: /);
    assert.equal(await changed, runId);
    const range = await vscode.lm.invokeTool('peek_value', {
      input: { id: 'call_host_1', start: 10, end: 11 },
      toolInvocationToken: undefined,
    });
    assert.equal(textOf(range), `10: row 10: ${'x'.repeat(20)}\n11: row 11: ${'x'.repeat(20)}`);
    const query = await vscode.lm.invokeTool('peek_value', {
      input: { id: 'call_host_1', query: 'row 2999:' },
      toolInvocationToken: undefined,
    });
    assert.equal(textOf(query), `2999: row 2999: ${'x'.repeat(20)}\n[peek: 1 matching line]`);
  });

  it('answers an unknown id with a tool error that lists the known ids', async () => {
    await assert.rejects(
      Promise.resolve(
        vscode.lm.invokeTool('peek_value', { input: { id: 'nope', start: 1 }, toolInvocationToken: undefined }),
      ),
      /no retained value "nope"; known ids: .*call_host_1/,
    );
  });

  it('replays the run with the stub the live turn got', async () => {
    const replay = await api.replay(runId, 'structured');
    assert.ok(replay.shape === 'structured');
    const result = replay.messages.flatMap((m) => m.content).find((b) => b.type === 'tool_result');
    assert.ok(result && result.type === 'tool_result');
    assert.ok(typeof result.content === 'string');
    assert.match(result.content, /^\[retained #call_host_1\]/);
  });
});
