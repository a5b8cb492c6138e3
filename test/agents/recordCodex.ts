/**
 * Records real Codex CLI sessions against the scripted Responses endpoint, as test fixtures:
 * `npm run record:codex [scenario…]` writes `test/fixtures/codex/<scenario>/` with the rollout
 * Codex wrote (`rollout.jsonl`), every request body the model received (`requests.jsonl`), and
 * `recording.json`. The scenarios: commands across a resumed session, reasoning with parallel
 * calls, and the model running a command through Retained Outputs' MCP server and peeking it.
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CODEX_VERSION, codexScript, runCodex } from '../helpers/codex';
import { type ResponsesRule, ScriptedResponses } from '../helpers/scriptedResponses';

const FIXTURES = resolve(__dirname, '../fixtures/codex');
const CLI = resolve(__dirname, '../../dist/cli.js');
const SCRATCH = '/tmp/retained-record-codex';

interface Scenario {
  name: string;
  prompts: string[];
  rules: ResponsesRule[];
  retained?: boolean;
}

const exec = (call_id: string, cmd: string) => ({
  type: 'function_call' as const,
  call_id,
  name: 'exec_command',
  arguments: JSON.stringify({ cmd }),
});
const say = (text: string) => ({ type: 'message' as const, text });

const scenarios: Scenario[] = [
  {
    name: 'exec-resume',
    prompts: ['Scenario exec-resume: list things.', 'Scenario exec-resume: and now count them.'],
    rules: [
      { prompt: 'list things', reply: [exec('call_e1', 'printf "a\\nb\\nc\\n"')] },
      { after: 'call_e1', reply: [say('Three things.')] },
      { prompt: 'count them', reply: [exec('call_e2', 'printf "a\\nb\\nc\\n" | wc -l')] },
      { after: 'call_e2', reply: [say('3.')] },
    ],
  },
  {
    name: 'reasoning-parallel',
    prompts: ['Scenario reasoning-parallel: two looks at once.'],
    rules: [
      {
        prompt: 'two looks',
        reply: [
          { type: 'reasoning', summary: 'Two independent looks.', encrypted: 'ZW5jcnlwdGVkLXJlYXNvbmluZy0x' },
          exec('call_p1', 'echo one'),
          exec('call_p2', 'seq 1 30000'),
        ],
      },
      {
        after: 'call_p2',
        reply: [{ type: 'reasoning', summary: 'Both back.', encrypted: 'ZW5jcnlwdGVkLTI=' }, say('Done.')],
      },
    ],
  },
  {
    name: 'mcp-peek',
    retained: true,
    prompts: ['Scenario mcp-peek: build it and find the error.'],
    rules: [
      {
        prompt: 'build it',
        reply: [
          {
            type: 'function_call',
            call_id: 'call_m1',
            name: 'run_command',
            namespace: 'mcp__retained',
            arguments: JSON.stringify({ command: 'seq 1 10000; echo "error: checksum mismatch"; seq 10002 20000' }),
          },
        ],
      },
      {
        after: 'call_m1',
        reply: (input) => {
          const output = JSON.stringify(input.find((i) => i.call_id === 'call_m1') ?? {});
          const id = /\[retained #([A-Za-z0-9_-]+)\]/.exec(output)?.[1] ?? 'missing';
          return [
            {
              type: 'function_call',
              call_id: 'call_m2',
              name: 'peek_value',
              namespace: 'mcp__retained',
              arguments: JSON.stringify({ id, landmark: 'error' }),
            },
          ];
        },
      },
      { after: 'call_m2', reply: [say('The checksum of line 10001 failed.')] },
    ],
  },
];

async function record(scenario: Scenario, script: string): Promise<void> {
  const base = join(SCRATCH, scenario.name);
  rmSync(base, { recursive: true, force: true });
  const codexHome = join(base, '.codex');
  const cwd = join(base, 'work');
  mkdirSync(cwd, { recursive: true });
  const log = join(base, 'requests.jsonl');
  const model = new ScriptedResponses(scenario.rules, log);
  const modelUrl = await model.start();
  try {
    for (const [i, prompt] of scenario.prompts.entries()) {
      const result = await runCodex(
        {
          codexHome,
          cwd,
          modelUrl,
          prompt,
          ...(i > 0 ? { resume: true } : {}),
          ...(scenario.retained ? { mcpServers: { retained: { command: process.execPath, args: [CLI, 'mcp'] } } } : {}),
        },
        script,
      );
      if (result.code !== 0)
        throw new Error(`${scenario.name}: codex exited ${result.code}\n${result.stderr.slice(-2000)}`);
    }
  } finally {
    await model.stop();
  }
  if (model.unusedRules().length) throw new Error(`${scenario.name}: unused rules ${model.unusedRules().join(', ')}`);
  const rollouts: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/^rollout-.*\.jsonl$/.test(name)) rollouts.push(path);
    }
  };
  walk(join(codexHome, 'sessions'));
  if (rollouts.length !== 1) throw new Error(`${scenario.name}: ${rollouts.length} rollouts`);
  const out = join(FIXTURES, scenario.name);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  cpSync(rollouts[0]!, join(out, 'rollout.jsonl'));
  writeFileSync(join(out, 'requests.jsonl'), readFileSync(log));
  writeFileSync(
    join(out, 'recording.json'),
    `${JSON.stringify({ codex: CODEX_VERSION, cwd, prompts: scenario.prompts, retained: scenario.retained === true }, null, 2)}\n`,
  );
  console.log(`${scenario.name}: ${model.requests.length} requests`);
}

async function main(): Promise<void> {
  const script = codexScript();
  const only = process.argv.slice(2);
  for (const scenario of scenarios)
    if (only.length === 0 || only.includes(scenario.name)) await record(scenario, script);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
