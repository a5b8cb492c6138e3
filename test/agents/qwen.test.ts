/**
 * A real Qwen Code (0.24.4, installed by scripts/setup-agents.sh) with Retained Outputs set up as
 * `retained setup qwen` sets it up (its PostToolUse hook and MCP server), against a scripted
 * OpenAI-compatible endpoint on localhost (the one mock: a model provider cannot run here), with
 * a HOME of its own. The model runs a 1 MB build through the shell tool, gets our stub naming the
 * error's line, and peeks that line through MCP. Without Retained Outputs, Qwen Code sends the
 * model the head and the tail of the output, and the error's line is not in it.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { sha256Hex } from '../../server/src/core/text/bytes';
import { setupChanges } from '../../shared/agentSetup';
import { agentFile, runAgent } from '../helpers/agents';
import { type ChatMessage, chatText, ScriptedChat } from '../helpers/scriptedChat';
import { removeTempDirs, tempDir } from '../helpers/tmp';

const QWEN_VERSION = '0.24.4';
const CLI = resolve(__dirname, '../../dist/cli.js');
const COMMAND = 'seq 1 80000; echo "error: linker failed at step 80001"; seq 80002 160000';
/** How the model knows our MCP server's peek_value. */
const PEEK = 'mcp__retained__peek_value';
const SHELL = 'run_shell_command';

const qwenScript = () => agentFile(`qwen-code-${QWEN_VERSION}/node_modules/@qwen-code/qwen-code/cli-entry.js`);

/** The id in the stub the shell call got. */
function stubId(messages: ChatMessage[]): string {
  for (const m of messages) {
    const text = chatText(m.content);
    const id = m.role === 'tool' ? /\[retained #(\S+)\]/.exec(text)?.[1] : undefined;
    if (id) return id;
  }
  return 'missing';
}

describe('a real Qwen Code with Retained Outputs', function () {
  this.timeout(600_000);
  let script: string;
  before(() => {
    script = qwenScript();
  });
  after(removeTempDirs);

  async function session(withRetained: boolean) {
    const root = tempDir();
    const home = join(root, 'home');
    const cwd = join(root, 'project');
    const qwenHome = join(home, '.qwen');
    mkdirSync(qwenHome, { recursive: true });
    mkdirSync(cwd, { recursive: true });
    const model = new ScriptedChat([
      {
        prompt: 'Build it',
        reply: { tool: SHELL, args: { command: COMMAND, description: 'Build', is_background: false } },
      },
      ...(withRetained
        ? [
            {
              after: SHELL,
              reply: (messages: ChatMessage[]) => ({
                tool: PEEK,
                args: { id: stubId(messages), landmark: 'error', context: 0 },
              }),
            },
            { after: PEEK, reply: { text: 'The linker failed.' } },
          ]
        : [{ after: SHELL, reply: { text: 'Something printed a lot.' } }]),
    ]);
    const url = await model.start();
    try {
      // Qwen Code's own settings: the scripted provider, no statistics, no updates; setup merges into them.
      const settingsPath = join(qwenHome, 'settings.json');
      let settings = `${JSON.stringify(
        {
          security: { auth: { selectedType: 'openai' } },
          model: { name: 'scripted' },
          privacy: { usageStatisticsEnabled: false },
          telemetry: { enabled: false },
          general: { enableAutoUpdate: false },
        },
        null,
        2,
      )}\n`;
      if (withRetained) {
        const [change] = setupChanges('qwen', { qwenHome }, { node: process.execPath, cli: CLI }, () => settings, {
          sha256: sha256Hex,
        });
        settings = change!.after!;
      }
      writeFileSync(settingsPath, settings);
      const result = await runAgent(process.execPath, [script, '-p', 'Build it and tell me what failed.', '--yolo'], {
        cwd,
        env: { HOME: home, OPENAI_BASE_URL: url, OPENAI_API_KEY: 'sk-test', OPENAI_MODEL: 'scripted' },
      });
      assert.equal(result.code, 0, `${result.stdout.slice(-1000)}\n${result.stderr.slice(-1500)}`);
      assert.deepEqual(model.unusedRules(), [], 'every scripted turn was reached');
    } finally {
      await model.stop();
    }
    return { cwd, model };
  }

  it('with `retained setup qwen` (its PostToolUse hook), the shell tool gives the model our stub; the model peeks the error line through MCP', async () => {
    const { cwd, model } = await session(true);
    const sent = model.resultOf(SHELL);
    assert.ok(sent, 'the shell call was answered');
    assert.match(sent, /\[retained #call_\d+\] run_shell_command result: \d+ bytes, 160000 lines/);
    assert.match(sent, /Landmarks: error at line 80001/);
    assert.ok(Buffer.byteLength(sent) < 4096, `a stub, not the output (${Buffer.byteLength(sent)} bytes)`);
    assert.match(model.resultOf(PEEK) ?? '', /80001: error: linker failed at step 80001/);
    const id = /\[retained #(\S+)\]/.exec(sent)![1]!;
    const runs = join(cwd, '.retained', 'runs');
    const values = readdirSync(runs).find((d) => d.endsWith('.values'))!;
    // The whole output as Qwen Code hands it to hooks: it trims the output's end (its last newline).
    assert.deepEqual(
      readFileSync(join(runs, values, `${id}.txt`)).toString(),
      execFileSync('sh', ['-c', COMMAND], { maxBuffer: 64 << 20 })
        .toString()
        .trimEnd(),
    );
    console.log(
      `      Qwen Code with the hook: the model got ${Buffer.byteLength(sent)} bytes for the shell's output, the error's line named`,
    );
  });

  it("without it, Qwen Code sends the head and the tail, and the error's line is lost", async () => {
    const { model } = await session(false);
    const sent = model.resultOf(SHELL);
    assert.ok(sent);
    // The error's own line (the command, echoed by some agents, holds its words too).
    assert.doesNotMatch(
      sent,
      /^error: linker failed at step 80001$/m,
      `the error in the middle never reaches the model (it got ${sent.slice(0, 300)} … ${sent.slice(-300)})`,
    );
    console.log(
      `      Qwen Code alone: the model got ${Buffer.byteLength(sent)} bytes of a ${execFileSync('sh', ['-c', COMMAND], { maxBuffer: 64 << 20 }).length}-byte output, the error not in it`,
    );
  });
});
