/**
 * A real Qwen Code (0.24.4, installed by scripts/setup-agents.sh) with Retained Outputs set up as
 * `retained setup qwen` sets it up (its PostToolUse hook and MCP server), against a scripted
 * OpenAI-compatible endpoint on localhost (the one mock: a model provider cannot run here), with
 * a HOME of its own. The model runs a 1 MB build through the shell tool, gets our stub naming the
 * error's line, and peeks that line through MCP. Without Retained Outputs, Qwen Code sends the
 * model the head and the tail of the output, and the error's line is not in it.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packExtension } from '../../scripts/packExtensions';
import { EXTENSION_NAME } from '../../server/src/cli/agentExtensions';
import { setupChanges } from '../../server/src/cli/setup';
import { sha256Hex } from '../../server/src/core/text/bytes';
import { agentFile, filesNaming, runAgent } from '../helpers/agents';
import { assertKept, assertLost, BUILD, buildOutput, CLI, stubId } from '../helpers/buildScenario';
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
import { type ChatMessage, chatText, ScriptedChat, toolResults } from '../helpers/scriptedChat';
import { removeTempDirs, tempDir } from '../helpers/tmp';

const QWEN_VERSION = '0.24.4';
/** How the model knows our MCP server's peek_value. */
const PEEK = 'mcp__retained__peek_value';
const SHELL = 'run_shell_command';

const qwenScript = () => agentFile(`qwen-code-${QWEN_VERSION}/node_modules/@qwen-code/qwen-code/cli-entry.js`);

describe('a real Qwen Code with Retained Outputs', function () {
  this.timeout(600_000);
  let script: string;
  before(() => {
    script = qwenScript();
  });
  after(removeTempDirs);

  async function session(
    withRetained: boolean | 'extension',
    {
      rules,
      settingsMore = {},
      prompts = ['Build it and tell me what failed.'],
    }: { rules?: ConstructorParameters<typeof ScriptedChat>[0]; settingsMore?: object; prompts?: string[] } = {},
  ) {
    const root = tempDir();
    const home = join(root, 'home');
    const cwd = join(root, 'project');
    const qwenHome = join(home, '.qwen');
    mkdirSync(qwenHome, { recursive: true });
    mkdirSync(cwd, { recursive: true });
    plantVictim(cwd);
    const model = new ScriptedChat(
      rules ?? [
        {
          prompt: 'Build it',
          reply: { tool: SHELL, args: { command: BUILD, description: 'Build', is_background: false } },
        },
        ...(withRetained
          ? [
              {
                after: SHELL,
                reply: (messages: ChatMessage[]) => ({
                  tool: PEEK,
                  args: { id: stubId(toolResults(messages)), landmark: 'error', context: 0 },
                }),
              },
              { after: PEEK, reply: { text: 'The linker failed.' } },
            ]
          : [{ after: SHELL, reply: { text: 'Something printed a lot.' } }]),
      ],
    );
    const url = await model.start();
    const env = { HOME: home, OPENAI_API_KEY: 'sk-test', OPENAI_MODEL: 'scripted' };
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
          ...settingsMore,
        },
        null,
        2,
      )}\n`;
      if (withRetained === true) {
        const [change] = setupChanges(
          'qwen',
          { home: qwenHome },
          { node: process.execPath, cli: CLI },
          () => settings,
          {
            sha256: sha256Hex,
          },
        );
        settings = change!.after!;
      }
      writeFileSync(settingsPath, settings);
      if (withRetained === 'extension') {
        // As a user installs it: Qwen Code's own command, from the folder npm run pack:extensions writes.
        const installed = await runAgent(
          process.execPath,
          [script, 'extensions', 'install', packExtension('qwen', join(root, 'extension')), '--consent'],
          { cwd, env },
        );
        assert.equal(installed.code, 0, `${installed.stdout}\n${installed.stderr}`);
      }
      // Each prompt after the first goes on with the same session, as `qwen --continue` does.
      for (const [i, prompt] of prompts.entries()) {
        const result = await runAgent(
          process.execPath,
          [script, ...(i > 0 ? ['--continue'] : []), '-p', prompt, '--yolo'],
          { cwd, env: { ...env, OPENAI_BASE_URL: url } },
        );
        assert.equal(result.code, 0, `${prompt}: ${result.stdout.slice(-1000)}\n${result.stderr.slice(-1500)}`);
      }
      assert.deepEqual(model.unusedRules(), [], 'every scripted turn was reached');
    } finally {
      await model.stop();
    }
    return { cwd, model, qwenHome, env };
  }

  it('with `retained setup qwen` (its PostToolUse hook), the shell tool gives the model our stub; the model peeks the error line through MCP', async () => {
    const { cwd, model } = await session(true);
    // The whole output as Qwen Code hands it to hooks: it trims the output's end (its last newline).
    assertKept('Qwen Code with the hook', {
      sent: model.resultOf(SHELL),
      peeked: model.resultOf(PEEK),
      cwd,
      tool: 'run_shell_command',
      whole: Buffer.from(buildOutput().toString().trimEnd()),
    });
  });

  it('installed as a Qwen Code extension (qwen extensions install <folder>): the stub and the peek; uninstalled, nothing of it is left', async () => {
    const { cwd, model, qwenHome, env } = await session('extension');
    assertKept('Qwen Code with the extension', {
      sent: model.resultOf(SHELL),
      peeked: model.resultOf(PEEK),
      cwd,
      tool: 'run_shell_command',
      whole: Buffer.from(buildOutput().toString().trimEnd()),
    });
    assert.doesNotMatch(readFileSync(join(qwenHome, 'settings.json'), 'utf8'), /retained/, 'settings.json untouched');
    const removed = await runAgent(process.execPath, [script, 'extensions', 'uninstall', EXTENSION_NAME], { cwd, env });
    assert.equal(removed.code, 0, `${removed.stdout}\n${removed.stderr}`);
    assert.equal(existsSync(join(qwenHome, 'extensions', EXTENSION_NAME)), false, 'its folder is gone');
    // Left naming it: the sessions, and the copy Qwen Code's extension store keeps of its state
    // before its last change (its own undo record, kept for every extension it uninstalls).
    assert.deepEqual(
      filesNaming(qwenHome, EXTENSION_NAME).filter((f) => !f.startsWith('projects/') && !f.startsWith('tmp/')),
      ['extension-store/state.previous.json'],
      'no other file names it',
    );
  });

  it('after /compress the next request holds the index of what was retained (its SessionStart hook on compact); the model peeks by an id from it; a second /compress hands it again', async () => {
    // Qwen Code's summary request: no tools, its directive last.
    const summary = (n: number) => [
      {
        prompt: 'produce the <state_snapshot> XML',
        bare: true as const,
        // The summary's own request holds the history: Qwen Code reckons what compression saved from it.
        promptTokens: 50_000,
        reply: {
          text: `<analysis>Scripted.</analysis>\n<state_snapshot>Summary ${n}: I ran the build.</state_snapshot>`,
        },
      },
    ];
    const peekFromIndex = (messages: ChatMessage[]) => ({
      tool: PEEK,
      args: {
        // The id the model peeks by is the one the index in its system instruction handed it.
        id: /\[retained #(\S+)\] run_shell_command seq 1 80000/.exec(chatText(messages[0]?.content))?.[1] ?? 'none',
        query: 'linker failed',
      },
    });
    const { cwd, model } = await session(true, {
      rules: [
        {
          prompt: 'Build it',
          reply: { tool: SHELL, args: { command: BUILD, description: 'Build', is_background: false } },
        },
        // A history of 50,000 tokens, as the provider counts it: worth compressing.
        { after: SHELL, reply: { text: 'Built; it printed a lot.' }, promptTokens: 50_000 },
        ...summary(1),
        { prompt: 'What failed', reply: peekFromIndex },
        { after: PEEK, reply: { text: 'The linker failed.' }, promptTokens: 50_000 },
        ...summary(2),
        { prompt: 'Anything else', reply: { text: 'No.' } },
      ],
      prompts: ['Build it.', '/compress', 'What failed?', '/compress', 'Anything else?'],
    });
    const asked = (prompt: string) =>
      model.requests.filter((r) => r.tools?.length && chatText(r.messages.at(-1)?.content).includes(prompt));
    const index =
      /Retained Outputs kept this output of the session whole before the compaction[\s\S]*?\[retained #\S+\] run_shell_command seq 1 80000.* result: \d+ bytes, 160000 lines; error at line 80001/;
    assert.doesNotMatch(chatText(asked('Build it')[0]?.messages[0]?.content), /Retained Outputs kept/, 'none before');
    for (const prompt of ['What failed', 'Anything else'])
      assert.match(chatText(asked(prompt)[0]?.messages[0]?.content), index, prompt);
    assert.match(model.resultOf(PEEK) ?? '', /80001: error: linker failed at step 80001/);
    // The run records what the model was handed, once per compaction.
    const handed = readdirSync(join(cwd, '.retained', 'runs'))
      .filter((f) => f.endsWith('.jsonl'))
      .flatMap((f) => readFileSync(join(cwd, '.retained', 'runs', f), 'utf8').split('\n'))
      .filter((line) => line.includes('"injected":true') && line.includes('Retained Outputs kept'));
    assert.equal(handed.length, 2);
  });

  describe('on the commands people run: a failing build, bash-only syntax, a command Qwen Code kills, a rule that denies', () => {
    const shell = (command: string, more: Record<string, unknown> = {}) => ({
      tool: SHELL,
      args: { command, description: 'Run it', is_background: false, ...more },
    });
    const rules = () => [
      { prompt: 'Build it', reply: shell(settled(FAILING)) },
      { after: SHELL, reply: shell(settled(BASH_ONLY)) },
      { after: SHELL, reply: shell(DENIED) },
      { after: SHELL, reply: shell(TICKING, { timeout: 1500 }) },
      { after: SHELL, reply: { text: 'Done.' } },
    ];
    const settingsMore = { permissions: { deny: ['Bash(rm *)'] } };

    for (const via of [true, 'extension'] as const)
      it(`${via === 'extension' ? 'as an extension' : 'with the hooks'}: the failing build is kept whole and named beside Qwen Code’s own cut, exit 2; the rest ends as without it`, async () => {
        const plain = await session(false, { rules: rules(), settingsMore });
        const ours = await session(via, { rules: rules(), settingsMore });
        const [failed, bash, rm] = ours.model.resultsOf(SHELL);
        // A failure hook can only add to Qwen Code's cut: the stub comes after it.
        assert.match(failed ?? '', /^Tool output was too large and has been truncated\.[\s\S]*\n\n\[retained #/);
        assertFailingKept('Qwen Code with the hooks', {
          sent: failed?.slice(failed.indexOf('[retained #')),
          cwd: ours.cwd,
          trimmed: true,
        });
        const [, plainBash, plainRm] = plain.model.resultsOf(SHELL);
        assert.match(bash ?? '', new RegExp(BASH_ONLY_OUTPUT));
        assert.equal(bash, plainBash);
        assert.equal(rm, plainRm, 'the rule refused it as without the hooks');
        for (const { cwd } of [plain, ours]) assertDenied('Qwen Code', cwd);
        for (const [what, { cwd }] of [
          ['Qwen Code alone', plain],
          ['Qwen Code with the hooks', ours],
        ] as const)
          await assertStopped(what, cwd);
      });
  });

  it("without it, Qwen Code sends the head and the tail, and the error's line is lost", async () => {
    const { model } = await session(false);
    assertLost('Qwen Code alone', model.resultOf(SHELL));
  });
});
