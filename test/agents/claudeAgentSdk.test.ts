/**
 * A program on the real Claude Agent SDK (0.3.333, installed by scripts/setup-agents.sh, running
 * the Claude Code 2.1.332 the other tests use) with Retained Outputs' helper
 * (`dist/claudeAgentSdk.js`: `retainedHooks()`, an in-process PostToolUse callback, and
 * `retainedMcpServer()`), against a scripted model on localhost (the one mock: a model provider
 * cannot run here). The model runs the 1 MB build through Bash, gets our stub naming the error's
 * line, and peeks that line through MCP.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { agentFile } from '../helpers/agents';
import { assertKept, BUILD, stubId } from '../helpers/buildScenario';
import { claudeBinary } from '../helpers/claudeCode';
import { type AnthropicBody, ScriptedModel } from '../helpers/scriptedModel';
import { removeTempDirs, tempDir } from '../helpers/tmp';

const HELPER = resolve(__dirname, '../../dist/claudeAgentSdk.js');
const PEEK = 'mcp__retained__peek_value';

type Block = { type: string; tool_use_id?: string; content?: unknown; text?: string };

/** The tool_result the model got for `id`, as text. */
function resultOf(requests: { body: unknown }[], id: string): string | undefined {
  for (const { body } of requests)
    for (const message of (body as AnthropicBody).messages ?? []) {
      if (typeof message.content === 'string') continue;
      const block = (message.content as Block[]).find((b) => b.type === 'tool_result' && b.tool_use_id === id);
      if (block)
        return typeof block.content === 'string'
          ? block.content
          : (block.content as Block[]).map((b) => b.text ?? '').join('\n');
    }
  return undefined;
}

describe('a program on the real Claude Agent SDK with Retained Outputs', function () {
  this.timeout(600_000);
  after(removeTempDirs);

  it("retainedHooks() gives the model our stub for a big Bash output, in Bash's own shape; retainedMcpServer() serves the peek", async () => {
    const sdk = agentFile('claude-agent-sdk-0.3.333/node_modules/@anthropic-ai/claude-agent-sdk/sdk.mjs');
    const { query } = (await import(pathToFileURL(sdk).href)) as {
      query: (params: { prompt: string; options: Record<string, unknown> }) => AsyncIterable<{ type: string }>;
    };
    const { retainedHooks, retainedMcpServer } = require(HELPER) as {
      retainedHooks: () => unknown;
      retainedMcpServer: () => unknown;
    };
    const root = tempDir();
    const home = join(root, 'home');
    const cwd = join(root, 'project');
    mkdirSync(home, { recursive: true });
    mkdirSync(cwd, { recursive: true });
    const model = new ScriptedModel([
      {
        prompt: 'Build it',
        reply: [{ type: 'tool_use', id: 'toolu_build', name: 'Bash', input: { command: BUILD, description: 'Build' } }],
      },
      {
        after: 'toolu_build',
        reply: (body) => [
          {
            type: 'tool_use',
            id: 'toolu_peek',
            name: PEEK,
            input: { id: stubId(resultOf([{ body }], 'toolu_build')), landmark: 'error', context: 0 },
          },
        ],
      },
      { after: 'toolu_peek', reply: [{ type: 'text', text: 'The linker failed.' }] },
    ]);
    const url = await model.start();
    try {
      const messages: { type: string }[] = [];
      for await (const message of query({
        prompt: 'Build it and tell me what failed.',
        options: {
          cwd,
          pathToClaudeCodeExecutable: claudeBinary(),
          // The SDK's env replaces the process's: what Claude Code needs, offline.
          env: {
            PATH: process.env.PATH ?? '/usr/bin:/bin',
            HOME: home,
            ANTHROPIC_BASE_URL: url,
            ANTHROPIC_API_KEY: 'sk-test',
            DISABLE_AUTOUPDATER: '1',
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          },
          settingSources: [],
          allowedTools: ['Bash', PEEK],
          mcpServers: { retained: { ...(retainedMcpServer() as object), alwaysLoad: true } },
          strictMcpConfig: true,
          hooks: retainedHooks(),
          maxTurns: 6,
        },
      }))
        messages.push(message);
      assert.ok(
        messages.some((m) => m.type === 'result'),
        JSON.stringify(messages.slice(-2)).slice(0, 1500),
      );
      assert.deepEqual(model.unusedRules(), [], 'the script ran to its end');
    } finally {
      await model.stop();
    }
    assertKept('A Claude Agent SDK program with retainedHooks()', {
      sent: resultOf(model.requests, 'toolu_build'),
      peeked: resultOf(model.requests, 'toolu_peek'),
      cwd,
      tool: 'Bash',
    });
  });
});
