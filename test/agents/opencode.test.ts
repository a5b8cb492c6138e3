/**
 * A real OpenCode (1.18.33, installed by scripts/setup-agents.sh) with Retained Outputs set up as
 * `retained setup opencode` sets it up (its plugin and MCP server), against a scripted
 * OpenAI-compatible endpoint on localhost (the one mock: a model provider cannot run here), with
 * a HOME of its own. The model runs a 1 MB build through the bash tool, gets our stub naming the
 * error's line, and peeks that line through MCP. Without Retained Outputs, OpenCode sends the
 * model the tail of the output, and the error in the middle is not in it.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setupChanges } from '../../server/src/cli/setup';
import { sha256Hex } from '../../server/src/core/text/bytes';
import { agentFile, runAgent } from '../helpers/agents';
import { assertKept, assertLost, BUILD, CLI, stubId } from '../helpers/buildScenario';
import {
  assertDenied,
  assertFailingKept,
  assertStopped,
  BASH_ONLY,
  BASH_ONLY_OUTPUT,
  DENIED,
  FAILING,
  plantVictim,
  settled,
  TICKING,
} from '../helpers/realCommands';
import { type ChatMessage, type ChatRule, ScriptedChat, toolResults } from '../helpers/scriptedChat';
import { removeTempDirs, tempDir } from '../helpers/tmp';

const OPENCODE_VERSION = '1.18.33';
/** How the model knows our MCP server's peek_value. */
const PEEK = 'retained_peek_value';

const opencodeBinary = () => agentFile(`opencode-${OPENCODE_VERSION}/node_modules/opencode-linux-x64/bin/opencode`);

describe('a real OpenCode with Retained Outputs', function () {
  this.timeout(600_000);
  let binary: string;
  before(() => {
    binary = opencodeBinary();
  });
  after(removeTempDirs);

  async function session(
    withRetained: boolean,
    script?: ChatRule[],
    permission: Record<string, unknown> = { bash: 'allow' },
    context = 200_000,
  ) {
    const root = tempDir();
    const home = join(root, 'home');
    const cwd = join(root, 'project');
    const configDir = join(home, '.config', 'opencode');
    mkdirSync(configDir, { recursive: true });
    mkdirSync(cwd, { recursive: true });
    plantVictim(cwd);
    const model = new ScriptedChat(
      script ?? [
        { prompt: 'Build it', reply: { tool: 'bash', args: { command: settled(BUILD), description: 'Build' } } },
        ...(withRetained
          ? [
              {
                after: 'bash',
                reply: (messages: ChatMessage[]) => ({
                  tool: PEEK,
                  args: { id: stubId(toolResults(messages)), landmark: 'error', context: 0 },
                }),
              },
              { after: PEEK, reply: { text: 'The linker failed.' } },
            ]
          : [{ after: 'bash', reply: { text: 'Something printed a lot.' } }]),
      ],
    );
    const url = await model.start();
    try {
      // OpenCode's own configuration: the scripted provider; setup merges into it, and adds its plugin.
      const configPath = join(configDir, 'opencode.json');
      let config = `${JSON.stringify(
        {
          provider: {
            scripted: {
              npm: '@ai-sdk/openai-compatible',
              name: 'Scripted',
              options: { baseURL: url, apiKey: 'sk-test' },
              models: { scripted: { name: 'Scripted', tool_call: true, limit: { context, output: 8192 } } },
            },
          },
          model: 'scripted/scripted',
          small_model: 'scripted/scripted',
          autoupdate: false,
          share: 'disabled',
          permission,
        },
        null,
        2,
      )}\n`;
      if (withRetained) {
        for (const change of setupChanges(
          'opencode',
          { home: configDir },
          { node: process.execPath, cli: CLI },
          (p) => (p === configPath ? config : undefined),
          { sha256: sha256Hex },
        )) {
          mkdirSync(dirname(change.path), { recursive: true });
          if (change.path === configPath) config = change.after!;
          else writeFileSync(change.path, change.after!);
        }
      }
      writeFileSync(configPath, config);
      const result = await runAgent(binary, ['run', '-m', 'scripted/scripted', 'Build it and tell me what failed.'], {
        cwd,
        env: {
          HOME: home,
          XDG_CONFIG_HOME: join(home, '.config'),
          XDG_DATA_HOME: join(home, '.local', 'share'),
          XDG_STATE_HOME: join(home, '.local', 'state'),
          XDG_CACHE_HOME: join(home, '.cache'),
          OPENCODE_DISABLE_MODELS_FETCH: '1',
          // A plugin makes OpenCode install its plugin package first: here it fails at once and OpenCode goes on.
          npm_config_registry: 'http://127.0.0.1:9/',
          npm_config_fetch_retries: '0',
        },
      });
      assert.equal(result.code, 0, `${result.stdout.slice(-1000)}\n${result.stderr.slice(-1500)}`);
      assert.deepEqual(model.unusedRules(), [], 'every scripted turn was reached');
    } finally {
      await model.stop();
    }
    return { cwd, model };
  }

  it('after an automatic compaction, every request carries the index of what was retained before it; the model peeks by an id from it; a second compaction hands it again', async () => {
    const { cwd, model } = await session(
      true,
      [
        { prompt: 'Build it', reply: { tool: 'bash', args: { command: settled(BUILD), description: 'Build' } } },
        // 50,000 tokens in, past the 20,000 of the model's window: OpenCode compacts before its next call.
        {
          after: 'bash',
          promptTokens: 50_000,
          reply: { tool: 'bash', args: { command: 'echo next', description: 'Next' } },
        },
        {
          prompt: '',
          reply: (messages: ChatMessage[]) => ({
            tool: PEEK,
            args: {
              id: /\[retained #(\S+)\] bash /.exec(JSON.stringify(messages))?.[1] ?? 'none',
              query: 'linker failed',
            },
          }),
        },
        // Past the window again: a second compaction.
        {
          after: PEEK,
          promptTokens: 50_000,
          reply: { tool: 'bash', args: { command: 'echo again', description: 'Again' } },
        },
        { prompt: '', reply: { text: 'The linker failed.' } },
      ],
      { bash: 'allow' },
      20_000,
    );
    const index =
      /Retained Outputs kept this output of the session whole before the compaction[\s\S]*\[retained #\S+\] bash .*seq 1 80000.* 160000 lines; error at line 80001/;
    const after = model.requests.filter((r) => r.tools?.length && index.test(JSON.stringify(r.messages)));
    assert.ok(after.length >= 2, `${after.length} requests carried the index`);
    assert.match(model.resultOf(PEEK) ?? '', /80001: error: linker failed at step 80001/);
    const runs = join(cwd, '.retained', 'runs');
    const handed = readdirSync(runs)
      .filter((f) => f.endsWith('.jsonl'))
      .flatMap((f) =>
        readFileSync(join(runs, f), 'utf8')
          .split('\n')
          .filter((line) => line.includes('"injected":true') && line.includes('Retained Outputs kept')),
      );
    assert.equal(handed.length, 2, 'recorded once per compaction, however many requests carry it');
    // The last request, after the second compaction, carries the index that compaction was handed.
    const last = JSON.stringify(model.requests.at(-1)?.messages);
    assert.match(last, index);
    assert.equal(last.split('Retained Outputs kept').length - 1, 1, 'one index: the first compaction is behind it');
  });

  it('with `retained setup opencode` (its plugin), the bash tool gives the model our stub; the model peeks the error line through MCP', async () => {
    const { cwd, model } = await session(true);
    assertKept('OpenCode with the plugin', {
      sent: model.resultOf('bash'),
      peeked: model.resultOf(PEEK),
      cwd,
      tool: 'bash',
    });
  });

  it('without it, OpenCode sends the tail of the output, and the error in the middle is lost', async () => {
    const { model } = await session(false);
    assertLost('OpenCode alone', model.resultOf('bash'));
  });

  describe('on the commands people run: a failing build, bash-only syntax, a command its timeout kills, a deny rule', () => {
    const bash = (command: string, extra: Record<string, unknown> = {}) => ({
      tool: 'bash',
      args: { command, description: 'Run', ...extra },
    });
    const script: ChatRule[] = [
      { prompt: 'Build it', reply: bash(settled(FAILING)) },
      { after: 'bash', reply: bash(BASH_ONLY) },
      { after: 'bash', reply: bash(DENIED) },
      { after: 'bash', reply: bash(TICKING, { timeout: 1500 }) },
      { after: 'bash', reply: { text: 'Done.' } },
    ];
    // The rule the issue found bypassed: everything allowed but rm.
    const permission = { bash: { '*': 'allow', 'rm *': 'deny' } };

    it('with the plugin: the failing build is kept whole, exit 2 in its stub; the rest ends exactly as without it', async () => {
      const plain = await session(false, script, permission);
      const ours = await session(true, script, permission);
      const [failed, bashOnly, , ticked] = ours.model.resultsOf('bash');
      const [, plainBash, , plainTicked] = plain.model.resultsOf('bash');
      assertFailingKept('OpenCode with the plugin', { sent: failed, cwd: ours.cwd });
      for (const text of [bashOnly, plainBash]) assert.equal(text, `${BASH_ONLY_OUTPUT}\n`);
      // The deny rule refuses the rm as without the plugin (OpenCode sends the model its error).
      for (const { cwd } of [plain, ours]) assertDenied('OpenCode', cwd);
      assert.equal(ticked, plainTicked, "the timeout's note, as without the plugin");
      for (const [what, { cwd }] of [
        ['OpenCode alone', plain],
        ['OpenCode with the plugin', ours],
      ] as const)
        await assertStopped(what, cwd);
    });
  });
});
