/**
 * A real GitHub Copilot CLI (1.0.102, installed by scripts/setup-agents.sh) with Retained Outputs
 * set up as `retained setup copilot-cli` sets it up (its postToolUse hook and MCP server), offline
 * (`COPILOT_OFFLINE`, no GitHub token) against a scripted OpenAI-compatible endpoint on localhost
 * (the one mock: a model provider cannot run here), with a HOME of its own. The model runs a
 * 1 MB build through its bash tool, gets our stub naming the error's line, and peeks that line
 * through MCP. Without Retained Outputs, Copilot CLI sends the model a notice with the first 500
 * characters and the path of a temporary file, and the error's line is not in it.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setupChanges } from '../../server/src/cli/setup';
import { sha256Hex } from '../../server/src/core/text/bytes';
import { AGENTS } from '../../shared/agents';

const COPILOT_CLI_PEEK_TOOL = AGENTS['copilot-cli'].peekTool;

import { agentFile, runAgent } from '../helpers/agents';
import { assertKept, assertLost, BUILD, CLI, stubId } from '../helpers/buildScenario';
import {
  assertDenied,
  assertFailingKept,
  BASH_ONLY,
  BASH_ONLY_OUTPUT,
  DENIED,
  FAILING,
  plantVictim,
} from '../helpers/realCommands';
import { type ChatMessage, type ChatRule, ScriptedChat, toolResults } from '../helpers/scriptedChat';
import { removeTempDirs, tempDir } from '../helpers/tmp';

const COPILOT_VERSION = '1.0.102';
const SHELL = 'bash';

const copilotBinary = () => agentFile(`copilot-${COPILOT_VERSION}/node_modules/@github/copilot-linux-x64/copilot`);

describe('a real GitHub Copilot CLI with Retained Outputs', function () {
  this.timeout(600_000);
  let binary: string;
  before(() => {
    binary = copilotBinary();
  });
  after(removeTempDirs);

  async function session(withRetained: boolean, script?: ChatRule[], extraArgs: string[] = []) {
    const root = tempDir();
    const home = join(root, 'home');
    const cwd = join(root, 'project');
    const copilotHome = join(home, '.copilot');
    mkdirSync(copilotHome, { recursive: true });
    mkdirSync(cwd, { recursive: true });
    plantVictim(cwd);
    if (withRetained)
      for (const change of setupChanges(
        'copilot-cli',
        { home: copilotHome },
        { node: process.execPath, cli: CLI },
        () => undefined,
        {
          sha256: sha256Hex,
        },
      )) {
        mkdirSync(dirname(change.path), { recursive: true });
        writeFileSync(change.path, change.after!);
      }
    const model = new ScriptedChat(
      script ?? [
        {
          prompt: 'Build it',
          reply: { tool: SHELL, args: { command: BUILD, description: 'Build', mode: 'sync', initial_wait: 60 } },
        },
        ...(withRetained
          ? [
              {
                after: SHELL,
                reply: (messages: ChatMessage[]) => ({
                  tool: COPILOT_CLI_PEEK_TOOL,
                  args: { id: stubId(toolResults(messages)), landmark: 'error', context: 0 },
                }),
              },
              { after: COPILOT_CLI_PEEK_TOOL, reply: { text: 'The linker failed.' } },
            ]
          : [{ after: SHELL, reply: { text: 'Something printed a lot.' } }]),
      ],
    );
    const url = await model.start();
    try {
      const result = await runAgent(
        binary,
        ['-p', 'Build it and tell me what failed.', '--allow-all-tools', '--no-auto-update', ...extraArgs],
        {
          cwd,
          env: {
            HOME: home,
            // Where the binary unpacked itself when installed: not again in every HOME.
            XDG_CACHE_HOME: join(dirname(dirname(dirname(dirname(binary)))), 'cache'),
            COPILOT_OFFLINE: 'true',
            COPILOT_PROVIDER_BASE_URL: url,
            COPILOT_PROVIDER_API_KEY: 'sk-test',
            COPILOT_MODEL: 'scripted',
          },
        },
      );
      assert.equal(result.code, 0, `${result.stdout.slice(-1000)}\n${result.stderr.slice(-1500)}`);
      assert.deepEqual(model.unusedRules(), [], 'every scripted turn was reached');
    } finally {
      await model.stop();
    }
    return { cwd, model };
  }

  it('with `retained setup copilot-cli` (its postToolUse hook), the bash tool gives the model our stub; the model peeks the error line through MCP', async () => {
    const { cwd, model } = await session(true);
    assertKept('Copilot CLI with the hook', {
      sent: model.resultOf(SHELL),
      peeked: model.resultOf(COPILOT_CLI_PEEK_TOOL),
      cwd,
      tool: SHELL,
    });
  });

  it('without it, Copilot CLI sends a notice with the first 500 characters, and the error is lost', async () => {
    const { model } = await session(false);
    assertLost('Copilot CLI alone', model.resultOf(SHELL));
  });

  describe('on the commands people run: a failing build, bash-only syntax, a denied rm', () => {
    const bash = (command: string, extra: Record<string, unknown> = {}) => ({
      tool: SHELL,
      args: { command, description: 'Run', mode: 'sync', initial_wait: 60, ...extra },
    });
    const script: ChatRule[] = [
      { prompt: 'Build it', reply: bash(FAILING) },
      { after: SHELL, reply: bash(BASH_ONLY) },
      { after: SHELL, reply: bash(DENIED) },
      { after: SHELL, reply: { text: 'Done.' } },
    ];
    const deny = ['--deny-tool', 'shell(rm)'];

    it('with the hook: the failing build is kept whole and its stub says exit 2; the rest ends exactly as without it', async () => {
      const plain = await session(false, script, deny);
      const ours = await session(true, script, deny);
      const [failed, bashOnly, refused] = ours.model.resultsOf(SHELL);
      const [plainFailed, plainBash, plainRefused] = plain.model.resultsOf(SHELL);
      assertFailingKept('Copilot CLI with the hook', { sent: failed, cwd: ours.cwd });
      // Copilot CLI's own line for how the command ended closes the result, with the hook as without.
      const ended = /\n\n<shellId: \d+ completed with exit code 2>$/;
      assert.match(plainFailed ?? '', ended);
      assert.match(failed ?? '', ended);
      for (const text of [bashOnly, plainBash]) assert.match(text ?? '', new RegExp(`^${BASH_ONLY_OUTPUT}\\n`));
      assert.equal(refused, plainRefused, 'the deny rule answers as without the hook');
      for (const { cwd } of [plain, ours]) assertDenied('Copilot CLI', cwd);
    });
  });
});
