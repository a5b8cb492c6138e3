/**
 * Records real Gemini CLI and Qwen Code sessions against scripted models, as test fixtures:
 * `npm run record:chats [agent/scenario…]` writes `test/fixtures/<agent>/<scenario>/` with the
 * agent's own folders as it left them under its HOME (`home/.gemini/tmp/…`, or
 * `home/.qwen/projects/…` and `home/.qwen/tmp/…`: chats and the full outputs it saved), every
 * request body the model received (`requests.jsonl`), the project's store when Retained Outputs
 * was set up (`project/.retained`), and `recording.json`. The scenarios: a build over the
 * agent's own cut, resumed with parallel calls and a failing one; and the same build through
 * Retained Outputs' hook, peeked through MCP.
 */
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { sha256Hex } from '../../server/src/core/text/bytes';
import { GEMINI_SHELL_TOOL, type SetupAgent, setupChanges } from '../../shared/agentSetup';
import { agentFile, runAgent } from '../helpers/agents';
import { CLI } from '../helpers/buildScenario';
import { type ChatMessage, type ChatRule, ScriptedChat, toolResults } from '../helpers/scriptedChat';
import { type GeminiContent, type GeminiRule, ScriptedGemini } from '../helpers/scriptedGemini';

const FIXTURES = resolve(__dirname, '../fixtures');
const SCRATCH = '/tmp/retained-record-chats';
const GEMINI = 'gemini-cli-0.61.0/node_modules/@google/gemini-cli/bundle/gemini.js';
const QWEN = 'qwen-code-0.24.4/node_modules/@qwen-code/qwen-code/cli-entry.js';
/** 60 KB, over both agents' cut and our threshold, its error in the middle. */
const BUILD = 'seq 1 6000; echo "error: linker failed at step 6001"; seq 6002 12000';
const SHELL = GEMINI_SHELL_TOOL;
const stubOf = (text: string) => /\[retained #(\S+)\]/.exec(text)?.[1] ?? 'missing';

interface Scenario {
  agent: 'gemini-cli' | 'qwen-code';
  name: string;
  prompts: string[];
  retained?: boolean;
  gemini?: GeminiRule[];
  chat?: ChatRule[];
}

const geminiText = (contents: GeminiContent[]) => JSON.stringify(contents.at(-1) ?? {});

const scenarios: Scenario[] = [
  {
    agent: 'gemini-cli',
    name: 'build-resume',
    prompts: ['Scenario build: build it.', 'Scenario build: two more looks.'],
    gemini: [
      {
        prompt: 'build it',
        reply: [
          { text: 'Run the build first.', thought: true },
          { functionCall: { name: SHELL, args: { command: BUILD } } },
        ],
      },
      { after: SHELL, reply: [{ text: 'It failed at the link step.' }] },
      {
        prompt: 'two more looks',
        reply: [
          { text: 'Two looks at once.' },
          { functionCall: { name: SHELL, args: { command: 'echo one' } } },
          { functionCall: { name: SHELL, args: { command: 'ls /nonexistent-folder' } } },
        ],
      },
      { after: SHELL, reply: [{ text: 'One printed; the folder is not there.' }] },
    ],
  },
  {
    agent: 'gemini-cli',
    name: 'hook-peek',
    retained: true,
    prompts: ['Scenario hook: build it and find the error.'],
    gemini: [
      { prompt: 'build it', reply: [{ functionCall: { name: SHELL, args: { command: BUILD } } }] },
      {
        after: SHELL,
        reply: (contents) => [
          {
            functionCall: {
              name: 'mcp_retained_peek_value',
              args: { id: stubOf(geminiText(contents)), landmark: 'error', context: 0 },
            },
          },
        ],
      },
      { after: 'mcp_retained_peek_value', reply: [{ text: 'The linker failed at step 6001.' }] },
    ],
  },
  {
    agent: 'qwen-code',
    name: 'build-resume',
    prompts: ['Scenario build: build it.', 'Scenario build: two more looks.'],
    chat: [
      { prompt: 'build it', reply: { text: 'Run the build first.', calls: [{ tool: SHELL, args: shell(BUILD) }] } },
      { after: SHELL, reply: { text: 'It failed at the link step.' } },
      {
        prompt: 'two more looks',
        reply: {
          calls: [
            { tool: SHELL, args: shell('echo one') },
            { tool: SHELL, args: shell('ls /nonexistent-folder') },
          ],
        },
      },
      { after: SHELL, reply: { text: 'One printed; the folder is not there.' } },
    ],
  },
  {
    agent: 'qwen-code',
    name: 'hook-peek',
    retained: true,
    prompts: ['Scenario hook: build it and find the error.'],
    chat: [
      { prompt: 'build it', reply: { tool: SHELL, args: shell(BUILD) } },
      {
        after: SHELL,
        reply: (messages: ChatMessage[]) => ({
          tool: 'mcp__retained__peek_value',
          args: { id: stubOf(toolResults(messages)), landmark: 'error', context: 0 },
        }),
      },
      { after: 'mcp__retained__peek_value', reply: { text: 'The linker failed at step 6001.' } },
    ],
  },
];

function shell(command: string) {
  return { command, description: 'Run it', is_background: false };
}

/** The agent's settings as its test writes them, and Retained Outputs' setup merged in when asked. */
function settings(agent: SetupAgent, home: string, retained: boolean, own: object): string {
  const text = `${JSON.stringify(own, null, 2)}\n`;
  if (!retained) return text;
  const places = agent === 'gemini' ? { geminiHome: join(home, '.gemini') } : { qwenHome: join(home, '.qwen') };
  const [change] = setupChanges(agent, places, { node: process.execPath, cli: CLI }, () => text, { sha256: sha256Hex });
  return change!.after!;
}

async function record(scenario: Scenario): Promise<void> {
  const base = join(SCRATCH, scenario.agent, scenario.name);
  rmSync(base, { recursive: true, force: true });
  const home = join(base, 'home');
  const cwd = join(base, 'project');
  mkdirSync(cwd, { recursive: true });
  const gemini = scenario.agent === 'gemini-cli';
  const dir = join(home, gemini ? '.gemini' : '.qwen');
  mkdirSync(dir, { recursive: true });
  const model = gemini ? new ScriptedGemini(scenario.gemini!) : new ScriptedChat(scenario.chat!);
  const url = await model.start();
  writeFileSync(
    join(dir, 'settings.json'),
    gemini
      ? settings('gemini', home, scenario.retained === true, {
          security: { auth: { selectedType: 'gemini-api-key' } },
          privacy: { usageStatisticsEnabled: false },
        })
      : settings('qwen', home, scenario.retained === true, {
          security: { auth: { selectedType: 'openai' } },
          model: { name: 'scripted' },
          privacy: { usageStatisticsEnabled: false },
          telemetry: { enabled: false },
          general: { enableAutoUpdate: false },
        }),
  );
  try {
    for (const [i, prompt] of scenario.prompts.entries()) {
      const resume = i > 0 ? (gemini ? ['--resume', 'latest'] : ['--continue']) : [];
      const args = gemini
        ? [agentFile(GEMINI), '-m', 'gemini-2.5-flash', '--yolo', ...resume, '-p', prompt]
        : [agentFile(QWEN), ...resume, '-p', prompt, '--yolo'];
      const env: Record<string, string> = gemini
        ? { HOME: home, GOOGLE_GEMINI_BASE_URL: url, GEMINI_API_KEY: 'test-key', GEMINI_CLI_TRUST_WORKSPACE: 'true' }
        : { HOME: home, OPENAI_BASE_URL: url, OPENAI_API_KEY: 'sk-test', OPENAI_MODEL: 'scripted' };
      const result = await runAgent(process.execPath, args, { cwd, env });
      if (result.code !== 0)
        throw new Error(`${scenario.agent}/${scenario.name}: exited ${result.code}\n${result.stderr.slice(-2000)}`);
    }
  } finally {
    await model.stop();
  }
  if (model.unusedRules().length)
    throw new Error(`${scenario.agent}/${scenario.name}: unused rules ${model.unusedRules().join(', ')}`);
  const out = join(FIXTURES, scenario.agent, scenario.name);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  // The agent's own records only: not its settings (they name this machine's paths) or caches.
  for (const sub of gemini ? ['tmp'] : ['projects', 'tmp'])
    if (existsSync(join(dir, sub)))
      cpSync(join(dir, sub), join(out, 'home', gemini ? '.gemini' : '.qwen', sub), {
        recursive: true,
        filter: (path) => !/\/(logs|\.project_root|shell_history)$/.test(path),
      });
  if (scenario.retained)
    cpSync(join(cwd, '.retained'), join(out, 'project', '.retained'), {
      recursive: true,
      // The store's own .gitignore would keep the fixture's copy out of git.
      filter: (path) => !path.endsWith('/.gitignore') && !path.endsWith('.lock'),
    });
  const logged = gemini ? (model as ScriptedGemini).requests : (model as ScriptedChat).logged;
  writeFileSync(join(out, 'requests.jsonl'), `${logged.map((r) => JSON.stringify(r)).join('\n')}\n`);
  writeFileSync(
    join(out, 'recording.json'),
    `${JSON.stringify({ agent: scenario.agent, scenario: scenario.name, prompts: scenario.prompts, recordedFrom: base }, null, 2)}\n`,
  );
  console.log(`recorded ${scenario.agent}/${scenario.name}: ${logged.length} requests`);
}

async function main() {
  const wanted = process.argv.slice(2);
  for (const scenario of scenarios)
    if (wanted.length === 0 || wanted.includes(`${scenario.agent}/${scenario.name}`)) await record(scenario);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
