/**
 * Records real Claude Code sessions against the scripted model, as test fixtures:
 * `npm run record:claude-code` writes `test/fixtures/claude-code/<scenario>/` with the session
 * folder exactly as Claude Code left it (`projects/<slug>/…`, tool-results and subagents
 * included) and `requests.jsonl`, every request body the model received.
 *
 * The scenarios cover what an importer gets wrong most easily: parallel tool calls whose results
 * arrive in the order they finish, a Bash output of over 1 MB (persisted to a file, the model
 * gets a 2 KB preview), a `/compact` between two prompts, and a subagent.
 */
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CLAUDE_CODE_VERSION, claudeBinary, projectDir, runClaude } from '../helpers/claudeCode';
import { ScriptedModel, type ScriptRule } from '../helpers/scriptedModel';

const FIXTURES = resolve(__dirname, '../fixtures/claude-code');
const SCRATCH = '/tmp/retained-record';

interface Scenario {
  name: string;
  /** Prompts run one after another in the same session (the later ones with --resume). */
  prompts: string[];
  rules: ScriptRule[];
  files?: Record<string, string>;
}

const bigOutput = 'seq 1 100000; echo "error: checksum mismatch in block 100001"; seq 100002 200000';

const scenarios: Scenario[] = [
  {
    name: 'parallel-and-big',
    files: { 'notes.txt': 'alpha\nbeta\ngamma\n' },
    prompts: ['Scenario parallel-and-big: look around.'],
    rules: [
      {
        prompt: 'Scenario parallel-and-big',
        reply: [
          {
            type: 'thinking',
            thinking: 'Three independent looks; run them at once.',
            signature: 'c2lnbmF0dXJlLXBhcmFsbGVs',
          },
          { type: 'text', text: 'I will look three ways at once.' },
          {
            type: 'tool_use',
            id: 'toolu_slowA',
            name: 'Bash',
            input: { command: 'sleep 1; echo slow-A', description: 'Slow echo' },
          },
          {
            type: 'tool_use',
            id: 'toolu_fastB',
            name: 'Bash',
            input: { command: 'echo fast-B', description: 'Fast echo' },
          },
          {
            type: 'tool_use',
            id: 'toolu_readC',
            name: 'Read',
            input: { file_path: `${SCRATCH}/parallel-and-big/work/notes.txt` },
          },
        ],
      },
      {
        after: 'toolu_slowA',
        reply: [
          { type: 'text', text: 'Now the long listing.' },
          {
            type: 'tool_use',
            id: 'toolu_bigD',
            name: 'Bash',
            input: { command: bigOutput, description: 'Long output with an error in the middle' },
          },
        ],
      },
      { after: 'toolu_bigD', reply: [{ type: 'text', text: 'The long output has an error in the middle.' }] },
    ],
  },
  {
    name: 'compact',
    prompts: ['Scenario compact: first part.', '/compact', 'Scenario compact: second part.'],
    rules: [
      {
        prompt: 'Scenario compact: first part',
        reply: [
          {
            type: 'tool_use',
            id: 'toolu_beforeE',
            name: 'Bash',
            input: { command: 'echo before-compaction', description: 'Echo' },
          },
        ],
      },
      { after: 'toolu_beforeE', reply: [{ type: 'text', text: 'First part done.' }] },
      {
        prompt: 'Respond with TEXT ONLY',
        reply: [
          { type: 'text', text: '<summary>The user asked for a first part; I ran echo before-compaction.</summary>' },
        ],
      },
      {
        prompt: 'Scenario compact: second part',
        reply: [
          {
            type: 'tool_use',
            id: 'toolu_afterF',
            name: 'Bash',
            input: { command: 'echo after-compaction', description: 'Echo' },
          },
        ],
      },
      { after: 'toolu_afterF', reply: [{ type: 'text', text: 'Second part done.' }] },
    ],
  },
  {
    name: 'subagent',
    files: { 'a.txt': 'a\n', 'b.txt': 'b\n' },
    prompts: ['Scenario subagent: delegate the count.'],
    rules: [
      {
        prompt: 'Scenario subagent',
        reply: [
          { type: 'text', text: 'A subagent will count.' },
          {
            type: 'tool_use',
            id: 'toolu_agentG',
            name: 'Agent',
            input: {
              description: 'Count files',
              prompt: 'SUBAGENT-TASK: count the files here',
              subagent_type: 'general-purpose',
              run_in_background: false,
            },
          },
        ],
      },
      {
        prompt: 'SUBAGENT-TASK',
        reply: [
          {
            type: 'tool_use',
            id: 'toolu_subH',
            name: 'Bash',
            input: { command: 'ls -1 | wc -l', description: 'Count files' },
          },
        ],
      },
      { after: 'toolu_subH', reply: [{ type: 'text', text: 'There are 2 files.' }] },
      { after: 'toolu_agentG', reply: [{ type: 'text', text: 'The subagent counted 2 files.' }] },
    ],
  },
];

async function record(scenario: Scenario, binary: string): Promise<void> {
  const base = join(SCRATCH, scenario.name);
  rmSync(base, { recursive: true, force: true });
  const home = join(base, 'home');
  const cwd = join(base, 'work');
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  for (const [name, text] of Object.entries(scenario.files ?? {})) writeFileSync(join(cwd, name), text);
  const log = join(base, 'requests.jsonl');
  const model = new ScriptedModel(scenario.rules, log);
  const modelUrl = await model.start();
  let sessionId: string | undefined;
  try {
    for (const prompt of scenario.prompts) {
      const result = await runClaude(
        {
          home,
          cwd,
          modelUrl,
          prompt,
          allowedTools: ['Bash', 'Read', 'Agent'],
          ...(sessionId ? { resume: sessionId } : {}),
        },
        binary,
      );
      if (result.code !== 0) throw new Error(`${scenario.name}: claude exited ${result.code}\n${result.stderr}`);
      sessionId ??= result.sessionId;
    }
  } finally {
    await model.stop();
  }
  const unmatched = model.requests.filter((r) => r.answeredBy === 'unmatched').length;
  const unused = model.unusedRules();
  if (unmatched || unused.length)
    throw new Error(`${scenario.name}: ${unmatched} unmatched requests, unused rules ${unused.join(', ')}`);

  const out = join(FIXTURES, scenario.name);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  cpSync(projectDir(home, cwd), join(out, 'project'), { recursive: true });
  // Only the model calls: the agent's other traffic (hello, token counts) says nothing here.
  const calls = readFileSync(log, 'utf8')
    .split('\n')
    .filter((line) => line.includes('"url":"/v1/messages'));
  writeFileSync(join(out, 'requests.jsonl'), `${calls.join('\n')}\n`);
  writeFileSync(
    join(out, 'recording.json'),
    `${JSON.stringify({ claudeCode: CLAUDE_CODE_VERSION, sessionId, cwd, home, prompts: scenario.prompts }, null, 2)}\n`,
  );
  console.log(`${scenario.name}: session ${sessionId}, ${calls.length} model calls`);
}

async function main(): Promise<void> {
  const binary = claudeBinary();
  const only = process.argv.slice(2);
  for (const scenario of scenarios)
    if (only.length === 0 || only.includes(scenario.name)) await record(scenario, binary);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
