/**
 * Records real Claude Code sessions against the scripted model, as test fixtures:
 * `npm run record:claude-code [scenario…]` writes `test/fixtures/claude-code/<scenario>/` with the
 * session folder exactly as Claude Code left it (`project/`: the session file, tool-results and
 * subagents), `requests.jsonl` (every request body the model received), `recording.json`, and
 * for a session run with Retained Outputs' hook and MCP server, the store they wrote (`store/`).
 *
 * The scenarios differ in kind, on purpose: what an importer gets wrong most easily is at the
 * joints (a resumed or continued session, a tool loaded through ToolSearch, a hooked session,
 * parallel calls of different tools, failures, an interrupt, a background command, compactions
 * manual and automatic, a subagent, thinking kept across a resume, an image, plan mode).
 */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { CLAUDE_CODE_VERSION, claudeBinary, projectDir, runClaude } from '../helpers/claudeCode';
import {
  type AnthropicBody,
  type ScriptBlock,
  ScriptedModel,
  type ScriptRule,
  type Usage,
} from '../helpers/scriptedModel';

const FIXTURES = resolve(__dirname, '../fixtures/claude-code');
const CLI = resolve(__dirname, '../../dist/cli.js');
const APPROVER = resolve(__dirname, 'approver.mjs');
const SCRATCH = '/tmp/retained-record';

interface Step {
  prompt?: string;
  /** Several prompts in one process (stream-json on stdin). */
  turns?: string[];
  /** How the step joins the session: a new one (the first step), `--resume <id>`, or `--continue`. */
  join?: 'resume' | 'continue';
  interrupt?: { onCall: string; afterMs: number };
  args?: string[];
  env?: Record<string, string>;
}

interface Scenario {
  name: string;
  steps: Step[];
  rules: ScriptRule[];
  allowedTools: string[];
  files?: Record<string, string | Buffer>;
  /** Runs with Retained Outputs: its PostToolUse hook and its MCP server (`retained`). */
  retained?: boolean;
  /** More MCP servers, by name. */
  mcp?: Record<string, { command: string; args: string[] }>;
  /** The model the scripted responses name (Claude Code keeps thinking across a resume only when it is the one asked for). */
  model?: string;
}

const work = (name: string, file = '') => `${SCRATCH}/${name}/work${file ? `/${file}` : ''}`;
const bash = (id: string, command: string, extra: Record<string, unknown> = {}): ScriptBlock => ({
  type: 'tool_use',
  id,
  name: 'Bash',
  input: { command, description: id, ...extra },
});
const tool = (id: string, name: string, input: Record<string, unknown>): ScriptBlock => ({
  type: 'tool_use',
  id,
  name,
  input,
});
const text = (t: string): ScriptBlock => ({ type: 'text', text: t });
const usage = (input: number): Usage => ({
  input_tokens: input,
  output_tokens: 5,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
});
/** About 110 KB with an error on line 10,001: over Claude Code's persist threshold and ours. */
const BIG = 'seq 1 10000; echo "error: checksum mismatch in block 10001"; seq 10002 20000';
/** The summary a compaction asks for. */
const SUMMARY: ScriptRule = {
  prompt: 'create a detailed summary',
  reply: [text('<analysis>Scripted.</analysis>\n<summary>The user asked for a first part; I ran a command.</summary>')],
};

/** A small PNG (4×4, one colour): an image a Read returns as an image block. */
function png(): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(4);
    head.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([head, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(4, 0);
  header.writeUInt32BE(4, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const rows = Buffer.concat(Array.from({ length: 4 }, () => Buffer.from([0, ...Array(4).fill([200, 30, 30]).flat()])));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** An Elixir module of `functions` clauses (~34 bytes a line), with `{:error, _} ->` in its code: not an error a command printed. */
const elixir = (functions: number) =>
  [
    'defmodule Worker do',
    ...Array.from({ length: functions }, (_, i) =>
      [
        `  def step_${i}(input) do`,
        `    case fetch(input, ${i}) do`,
        '      {:ok, value} -> {:ok, value}',
        '      {:error, _} -> :retry',
        '    end',
        '  end',
        '',
      ].join('\n'),
    ),
    'end',
    '',
  ].join('\n');

/** A JSON catalogue of `items` entries (~90 bytes each). */
const catalog = (items: number) =>
  `${JSON.stringify({ items: Array.from({ length: items }, (_, i) => ({ id: i + 1, name: `item ${i + 1}`, tags: ['a', 'b'], price: i * 1.5 })) }, null, 2)}\n`;

/** A text file of `lines` numbered rows, about 36 bytes each. */
const rows = (lines: number) =>
  Array.from({ length: lines }, (_, i) => `row ${String(i + 1).padStart(6, '0')}: the quick brown fox\n`).join('');

const scenarios: Scenario[] = [
  {
    name: 'parallel-and-big',
    files: { 'notes.txt': 'alpha\nbeta\ngamma\n' },
    allowedTools: ['Bash', 'Read'],
    steps: [{ prompt: 'Scenario parallel-and-big: look around.' }],
    rules: [
      {
        prompt: 'Scenario parallel-and-big',
        reply: [
          {
            type: 'thinking',
            thinking: 'Three independent looks; run them at once.',
            signature: 'c2lnbmF0dXJlLXBhcmFsbGVs',
          },
          text('I will look three ways at once.'),
          bash('toolu_slowA', 'sleep 1; echo slow-A'),
          bash('toolu_fastB', 'echo fast-B'),
          tool('toolu_readC', 'Read', { file_path: work('parallel-and-big', 'notes.txt') }),
        ],
      },
      { after: 'toolu_slowA', reply: [text('Now the long listing.'), bash('toolu_bigD', BIG)] },
      { after: 'toolu_bigD', reply: [text('The long output has an error in the middle.')] },
    ],
  },
  {
    name: 'compact',
    allowedTools: ['Bash'],
    steps: [
      { prompt: 'Scenario compact: first part.' },
      { prompt: '/compact', join: 'resume' },
      { prompt: 'Scenario compact: second part.', join: 'resume' },
    ],
    rules: [
      { prompt: 'Scenario compact: first part', reply: [bash('toolu_beforeE', 'echo before-compaction')] },
      { after: 'toolu_beforeE', reply: [text('First part done.')] },
      SUMMARY,
      { prompt: 'Scenario compact: second part', reply: [bash('toolu_afterF', 'echo after-compaction')] },
      { after: 'toolu_afterF', reply: [text('Second part done.')] },
    ],
  },
  {
    name: 'subagent',
    files: { 'a.txt': 'a\n', 'b.txt': 'b\n' },
    allowedTools: ['Bash', 'Read', 'Agent'],
    steps: [{ prompt: 'Scenario subagent: delegate the count.' }],
    rules: [
      {
        prompt: 'Scenario subagent',
        reply: [
          text('A subagent will count.'),
          tool('toolu_agentG', 'Agent', {
            description: 'Count files',
            prompt: 'SUBAGENT-TASK: count the files here',
            subagent_type: 'general-purpose',
            run_in_background: false,
          }),
        ],
      },
      { prompt: 'SUBAGENT-TASK', reply: [bash('toolu_subH', 'ls -1 | wc -l')] },
      { after: 'toolu_subH', reply: [text('There are 2 files.')] },
      { after: 'toolu_agentG', reply: [text('The subagent counted 2 files.')] },
    ],
  },
  {
    name: 'resume-continue',
    files: { 'notes.txt': 'one\ntwo\n' },
    allowedTools: ['Bash', 'Read'],
    steps: [
      { prompt: 'Scenario resume-continue: first.' },
      { prompt: 'Scenario resume-continue: second.', join: 'resume' },
      { prompt: 'Scenario resume-continue: third.', join: 'continue' },
    ],
    rules: [
      { prompt: 'resume-continue: first', reply: [bash('toolu_rc1', 'echo first')] },
      { after: 'toolu_rc1', reply: [text('First done.')] },
      {
        prompt: 'resume-continue: second',
        reply: [tool('toolu_rc2', 'Read', { file_path: work('resume-continue', 'notes.txt') })],
      },
      { after: 'toolu_rc2', reply: [text('Second done.')] },
      { prompt: 'resume-continue: third', reply: [text('Third: nothing to run.')] },
    ],
  },
  {
    name: 'hook-toolsearch-peek',
    retained: true,
    allowedTools: ['Bash', 'ToolSearch', 'mcp__retained__peek_value'],
    steps: [{ prompt: 'Scenario hook-toolsearch-peek: build and find what failed.' }],
    rules: [
      { prompt: 'hook-toolsearch-peek', reply: [text('Building.'), bash('toolu_hb1', BIG)] },
      { after: 'toolu_hb1', reply: [tool('toolu_hs2', 'ToolSearch', { query: 'select:mcp__retained__peek_value' })] },
      {
        after: 'toolu_hs2',
        reply: [tool('toolu_hp3', 'mcp__retained__peek_value', { id: 'toolu_hb1', query: 'checksum', context: 1 })],
      },
      {
        after: 'toolu_hp3',
        reply: [tool('toolu_hp4', 'mcp__retained__peek_value', { id: 'toolu_hb1', landmark: 'error' })],
      },
      { after: 'toolu_hp4', reply: [text('The checksum of block 10001 did not match.')] },
    ],
  },
  {
    name: 'hook-read-grep-glob',
    retained: true,
    files: {
      'big.txt': rows(3000),
      ...Object.fromEntries(
        Array.from({ length: 700 }, (_, i) => [
          `tree/module-${String(i).padStart(4, '0')}-with-a-long-name.txt`,
          `m${i}\n`,
        ]),
      ),
    },
    allowedTools: ['Bash', 'Read', 'Grep', 'Glob'],
    steps: [{ prompt: 'Scenario hook-read-grep-glob: look at everything.' }],
    rules: [
      {
        prompt: 'hook-read-grep-glob',
        reply: [tool('toolu_gr1', 'Read', { file_path: work('hook-read-grep-glob', 'big.txt') })],
      },
      {
        after: 'toolu_gr1',
        reply: [
          tool('toolu_gg2', 'Grep', {
            pattern: 'fox',
            path: work('hook-read-grep-glob', 'big.txt'),
            output_mode: 'content',
            '-n': true,
          }),
        ],
      },
      {
        after: 'toolu_gg2',
        reply: [tool('toolu_gf3', 'Grep', { pattern: 'm', path: work('hook-read-grep-glob', 'tree') })],
      },
      {
        after: 'toolu_gf3',
        reply: [tool('toolu_gl4', 'Glob', { pattern: '**/*.txt', path: work('hook-read-grep-glob') })],
      },
      { after: 'toolu_gl4', reply: [bash('toolu_gb5', BIG)] },
      { after: 'toolu_gb5', reply: [text('Seen it all.')] },
    ],
  },
  {
    name: 'edit-write',
    files: { 'existing.txt': 'keep me\nchange me\n' },
    allowedTools: ['Read', 'Write', 'Edit'],
    steps: [{ prompt: 'Scenario edit-write: make the changes.' }],
    rules: [
      {
        prompt: 'edit-write',
        reply: [
          tool('toolu_ew1', 'Write', {
            file_path: work('edit-write', 'new.txt'),
            content: 'fresh file\nsecond line\n',
          }),
        ],
      },
      { after: 'toolu_ew1', reply: [tool('toolu_ew2', 'Read', { file_path: work('edit-write', 'existing.txt') })] },
      {
        after: 'toolu_ew2',
        reply: [
          tool('toolu_ew3', 'Edit', {
            file_path: work('edit-write', 'existing.txt'),
            old_string: 'change me',
            new_string: 'changed',
          }),
        ],
      },
      { after: 'toolu_ew3', reply: [text('Both files are as asked.')] },
    ],
  },
  {
    name: 'parallel-mixed',
    files: { 'x.txt': 'needle here\n', 'y.txt': 'no match\n' },
    allowedTools: ['Bash', 'Read', 'Grep', 'Glob'],
    steps: [{ prompt: 'Scenario parallel-mixed: four looks at once.' }],
    rules: [
      {
        prompt: 'parallel-mixed',
        reply: [
          bash('toolu_pm1', 'sleep 1.5; echo slow'),
          tool('toolu_pm2', 'Read', { file_path: work('parallel-mixed', 'x.txt') }),
          tool('toolu_pm3', 'Grep', { pattern: 'needle', path: work('parallel-mixed') }),
          tool('toolu_pm4', 'Glob', { pattern: '*.txt', path: work('parallel-mixed') }),
        ],
      },
      { after: 'toolu_pm1', reply: [text('All four came back.')] },
    ],
  },
  {
    name: 'failing',
    allowedTools: ['Bash', 'Read'],
    steps: [{ prompt: 'Scenario failing: try things that fail.' }],
    rules: [
      { prompt: 'Scenario failing', reply: [bash('toolu_f1', 'echo out; echo err >&2; exit 3')] },
      { after: 'toolu_f1', reply: [bash('toolu_f2', `${BIG}; exit 2`)] },
      { after: 'toolu_f2', reply: [tool('toolu_f3', 'TodoWrite', { todos: [] })] },
      { after: 'toolu_f3', reply: [tool('toolu_f4', 'Read', { file_path: work('failing', 'missing.txt') })] },
      { after: 'toolu_f4', reply: [text('Four failures, each reported.')] },
    ],
  },
  {
    name: 'interrupt',
    allowedTools: ['Bash'],
    steps: [
      { prompt: 'Scenario interrupt: start the long job.', interrupt: { onCall: 'toolu_i1', afterMs: 2500 } },
      { prompt: 'Scenario interrupt: never mind, go on.', join: 'resume' },
    ],
    rules: [
      { prompt: 'start the long job', reply: [bash('toolu_i1', 'echo begin; sleep 30; echo never')] },
      { prompt: 'never mind', reply: [text('Stopped; going on.')] },
    ],
  },
  {
    name: 'background',
    allowedTools: ['Bash', 'Read'],
    steps: [{ prompt: 'Scenario background: run it in the background.' }],
    rules: [
      {
        prompt: 'Scenario background',
        reply: [bash('toolu_bg1', 'echo started; sleep 2; echo finished', { run_in_background: true })],
      },
      { after: 'toolu_bg1', reply: [text('It runs; I will read it when it is done.')] },
      {
        prompt: 'task-notification',
        reply: (body: AnthropicBody) => {
          const file =
            /<output-file>(.*?)<\/output-file>/.exec(JSON.stringify(body.messages?.at(-1)))?.[1] ?? '/nonexistent';
          return [tool('toolu_bg2', 'Read', { file_path: file })];
        },
      },
      { after: 'toolu_bg2', reply: [text('It started and finished.')] },
    ],
  },
  {
    // What the index after a compaction is there to avoid: a big output (retained on import), a
    // compaction, and the scripted model running the same command again, as a model would that
    // the summary left without it (`npm run bench` counts such calls).
    name: 'compact-rerun',
    allowedTools: ['Bash'],
    steps: [
      { prompt: 'Scenario compact-rerun: check the blocks.' },
      { prompt: '/compact', join: 'resume' },
      { prompt: 'Scenario compact-rerun: which block failed?', join: 'resume' },
    ],
    rules: [
      { prompt: 'compact-rerun: check the blocks', reply: [bash('toolu_crun1', BIG)] },
      { after: 'toolu_crun1', reply: [text('The check printed a lot and failed.')] },
      SUMMARY,
      { prompt: 'compact-rerun: which block failed', reply: [bash('toolu_crun2', BIG)] },
      { after: 'toolu_crun2', reply: [text('Block 10001.')] },
    ],
  },
  {
    name: 'compact-auto',
    allowedTools: ['Bash'],
    steps: [
      { prompt: 'Scenario compact-auto: work until the context fills.', env: { CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '5' } },
    ],
    rules: [
      SUMMARY,
      { prompt: 'compact-auto', usage: usage(3000), reply: [bash('toolu_ca1', 'echo first')] },
      { after: 'toolu_ca1', usage: usage(60_000), reply: [bash('toolu_ca2', 'echo second')] },
      { after: 'toolu_ca2', reply: [text('Done after the compaction.')] },
    ],
  },
  {
    name: 'thinking',
    model: 'claude-opus-5-5',
    allowedTools: ['Bash'],
    // The second turn, queued on stdin while the first runs, goes out with the first turn's result.
    steps: [
      { turns: ['Scenario thinking: go.', 'Scenario thinking: turn two.'] },
      { prompt: 'Scenario thinking: after the resume.', join: 'resume' },
    ],
    rules: [
      {
        prompt: 'thinking: go',
        reply: [
          { type: 'thinking', thinking: 'I think first.', signature: 'U0lHX09ORV9hYmMxMjM=' },
          { type: 'redacted_thinking', data: 'UkVEQUNURURfeHl6' },
          bash('toolu_t1', 'echo thought'),
        ],
      },
      {
        after: 'toolu_t1',
        reply: [
          { type: 'thinking', thinking: 'Second thought.', signature: 'U0lHX1RXT19kZWY0NTY=' },
          text('First turn done.'),
        ],
      },
      { prompt: 'after the resume', reply: [text('Resumed, thoughts kept.')] },
    ],
  },
  {
    name: 'read-code',
    files: { 'lib/worker.ex': elixir(150), 'data/catalog.json': catalog(250) },
    allowedTools: ['Read'],
    steps: [{ prompt: 'Scenario read-code: read the worker and the catalogue.' }],
    rules: [
      {
        prompt: 'read-code',
        reply: [
          tool('toolu_rc1', 'Read', { file_path: work('read-code', 'lib/worker.ex') }),
          tool('toolu_rc2', 'Read', { file_path: work('read-code', 'data/catalog.json') }),
        ],
      },
      { after: 'toolu_rc2', reply: [text('The worker retries on every error; the catalogue has 250 items.')] },
    ],
  },
  {
    name: 'image-read',
    files: { 'red.png': png() },
    allowedTools: ['Read'],
    steps: [{ prompt: 'Scenario image-read: what colour is it?' }],
    rules: [
      { prompt: 'image-read', reply: [tool('toolu_im1', 'Read', { file_path: work('image-read', 'red.png') })] },
      { after: 'toolu_im1', reply: [text('It is red.')] },
    ],
  },
  {
    name: 'plan-mode',
    allowedTools: ['Read', 'Write'],
    mcp: { approver: { command: process.execPath, args: [APPROVER] } },
    steps: [
      {
        prompt: 'Scenario plan-mode: plan, then write.',
        args: ['--permission-mode', 'plan', '--permission-prompt-tool', 'mcp__approver__approve'],
      },
    ],
    rules: [
      { prompt: 'plan-mode', reply: [tool('toolu_pl1', 'ExitPlanMode', { plan: '# Plan\n1. Write plan.txt' })] },
      {
        after: 'toolu_pl1',
        reply: [tool('toolu_pl2', 'Write', { file_path: work('plan-mode', 'plan.txt'), content: 'planned\n' })],
      },
      { after: 'toolu_pl2', reply: [text('Planned and written.')] },
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
  for (const [name, content] of Object.entries(scenario.files ?? {})) {
    mkdirSync(join(cwd, name, '..'), { recursive: true });
    writeFileSync(join(cwd, name), content);
  }
  const settingsFile = join(base, 'settings.json');
  const mcpConfigFile = join(base, 'mcp.json');
  writeFileSync(
    settingsFile,
    JSON.stringify(
      scenario.retained
        ? {
            hooks: {
              PostToolUse: [
                {
                  matcher: '*',
                  hooks: [{ type: 'command', command: `"${process.execPath}" "${CLI}" hook claude-code` }],
                },
              ],
            },
          }
        : {},
    ),
  );
  writeFileSync(
    mcpConfigFile,
    JSON.stringify({
      mcpServers: {
        ...(scenario.retained ? { retained: { command: process.execPath, args: [CLI, 'mcp'] } } : {}),
        ...scenario.mcp,
      },
    }),
  );
  const log = join(base, 'requests.jsonl');
  const model = new ScriptedModel(scenario.rules, {
    logFile: log,
    ...(scenario.model ? { model: scenario.model } : {}),
  });
  const modelUrl = await model.start();
  let sessionId: string | undefined;
  try {
    for (const step of scenario.steps) {
      const result = await runClaude(
        {
          home,
          cwd,
          modelUrl,
          prompt: step.prompt ?? '',
          allowedTools: scenario.allowedTools,
          settingsFile,
          mcpConfigFile,
          ...(step.turns ? { turns: step.turns } : {}),
          ...(step.join === 'resume' ? { resume: sessionId } : step.join === 'continue' ? { continue: true } : {}),
          ...(step.interrupt ? { interrupt: step.interrupt } : {}),
          ...(step.args ? { args: step.args } : {}),
          ...(step.env ? { env: step.env } : {}),
          timeoutMs: 180_000,
        },
        binary,
      );
      if (result.code !== 0 && !step.interrupt)
        throw new Error(`${scenario.name}: claude exited ${result.code}\n${result.stderr}`);
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
  // Claude Code's own memory folder is not part of a session.
  rmSync(join(out, 'project', 'memory'), { recursive: true, force: true });
  if (scenario.retained && existsSync(join(cwd, '.retained'))) {
    cpSync(join(cwd, '.retained'), join(out, 'store'), { recursive: true });
    // The store keeps itself out of version control; a fixture's copy must be in it.
    rmSync(join(out, 'store', '.gitignore'), { force: true });
  }
  // Only the model calls: the agent's other traffic (hello, token counts) says nothing here.
  const calls = readFileSync(log, 'utf8')
    .split('\n')
    .filter((line) => line.includes('"url":"/v1/messages'));
  writeFileSync(join(out, 'requests.jsonl'), `${calls.join('\n')}\n`);
  writeFileSync(
    join(out, 'recording.json'),
    `${JSON.stringify(
      {
        claudeCode: CLAUDE_CODE_VERSION,
        sessionId,
        cwd,
        home,
        steps: scenario.steps.map(({ prompt, turns, join: how, interrupt, args, env }) => ({
          ...(prompt ? { prompt } : {}),
          ...(turns ? { turns } : {}),
          ...(how ? { join: how } : {}),
          ...(interrupt ? { interrupt } : {}),
          ...(args ? { args } : {}),
          ...(env ? { env } : {}),
        })),
        retained: scenario.retained === true,
      },
      null,
      2,
    )}\n`,
  );
  console.log(`${scenario.name}: session ${sessionId}, ${calls.length} requests`);
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
