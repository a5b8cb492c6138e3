/**
 * A real Gemini CLI (0.61.0, installed by scripts/setup-agents.sh) with Retained Outputs set up
 * as `retained setup gemini` sets it up (its BeforeTool hook and MCP server), against a scripted
 * Gemini endpoint on localhost (the one mock: a model provider cannot run here), with a HOME of
 * its own. The model runs a 1 MB build through its shell tool, gets our stub naming the error's
 * line, and peeks that line through MCP. Without Retained Outputs, Gemini CLI sends the model
 * the first 8,000 and last 32,000 characters, and the error in the middle is not among them.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packExtension } from '../../scripts/packExtensions';
import { EXTENSION_NAME } from '../../server/src/cli/agentExtensions';
import { setupChanges } from '../../server/src/cli/setup';
import { sha256Hex } from '../../server/src/core/text/bytes';
import { GEMINI_SHELL_TOOL } from '../../shared/agents';
import { agentFile, filesNaming, runAgent } from '../helpers/agents';
import { assertKept, assertLost, BUILD, CLI } from '../helpers/buildScenario';
import {
  assertDenied,
  assertFailingKept,
  assertStopped,
  BASH_ONLY,
  BASH_ONLY_OUTPUT,
  DENIED,
  FAILING,
  plantVictim,
  TICKING,
} from '../helpers/realCommands';
import { type GeminiContent, ScriptedGemini } from '../helpers/scriptedGemini';
import { removeTempDirs, tempDir } from '../helpers/tmp';

const GEMINI_VERSION = '0.61.0';
/** How the model knows our MCP server's peek_value. */
const PEEK = 'mcp_retained_peek_value';

const geminiScript = () => agentFile(`gemini-cli-${GEMINI_VERSION}/node_modules/@google/gemini-cli/bundle/gemini.js`);

/** The id in the stub the shell call got. */
function stubId(contents: GeminiContent[]): string {
  for (const content of contents)
    for (const part of content.parts)
      if (part.functionResponse?.name === GEMINI_SHELL_TOOL) {
        const id = /\[retained #(\S+)\]/.exec(part.functionResponse.response.output ?? '')?.[1];
        if (id) return id;
      }
  return 'missing';
}

describe('a real Gemini CLI with Retained Outputs', function () {
  this.timeout(600_000);
  let script: string;
  before(() => {
    script = geminiScript();
  });
  after(removeTempDirs);

  async function session(
    withRetained: boolean | 'extension',
    {
      rules,
      settingsMore = {},
      policy,
    }: { rules?: ConstructorParameters<typeof ScriptedGemini>[0]; settingsMore?: object; policy?: string } = {},
  ) {
    const root = tempDir();
    const home = join(root, 'home');
    const cwd = join(root, 'project');
    mkdirSync(join(home, '.gemini'), { recursive: true });
    mkdirSync(cwd, { recursive: true });
    // Gemini CLI's own settings for an API key and no usage statistics; setup merges into them.
    const settingsPath = join(home, '.gemini', 'settings.json');
    let settings = `${JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } }, privacy: { usageStatisticsEnabled: false }, ...settingsMore }, null, 2)}\n`;
    if (policy) {
      mkdirSync(join(home, '.gemini', 'policies'), { recursive: true });
      writeFileSync(join(home, '.gemini', 'policies', 'mine.toml'), policy);
    }
    plantVictim(cwd);
    if (withRetained === true) {
      const [change] = setupChanges(
        'gemini',
        { home: join(home, '.gemini') },
        { node: process.execPath, cli: CLI },
        () => settings,
        { sha256: sha256Hex },
      );
      settings = change!.after!;
    }
    writeFileSync(settingsPath, settings);
    const env = {
      HOME: home,
      GOOGLE_GEMINI_BASE_URL: '',
      GEMINI_API_KEY: 'test-key',
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
    };
    if (withRetained === 'extension') {
      // As a user installs it: Gemini CLI's own command, from the folder npm run pack:extensions writes.
      const installed = await runAgent(
        process.execPath,
        [
          script,
          'extensions',
          'install',
          packExtension('gemini', join(root, 'extension')),
          '--consent',
          '--skip-settings',
        ],
        { cwd, env },
      );
      assert.equal(installed.code, 0, `${installed.stdout}\n${installed.stderr}`);
    }
    const model = new ScriptedGemini(
      rules ?? [
        { prompt: 'Build it', reply: [{ functionCall: { name: GEMINI_SHELL_TOOL, args: { command: BUILD } } }] },
        ...(withRetained
          ? [
              {
                after: GEMINI_SHELL_TOOL,
                reply: (contents: GeminiContent[]) => [
                  { functionCall: { name: PEEK, args: { id: stubId(contents), landmark: 'error', context: 0 } } },
                ],
              },
              { after: PEEK, reply: [{ text: 'The linker failed.' }] },
            ]
          : [{ after: GEMINI_SHELL_TOOL, reply: [{ text: 'Something printed a lot.' }] }]),
      ],
    );
    const url = await model.start();
    try {
      const result = await runAgent(
        process.execPath,
        [script, '-m', 'gemini-2.5-flash', '--yolo', '-p', 'Build it and tell me what failed.'],
        {
          cwd,
          env: { ...env, GOOGLE_GEMINI_BASE_URL: url },
        },
      );
      assert.equal(result.code, 0, `${result.stdout.slice(-1000)}\n${result.stderr.slice(-1500)}`);
      assert.deepEqual(model.unusedRules(), [], 'every scripted turn was reached');
    } finally {
      await model.stop();
    }
    return { cwd, model, home, env };
  }

  it('with `retained setup gemini` (its BeforeTool hook), the shell tool gives the model our stub; the model peeks the error line through MCP', async () => {
    const { cwd, model } = await session(true);
    assertKept('Gemini CLI with the hook', {
      sent: model.responseTo(GEMINI_SHELL_TOOL),
      peeked: model.responseTo(PEEK),
      cwd,
      tool: 'run_shell_command',
    });
  });

  it('installed as a Gemini CLI extension (gemini extensions install <folder>): the stub and the peek; uninstalled, nothing of it is left', async () => {
    const { cwd, model, home, env } = await session('extension');
    assertKept('Gemini CLI with the extension', {
      sent: model.responseTo(GEMINI_SHELL_TOOL),
      peeked: model.responseTo(PEEK),
      cwd,
      tool: 'run_shell_command',
    });
    const gemini = join(home, '.gemini');
    const before = readFileSync(join(gemini, 'settings.json'), 'utf8');
    assert.doesNotMatch(before, /retained/, 'the extension wrote nothing into settings.json');
    const removed = await runAgent(process.execPath, [script, 'extensions', 'uninstall', EXTENSION_NAME], { cwd, env });
    assert.equal(removed.code, 0, `${removed.stdout}\n${removed.stderr}`);
    assert.equal(existsSync(join(gemini, 'extensions', EXTENSION_NAME)), false, 'its folder is gone');
    // Left naming it: the session's own chat history, and Gemini CLI's integrity record, which its
    // uninstall keeps for every extension (it is Gemini CLI's, not a file of ours).
    const left = filesNaming(gemini, EXTENSION_NAME).filter((f) => !/^tmp\/[^/]+\/chats\//.test(f));
    assert.deepEqual(left, ['extension_integrity.json'], 'no other file names it');
  });

  describe('on the commands people run: a failing build, bash-only syntax, a command Gemini CLI kills, a policy that denies', () => {
    const shell = (command: string) => [{ functionCall: { name: GEMINI_SHELL_TOOL, args: { command } } }];
    const rules = () => [
      { prompt: 'Build it', reply: shell(FAILING) },
      { after: GEMINI_SHELL_TOOL, reply: shell(BASH_ONLY) },
      { after: GEMINI_SHELL_TOOL, reply: shell(DENIED) },
      // Silent: Gemini CLI's inactivity timeout (2 s here) kills it.
      { after: GEMINI_SHELL_TOOL, reply: shell(TICKING) },
      { after: GEMINI_SHELL_TOOL, reply: [{ text: 'Done.' }] },
    ];
    const settingsMore = { tools: { shell: { inactivityTimeout: 2 } } };
    const policy =
      '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "rm"\ndecision = "deny"\npriority = 100\n';
    const untouched = (text: string | undefined) =>
      (text ?? '').replace(/\n*\[System\] Tool input parameters were modified by a hook before execution\.\s*$/, '');

    for (const [withPolicy, via] of [
      [false, true],
      [true, true],
      [true, 'extension'],
    ] as const)
      it(`${via === 'extension' ? 'as an extension, ' : ''}${withPolicy ? 'with a policy (the hook then rewrites nothing: its AfterTool keeps the big output)' : 'in YOLO mode with no policy (the hook rewrites)'}: the failing build is kept whole, exit 2 in its stub; the rest ends as without it`, async () => {
        const options = { rules: rules(), settingsMore, ...(withPolicy ? { policy } : {}) };
        const plain = await session(false, options);
        const ours = await session(via, { ...options, rules: rules() });
        const [failed, bash, rm] = ours.model.responsesTo(GEMINI_SHELL_TOOL);
        assertFailingKept(
          `Gemini CLI ${withPolicy ? 'with a policy, by its AfterTool hook' : 'in YOLO, by its rewrite'}`,
          {
            sent: failed,
            cwd: ours.cwd,
            trimmed: withPolicy,
          },
        );
        // Gemini CLI sends the reason its AfterTool hook blocked the result with: our stub.
        if (withPolicy) assert.match(failed ?? '', /^(Tool result blocked: )?\[retained #/);
        const [, plainBash, plainRm] = plain.model.responsesTo(GEMINI_SHELL_TOOL);
        assert.match(untouched(bash), new RegExp(`Output: ${BASH_ONLY_OUTPUT}`));
        assert.equal(untouched(bash).replace(/PGID: \d+/, ''), untouched(plainBash).replace(/PGID: \d+/, ''));
        if (withPolicy) {
          assert.match(rm ?? '', /denied|blocked|policy/i, 'the policy refused it');
          assert.equal(rm, plainRm, 'refused as without the hook');
          assertDenied('Gemini CLI with a policy', ours.cwd);
          assertDenied('Gemini CLI alone, with a policy', plain.cwd);
        }
        for (const [what, { cwd }] of [
          ['Gemini CLI alone', plain],
          ['Gemini CLI with the hooks', ours],
        ] as const)
          await assertStopped(what, cwd);
      });
  });

  it('without it, Gemini CLI sends the head and the tail, and the error in the middle is lost', async () => {
    const { model } = await session(false);
    assertLost('Gemini CLI alone', model.responseTo(GEMINI_SHELL_TOOL));
  });
});
