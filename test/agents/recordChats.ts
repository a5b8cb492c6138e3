/**
 * Records real Gemini CLI and Qwen Code sessions against scripted models, as test fixtures:
 * `npm run record:chats [agent/scenario…]` writes `test/fixtures/<agent>/<scenario>/` with the
 * agent's own folders as it left them under its HOME (`home/.gemini/tmp/…`, or
 * `home/.qwen/projects/…` and `home/.qwen/tmp/…`: chats and the full outputs it saved), every
 * request body the model received (`requests.jsonl`), the project's store when Retained Outputs
 * was set up (`store/`), and `recording.json`. The scenarios: a build over the
 * agent's own cut, resumed with parallel calls and a failing one; and the same build through
 * Retained Outputs' hook, peeked through MCP.
 */
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { type SetupPlaces, setupChanges } from '../../server/src/cli/setup';
import { sha256Hex } from '../../server/src/core/text/bytes';
import { type AgentId, GEMINI_SHELL_TOOL } from '../../shared/agents';
import { agentFile, runAgent } from '../helpers/agents';
import { CLI } from '../helpers/buildScenario';
import { type ChatMessage, type ChatRule, ScriptedChat, toolResults } from '../helpers/scriptedChat';
import { type GeminiContent, type GeminiRule, ScriptedGemini } from '../helpers/scriptedGemini';

const FIXTURES = resolve(__dirname, '../fixtures');
const SCRATCH = '/tmp/retained-record-chats';
const GEMINI = 'gemini-cli-0.61.0/node_modules/@google/gemini-cli/bundle/gemini.js';
const QWEN = 'qwen-code-0.24.4/node_modules/@qwen-code/qwen-code/cli-entry.js';
const COPILOT = 'copilot-1.0.102/node_modules/@github/copilot-linux-x64/copilot';
const CLINE = 'cline-3.0.65/node_modules/@cline/cli-linux-x64/bin/cline';
/** The line Cline's --yolo adds as a request's last message. */
const YOLO = 'This run is not complete until you call';
/** 60 KB, over both agents' cut and our threshold, its error in the middle. */
const BUILD = 'seq 1 6000; echo "error: linker failed at step 6001"; seq 6002 12000';
const SHELL = GEMINI_SHELL_TOOL;
const stubOf = (text: string) => /\[retained #(\S+)\]/.exec(text)?.[1] ?? 'missing';

interface Scenario {
  agent: 'gemini-cli' | 'qwen-code' | 'copilot-cli' | 'cline';
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
  {
    agent: 'copilot-cli',
    name: 'build-resume',
    prompts: ['Scenario build: build it.', 'Scenario build: two more looks.'],
    chat: [
      { prompt: 'build it', reply: { text: 'Run the build first.', calls: [{ tool: 'bash', args: bash(BUILD) }] } },
      { after: 'bash', reply: { text: 'It failed at the link step.' } },
      {
        prompt: 'two more looks',
        reply: {
          calls: [
            { tool: 'bash', args: bash('echo one') },
            { tool: 'bash', args: bash('ls /nonexistent-folder') },
          ],
        },
      },
      { after: 'bash', reply: { text: 'One printed; the folder is not there.' } },
    ],
  },
  {
    agent: 'copilot-cli',
    name: 'hook-peek',
    retained: true,
    prompts: ['Scenario hook: build it and find the error.'],
    chat: [
      { prompt: 'build it', reply: { tool: 'bash', args: bash(BUILD) } },
      {
        after: 'bash',
        reply: (messages: ChatMessage[]) => ({
          tool: 'retained-peek_value',
          args: { id: stubOf(toolResults(messages)), landmark: 'error', context: 0 },
        }),
      },
      { after: 'retained-peek_value', reply: { text: 'The linker failed at step 6001.' } },
    ],
  },
  {
    agent: 'cline',
    // Cline resumes a session only in its interactive mode: one prompt, parallel calls after the build.
    name: 'build-parallel',
    prompts: ['Scenario build: build it, then two more looks.'],
    chat: [
      {
        prompt: YOLO,
        reply: { text: 'Run the build first.', calls: [{ tool: 'run_commands', args: { commands: [BUILD] } }] },
      },
      {
        after: 'run_commands',
        reply: {
          text: 'It failed at the link step. Two more looks.',
          calls: [
            { tool: 'run_commands', args: { commands: ['echo one'] } },
            { tool: 'run_commands', args: { commands: ['ls /nonexistent-folder'] } },
          ],
        },
      },
      {
        after: 'run_commands',
        reply: { tool: 'submit_and_exit', args: { summary: 'One printed; no folder.', verified: true } },
      },
    ],
  },
  {
    agent: 'cline',
    name: 'hook-peek',
    retained: true,
    prompts: ['Scenario hook: build it and find the error.'],
    chat: [
      { prompt: YOLO, reply: { tool: 'run_commands', args: { commands: [BUILD] } } },
      {
        after: 'run_commands',
        reply: (messages: ChatMessage[]) => ({
          tool: 'retained__peek_value',
          args: { id: stubOf(toolResults(messages)), landmark: 'error', context: 0 },
        }),
      },
      {
        after: 'retained__peek_value',
        reply: { tool: 'submit_and_exit', args: { summary: 'The linker failed.', verified: true } },
      },
    ],
  },
];

function shell(command: string) {
  return { command, description: 'Run it', is_background: false };
}

function bash(command: string) {
  return { command, description: 'Run it', mode: 'sync', initial_wait: 60 };
}

type Agent = Scenario['agent'];

/** How each agent is driven and where it keeps its records (relative to HOME). */
interface Driver {
  /** Its configuration written before the first prompt; `retained`: with Retained Outputs set up. */
  prepare(home: string, url: string, retained: boolean, cwd: string): Promise<void>;
  /** The command line for prompt `i`. */
  command(prompt: string, i: number): [string, string[]];
  env(home: string, url: string): Record<string, string>;
  /** Its records, copied into the fixture. */
  records: string[];
}

/** Writes what `retained setup <agent>` writes, into `home`'s folders, merged with `own` files. */
function setUp(agent: AgentId, places: SetupPlaces, own: Record<string, string> = {}): void {
  for (const change of setupChanges(agent, places, { node: process.execPath, cli: CLI }, (p) => own[p], {
    sha256: sha256Hex,
  })) {
    mkdirSync(dirname(change.path), { recursive: true });
    writeFileSync(change.path, change.after!);
  }
}

function writeOwn(files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
}

const json = (value: object) => `${JSON.stringify(value, null, 2)}\n`;
const copilotBinary = () => agentFile(COPILOT);

const DRIVERS: Record<Agent, Driver> = {
  'gemini-cli': {
    async prepare(home, _url, retained) {
      const own = {
        [join(home, '.gemini/settings.json')]: json({
          security: { auth: { selectedType: 'gemini-api-key' } },
          privacy: { usageStatisticsEnabled: false },
        }),
      };
      writeOwn(own);
      if (retained) setUp('gemini', { home: join(home, '.gemini') }, own);
    },
    command: (prompt, i) => [
      process.execPath,
      [agentFile(GEMINI), '-m', 'gemini-2.5-flash', '--yolo', ...(i > 0 ? ['--resume', 'latest'] : []), '-p', prompt],
    ],
    env: (home, url) => ({
      HOME: home,
      GOOGLE_GEMINI_BASE_URL: url,
      GEMINI_API_KEY: 'test-key',
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
    }),
    records: ['.gemini/tmp'],
  },
  'qwen-code': {
    async prepare(home, _url, retained) {
      const own = {
        [join(home, '.qwen/settings.json')]: json({
          security: { auth: { selectedType: 'openai' } },
          model: { name: 'scripted' },
          privacy: { usageStatisticsEnabled: false },
          telemetry: { enabled: false },
          general: { enableAutoUpdate: false },
        }),
      };
      writeOwn(own);
      if (retained) setUp('qwen', { home: join(home, '.qwen') }, own);
    },
    command: (prompt, i) => [
      process.execPath,
      [agentFile(QWEN), ...(i > 0 ? ['--continue'] : []), '-p', prompt, '--yolo'],
    ],
    env: (home, url) => ({ HOME: home, OPENAI_BASE_URL: url, OPENAI_API_KEY: 'sk-test', OPENAI_MODEL: 'scripted' }),
    records: ['.qwen/projects', '.qwen/tmp'],
  },
  'copilot-cli': {
    async prepare(home, _url, retained) {
      if (retained) setUp('copilot-cli', { home: join(home, '.copilot') });
    },
    command: (prompt, i) => [
      copilotBinary(),
      ['-p', prompt, '--allow-all-tools', '--no-auto-update', ...(i > 0 ? ['--continue'] : [])],
    ],
    env: (home, url) => ({
      HOME: home,
      XDG_CACHE_HOME: join(dirname(dirname(dirname(dirname(copilotBinary())))), 'cache'),
      COPILOT_OFFLINE: 'true',
      COPILOT_PROVIDER_BASE_URL: url,
      COPILOT_PROVIDER_API_KEY: 'sk-test',
      COPILOT_MODEL: 'scripted',
    }),
    records: ['.copilot/session-state'],
  },
  cline: {
    async prepare(home, url, retained, cwd) {
      const auth = await runAgent(
        agentFile(CLINE),
        ['auth', '--provider', 'openai-compatible', '--apikey', 'sk-test', '--modelid', 'scripted', '--baseurl', url],
        { cwd, env: DRIVERS.cline.env(home, url) },
      );
      if (auth.code !== 0) throw new Error(`cline auth: ${auth.stderr.slice(-1000)}`);
      if (retained) setUp('cline', { home: join(home, '.cline') });
    },
    command: (prompt) => [agentFile(CLINE), ['--yolo', prompt]],
    env: (home) => ({ HOME: home, CLINE_SESSION_BACKEND_MODE: 'local', CLINE_NO_AUTO_UPDATE: '1' }),
    records: ['.cline/data/sessions'],
  },
};

async function record(scenario: Scenario): Promise<void> {
  const base = join(SCRATCH, scenario.agent, scenario.name);
  rmSync(base, { recursive: true, force: true });
  const home = join(base, 'home');
  const cwd = join(base, 'project');
  mkdirSync(cwd, { recursive: true });
  mkdirSync(home, { recursive: true });
  const driver = DRIVERS[scenario.agent];
  const gemini = scenario.agent === 'gemini-cli';
  const model = gemini ? new ScriptedGemini(scenario.gemini!) : new ScriptedChat(scenario.chat!);
  const url = await model.start();
  try {
    await driver.prepare(home, url, scenario.retained === true, cwd);
    for (const [i, prompt] of scenario.prompts.entries()) {
      const [command, args] = driver.command(prompt, i);
      const result = await runAgent(command, args, { cwd, env: driver.env(home, url) });
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
  for (const sub of driver.records)
    if (existsSync(join(home, sub)))
      cpSync(join(home, sub), join(out, 'home', sub), {
        recursive: true,
        filter: (path) => !/\/(logs|\.project_root|shell_history|[^/]*\.lock)$/.test(path),
      });
  if (scenario.retained)
    cpSync(join(cwd, '.retained'), join(out, 'store'), {
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
