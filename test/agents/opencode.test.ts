/**
 * A real OpenCode (1.18.33, installed by scripts/setup-agents.sh) with Retained Outputs set up as
 * `retained setup opencode` sets it up (its plugin and MCP server), against a scripted
 * OpenAI-compatible endpoint on localhost (the one mock: a model provider cannot run here), with
 * a HOME of its own. The model runs a 1 MB build through the bash tool, gets our stub naming the
 * error's line, and peeks that line through MCP. Without Retained Outputs, OpenCode sends the
 * model the tail of the output, and the error in the middle is not in it.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { sha256Hex } from '../../server/src/core/text/bytes';
import { setupChanges } from '../../shared/agentSetup';
import { agentFile, runAgent } from '../helpers/agents';
import { type ChatMessage, chatText, ScriptedChat } from '../helpers/scriptedChat';
import { removeTempDirs, tempDir } from '../helpers/tmp';

const OPENCODE_VERSION = '1.18.33';
const CLI = resolve(__dirname, '../../dist/cli.js');
const COMMAND = 'seq 1 80000; echo "error: linker failed at step 80001"; seq 80002 160000';
/** How the model knows our MCP server's peek_value. */
const PEEK = 'retained_peek_value';

const opencodeBinary = () => agentFile(`opencode-${OPENCODE_VERSION}/node_modules/opencode-linux-x64/bin/opencode`);

/** The id in the stub the bash call got. */
function stubId(messages: ChatMessage[]): string {
  for (const m of messages) {
    const text = chatText(m.content);
    const id = m.role === 'tool' ? /\[retained #(\S+)\]/.exec(text)?.[1] : undefined;
    if (id) return id;
  }
  return 'missing';
}

describe('a real OpenCode with Retained Outputs', function () {
  this.timeout(600_000);
  let binary: string;
  before(() => {
    binary = opencodeBinary();
  });
  after(removeTempDirs);

  async function session(withRetained: boolean) {
    const root = tempDir();
    const home = join(root, 'home');
    const cwd = join(root, 'project');
    const configDir = join(home, '.config', 'opencode');
    mkdirSync(configDir, { recursive: true });
    mkdirSync(cwd, { recursive: true });
    const model = new ScriptedChat([
      { prompt: 'Build it', reply: { tool: 'bash', args: { command: COMMAND, description: 'Build' } } },
      ...(withRetained
        ? [
            {
              after: 'bash',
              reply: (messages: ChatMessage[]) => ({
                tool: PEEK,
                args: { id: stubId(messages), landmark: 'error', context: 0 },
              }),
            },
            { after: PEEK, reply: { text: 'The linker failed.' } },
          ]
        : [{ after: 'bash', reply: { text: 'Something printed a lot.' } }]),
    ]);
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
              models: { scripted: { name: 'Scripted', tool_call: true, limit: { context: 200000, output: 8192 } } },
            },
          },
          model: 'scripted/scripted',
          small_model: 'scripted/scripted',
          autoupdate: false,
          share: 'disabled',
          permission: { bash: 'allow' },
        },
        null,
        2,
      )}\n`;
      if (withRetained) {
        for (const change of setupChanges(
          'opencode',
          { opencodeConfig: configDir },
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

  it('with `retained setup opencode` (its plugin), the bash tool gives the model our stub; the model peeks the error line through MCP', async () => {
    const { cwd, model } = await session(true);
    const sent = model.resultOf('bash');
    assert.ok(sent, 'the bash call was answered');
    assert.match(sent, /\[retained #(\S+)\] bash result: \d+ bytes, 160000 lines/);
    assert.match(sent, /Landmarks: error at line 80001/);
    assert.ok(Buffer.byteLength(sent) < 4096, `a stub, not the output (${Buffer.byteLength(sent)} bytes)`);
    assert.match(model.resultOf(PEEK) ?? '', /80001: error: linker failed at step 80001/);
    const id = /\[retained #(\S+)\]/.exec(sent)![1]!;
    const runs = join(cwd, '.retained', 'runs');
    const values = readdirSync(runs).find((d) => d.endsWith('.values'))!;
    assert.deepEqual(
      readFileSync(join(runs, values, `${id}.txt`)),
      execFileSync('sh', ['-c', COMMAND], { maxBuffer: 64 << 20 }),
    );
    console.log(
      `      OpenCode with the plugin: the model got ${Buffer.byteLength(sent)} bytes for the bash output, the error's line named`,
    );
  });

  it('without it, OpenCode sends the tail of the output, and the error in the middle is lost', async () => {
    const { model } = await session(false);
    const sent = model.resultOf('bash');
    assert.ok(sent);
    // The error's own line (the command, echoed by some agents, holds its words too).
    assert.doesNotMatch(
      sent,
      /^error: linker failed at step 80001$/m,
      `the error in the middle never reaches the model (it got ${sent.slice(0, 300)} … ${sent.slice(-300)})`,
    );
    console.log(
      `      OpenCode alone: the model got ${Buffer.byteLength(sent)} bytes of a ${execFileSync('sh', ['-c', COMMAND], { maxBuffer: 64 << 20 }).length}-byte output, the error not in it`,
    );
  });
});
