/**
 * A real Cline CLI (3.0.65, installed by scripts/setup-agents.sh) with Retained Outputs set up as
 * `retained setup cline` sets it up (its plugin and MCP server), against a scripted
 * OpenAI-compatible endpoint on localhost (the one mock: a model provider cannot run here), with
 * a HOME of its own. The model runs a 1 MB build through `run_commands`, gets our stub naming the
 * error's line, and peeks that line through MCP. Without Retained Outputs, Cline sends the model
 * the head and the tail of the output, and the error's line is not in it.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setupChanges } from '../../server/src/cli/setup';
import { sha256Hex } from '../../server/src/core/text/bytes';
import { agentFile, runAgent } from '../helpers/agents';
import { assertKept, assertLost, BUILD, CLI, stubId } from '../helpers/buildScenario';
import {
  assertFailingKept,
  assertStopped,
  BASH_ONLY,
  BASH_ONLY_OUTPUT,
  FAILING,
  TICKING,
} from '../helpers/realCommands';
import { type ChatMessage, type ChatRule, ScriptedChat, toolResults } from '../helpers/scriptedChat';
import { removeTempDirs, tempDir } from '../helpers/tmp';

const CLINE_VERSION = '3.0.65';
const SHELL = 'run_commands';
/** How the model knows our MCP server's peek_value: `<server>__<tool>`. */
const PEEK = 'retained__peek_value';
/** The line Cline's --yolo adds as the first request's last message. */
const YOLO = 'This run is not complete until you call';

const clineBinary = () => agentFile(`cline-${CLINE_VERSION}/node_modules/@cline/cli-linux-x64/bin/cline`);

describe('a real Cline CLI with Retained Outputs', function () {
  this.timeout(600_000);
  let binary: string;
  before(() => {
    binary = clineBinary();
  });
  after(removeTempDirs);

  async function session(withRetained: boolean, script?: ChatRule[]) {
    const root = tempDir();
    const home = join(root, 'home');
    const cwd = join(root, 'project');
    mkdirSync(home, { recursive: true });
    mkdirSync(cwd, { recursive: true });
    const model = new ScriptedChat(
      script ?? [
        { prompt: YOLO, reply: { tool: SHELL, args: { commands: [BUILD] } } },
        ...(withRetained
          ? [
              {
                after: SHELL,
                reply: (messages: ChatMessage[]) => ({
                  tool: PEEK,
                  args: { id: stubId(toolResults(messages)), landmark: 'error', context: 0 },
                }),
              },
              {
                after: PEEK,
                reply: { tool: 'submit_and_exit', args: { summary: 'The linker failed.', verified: true } },
              },
            ]
          : [
              {
                after: SHELL,
                reply: { tool: 'submit_and_exit', args: { summary: 'It printed a lot.', verified: true } },
              },
            ]),
      ],
    );
    const url = await model.start();
    const env = { HOME: home, CLINE_SESSION_BACKEND_MODE: 'local', CLINE_NO_AUTO_UPDATE: '1' };
    try {
      // Cline's own way to point it at a provider: its providers.json.
      const auth = await runAgent(
        binary,
        ['auth', '--provider', 'openai-compatible', '--apikey', 'sk-test', '--modelid', 'scripted', '--baseurl', url],
        { cwd, env },
      );
      assert.equal(auth.code, 0, auth.stderr.slice(-1500));
      if (withRetained)
        for (const change of setupChanges(
          'cline',
          { home: join(home, '.cline') },
          { node: process.execPath, cli: CLI },
          () => undefined,
          { sha256: sha256Hex },
        )) {
          mkdirSync(dirname(change.path), { recursive: true });
          writeFileSync(change.path, change.after!);
        }
      const result = await runAgent(binary, ['--yolo', 'Build it and tell me what failed.'], { cwd, env });
      assert.equal(result.code, 0, `${result.stdout.slice(-1000)}\n${result.stderr.slice(-1500)}`);
      assert.deepEqual(model.unusedRules(), [], `every scripted turn was reached\n${result.stdout.slice(-1500)}`);
    } finally {
      await model.stop();
    }
    return { cwd, model };
  }

  it('with `retained setup cline` (its plugin), run_commands gives the model our stub; the model peeks the error line through MCP', async () => {
    const { cwd, model } = await session(true);
    const sent = model.resultOf(SHELL);
    // The result is under the command the model wrote, not the wrapped one.
    assert.ok(sent?.startsWith(`[{"query":${JSON.stringify(BUILD)},`), sent?.slice(0, 300));
    assertKept('Cline with the plugin', { sent, peeked: model.resultOf(PEEK), cwd, tool: SHELL });
  });

  it("without it, Cline sends the head and the tail, and the error's line is lost", async () => {
    const { model } = await session(false);
    assertLost('Cline alone', model.resultOf(SHELL));
  });

  // Cline CLI has no rules per command (only tool approval, on or off): there is no deny rule to try.
  describe('on the commands people run: a failing build, bash-only syntax, a command its timeout kills', () => {
    const run = (command: string) => ({ tool: SHELL, args: { commands: [command] } });
    const script: ChatRule[] = [
      { prompt: YOLO, reply: run(FAILING) },
      { after: SHELL, reply: run(BASH_ONLY) },
      // Cline gives every command 30 s, then kills its process group.
      { after: SHELL, reply: run(TICKING) },
      {
        after: SHELL,
        reply: { tool: 'submit_and_exit', args: { summary: 'All three commands ran.', verified: true } },
      },
    ];
    const resultOf = (text: string | undefined) =>
      (JSON.parse(text ?? '[]') as { result?: string; error?: string }[])[0];

    it('with the plugin: the failing build is kept whole, exit 2 in its stub; the rest ends exactly as without it', async () => {
      const plain = await session(false, script);
      const ours = await session(true, script);
      const [failed, bashOnly, ticked] = ours.model.resultsOf(SHELL);
      const [, plainBash, plainTicked] = plain.model.resultsOf(SHELL);
      assertFailingKept('Cline with the plugin', { sent: resultOf(failed)?.result, cwd: ours.cwd });
      for (const text of [bashOnly, plainBash])
        assert.match(resultOf(text)?.result ?? '', new RegExp(`^${BASH_ONLY_OUTPUT}`));
      assert.deepEqual(resultOf(ticked), resultOf(plainTicked), 'the timeout, as without the plugin');
      for (const [what, { cwd }] of [
        ['Cline alone', plain],
        ['Cline with the plugin', ours],
      ] as const)
        await assertStopped(what, cwd);
    });
  });
});
