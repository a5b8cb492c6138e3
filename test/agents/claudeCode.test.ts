/**
 * A real Claude Code (2.1.332, installed by scripts/setup-agents.sh) with Retained Outputs' hook
 * and MCP server configured, against a scripted model on localhost (the one mock: a model
 * provider cannot run here). A command prints about 1 MB with an error in the middle; the model
 * must then get our stub with that error's line as a landmark, peek it through
 * `mcp__retained__peek_value`, and get the matching lines with their gutters. The same run
 * without Retained Outputs shows what Claude Code alone sends.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { setupChanges } from '../../server/src/cli/setup';
import { sha256Hex } from '../../server/src/core/text/bytes';
import { claudeBinary, runClaude } from '../helpers/claudeCode';
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
import { type LoggedRequest, type ScriptBlock, ScriptedModel, type ScriptRule } from '../helpers/scriptedModel';
import { removeTempDirs, tempDir } from '../helpers/tmp';

const CLI = resolve(__dirname, '../../dist/cli.js');
const OUTPUT = resolve(__dirname, '../../test-output/agents');

/** What the model got, kept for docs/agents.md's side-by-side. */
function writeOutput(name: string, text: string): void {
  mkdirSync(OUTPUT, { recursive: true });
  writeFileSync(join(OUTPUT, name), text);
}
const COMMAND = 'seq 1 80000; echo "error: linker failed at step 80001"; seq 80002 160000';
const ERROR_LINE = 80001;

type Block = { type: string; tool_use_id?: string; content?: unknown; text?: string };

/** Writes what `retained setup claude-code` writes into a project (its settings, prefix and MCP server). */
function setUp(project: string): void {
  for (const change of setupChanges('claude-code', { project }, { node: process.execPath, cli: CLI }, () => undefined, {
    sha256: sha256Hex,
  })) {
    mkdirSync(dirname(change.path), { recursive: true });
    writeFileSync(change.path, change.after!);
    if (change.executable) chmodSync(change.path, 0o755);
  }
}

/** A home and a project as `retained setup claude-code` leaves it: its hooks (PostToolUse, SessionStart on compact) and MCP server. */
function setUpProject(): { home: string; cwd: string } {
  const root = tempDir();
  const home = join(root, 'home');
  const cwd = join(root, 'project');
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  setUp(cwd);
  return { home, cwd };
}

/** The answer to Claude Code's request for a compaction's summary. */
const summary = (n: number): ScriptRule => ({
  prompt: 'create a detailed summary',
  reply: [{ type: 'text', text: `<analysis>Scripted.</analysis>\n<summary>Summary ${n}: I ran the build.</summary>` }],
});

/** The tool_result a logged request sent for `id`, as text. */
function resultSent(requests: LoggedRequest[], id: string): string | undefined {
  for (const request of requests) {
    const messages = (request.body as { messages?: { role: string; content: string | Block[] }[] }).messages ?? [];
    for (const message of messages) {
      if (typeof message.content === 'string') continue;
      const block = message.content.find((b) => b.type === 'tool_result' && b.tool_use_id === id);
      if (!block) continue;
      return typeof block.content === 'string'
        ? block.content
        : (block.content as Block[]).map((b) => b.text ?? '').join('\n');
    }
  }
  return undefined;
}

const rules = (withPeek: boolean): ScriptRule[] => [
  {
    prompt: 'Build it',
    reply: [{ type: 'tool_use', id: 'toolu_build', name: 'Bash', input: { command: COMMAND, description: 'Build' } }],
  },
  ...(withPeek
    ? [
        {
          after: 'toolu_build',
          reply: [
            {
              type: 'tool_use' as const,
              id: 'toolu_search',
              name: 'ToolSearch',
              input: { query: 'select:mcp__retained__peek_value' },
            },
          ],
        },
        {
          after: 'toolu_search',
          reply: [
            {
              type: 'tool_use' as const,
              id: 'toolu_peek',
              name: 'mcp__retained__peek_value',
              input: { id: 'toolu_build', query: 'linker failed', context: 1 },
            },
          ],
        },
        { after: 'toolu_peek', reply: [{ type: 'text' as const, text: `The linker failed at line ${ERROR_LINE}.` }] },
      ]
    : [{ after: 'toolu_build', reply: [{ type: 'text' as const, text: 'The build printed a lot.' }] }]),
];

describe('a real Claude Code with Retained Outputs', function () {
  this.timeout(600_000);
  let binary: string;
  before(() => {
    binary = claudeBinary();
  });
  after(removeTempDirs);

  async function session(withRetained: boolean, script = rules(withRetained), guard = false) {
    const root = tempDir();
    const home = join(root, 'home');
    const cwd = join(root, 'project');
    mkdirSync(home, { recursive: true });
    mkdirSync(cwd, { recursive: true });
    const model = new ScriptedModel(script);
    const url = await model.start();
    const settingsFile = join(root, 'settings.json');
    const mcpConfigFile = join(root, 'mcp.json');
    writeFileSync(
      settingsFile,
      JSON.stringify(
        withRetained
          ? {
              hooks: {
                PostToolUse: [
                  {
                    matcher: '*',
                    hooks: [
                      {
                        type: 'command',
                        command: `"${process.execPath}" "${CLI}" hook claude-code${guard ? ' --guard' : ''}`,
                      },
                    ],
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
        mcpServers: withRetained ? { retained: { command: process.execPath, args: [CLI, 'mcp'] } } : {},
      }),
    );
    try {
      const result = await runClaude(
        {
          home,
          cwd,
          modelUrl: url,
          prompt: 'Build it and tell me what failed.',
          allowedTools: ['Bash', 'ToolSearch', 'mcp__retained__peek_value'],
          settingsFile,
          ...(withRetained ? { mcpConfigFile } : {}),
          timeoutMs: 300_000,
        },
        binary,
      );
      assert.equal(result.code, 0, result.stderr.slice(-2000));
      assert.deepEqual(model.unusedRules(), [], 'the script ran to its end');
      return { cwd, requests: model.requests, sessionId: result.sessionId };
    } finally {
      await model.stop();
    }
  }

  it('the model gets our stub, with the error line as a landmark; it peeks by query and gets the numbered lines; the value is the whole output', async () => {
    const { cwd, requests, sessionId } = await session(true);
    const stub = resultSent(requests, 'toolu_build');
    assert.ok(stub, 'the build result was sent');
    assert.match(stub, /^\[retained #toolu_build\] Bash result: \d+ bytes, 160000 lines/);
    assert.match(stub, new RegExp(`error at line ${ERROR_LINE}`), 'the error in the middle is a landmark');
    assert.match(stub, /Read it with mcp__retained__peek_value: \{"id":"toolu_build"/);
    assert.ok(!stub.includes('<persisted-output>'), "not Claude Code's own 2 KB preview");
    const peeked = resultSent(requests, 'toolu_peek');
    assert.equal(
      peeked,
      `${ERROR_LINE - 1}: ${ERROR_LINE - 1}\n${ERROR_LINE}: error: linker failed at step 80001\n${ERROR_LINE + 1}: 80002\n[peek: 1 matching line]`,
    );
    const value = readFileSync(join(cwd, '.retained', 'runs', `${sessionId}.values`, 'toolu_build.txt'));
    assert.deepEqual(
      value,
      execFileSync('sh', ['-c', COMMAND], { maxBuffer: 64 << 20 }),
      'byte-identical to the command output',
    );
    writeOutput('with-retained-outputs.txt', stub);
    console.log(
      `      with Retained Outputs, the model got ${Buffer.byteLength(stub)} bytes for a ${value.length}-byte output, the error's line named`,
    );
  });

  it('with --guard, a small output holding a key is withheld: the model gets the notice and where the original is', async () => {
    const key = 'AKIAIOSFODNN7EXAMPLE';
    const command = `echo "region=eu-west-1"; echo "aws_access_key_id=${key}"`;
    const { cwd, requests } = await session(
      true,
      [
        {
          prompt: 'Build it',
          reply: [{ type: 'tool_use', id: 'toolu_env', name: 'Bash', input: { command, description: 'Show config' } }],
        },
        { after: 'toolu_env', reply: [{ type: 'text', text: 'The configuration is set.' }] },
      ],
      true,
    );
    const sent = resultSent(requests, 'toolu_env');
    assert.ok(sent, 'the result was sent');
    assert.ok(!sent.includes(key), 'the key never reached the model');
    assert.match(
      sent,
      /^\[withheld\] This tool result was withheld from the model by a guard\. The tool has already run\./,
    );
    assert.doesNotMatch(sent, /AWS|secret|key/i, 'no reason, no category');
    const file = /at (withheld\/\S+\.txt)/.exec(sent)?.[1];
    assert.ok(file, sent);
    const original = readFileSync(join(cwd, '.retained', file), 'utf8');
    assert.match(original, new RegExp(`^region=eu-west-1\naws_access_key_id=${key}\n?$`), 'the original, whole');
    const audit = readFileSync(join(cwd, '.retained', 'audit.jsonl'), 'utf8');
    assert.match(
      audit,
      /"event":"withheld".*"callId":"toolu_env".*"reason":"the secret guard found an AWS access key"/,
    );
    console.log(
      `      with --guard, the model got ${Buffer.byteLength(sent)} bytes: the notice and the file, never the key`,
    );
  });

  it('without it, Claude Code sends a 2 KB preview of the head, and the error is not in it', async () => {
    const { requests } = await session(false);
    const sent = resultSent(requests, 'toolu_build');
    assert.ok(sent);
    assert.match(sent, /^<persisted-output>\nOutput too large \([\d.]+[KM]B\)\. Full output saved to: /);
    // The error's own line (the command, echoed by some agents, holds its words too).
    assert.doesNotMatch(
      sent,
      /^error: linker failed at step 80001$/m,
      'the error in the middle never reaches the model',
    );
    writeOutput('claude-code-alone.txt', sent);
    console.log(
      `      Claude Code alone: the model got ${Buffer.byteLength(sent)} bytes, the head only, the error not in it`,
    );
  });

  it('after /compact the next request holds the index of what was retained; the model peeks by an id from it and gets the original; a second compaction hands it again', async () => {
    const { home, cwd } = setUpProject();
    const tool = (id: string, name: string, input: Record<string, unknown>): ScriptBlock[] => [
      { type: 'tool_use', id, name, input },
    ];
    const model = new ScriptedModel([
      { prompt: 'Build it', reply: tool('toolu_build', 'Bash', { command: COMMAND, description: 'Build' }) },
      { after: 'toolu_build', reply: [{ type: 'text', text: 'Built; it printed a lot.' }] },
      summary(1),
      {
        prompt: 'What failed',
        reply: tool('toolu_search', 'ToolSearch', { query: 'select:mcp__retained__peek_value' }),
      },
      {
        // The id the model peeks by is the one the index handed it.
        after: 'toolu_search',
        reply: (body) =>
          tool('toolu_peek', 'mcp__retained__peek_value', {
            id: /\[retained #(\S+)\] Bash seq 1 80000/.exec(JSON.stringify(body))?.[1] ?? 'not in the request',
            query: 'linker failed',
          }),
      },
      { after: 'toolu_peek', reply: [{ type: 'text', text: `The linker failed at line ${ERROR_LINE}.` }] },
      summary(2),
      { prompt: 'Anything else', reply: [{ type: 'text', text: 'No.' }] },
    ]);
    const url = await model.start();
    try {
      let sessionId: string | undefined;
      for (const prompt of ['Build it.', '/compact', 'What failed?', '/compact', 'Anything else?']) {
        const result = await runClaude(
          {
            home,
            cwd,
            modelUrl: url,
            prompt,
            allowedTools: ['Bash', 'ToolSearch', 'mcp__retained__peek_value', 'mcp__retained__list_retained'],
            ...(sessionId ? { resume: sessionId } : {}),
            timeoutMs: 300_000,
          },
          binary,
        );
        assert.equal(result.code, 0, `${prompt}: ${result.stderr.slice(-2000)}`);
        sessionId ??= result.sessionId;
      }
      assert.deepEqual(model.unusedRules(), [], 'the script ran to its end');
      // The first request after each compaction (the rules of its prompt: 3 and 7) holds the index.
      for (const rule of [3, 7]) {
        const request = JSON.stringify(model.requests.find((r) => r.answeredBy === rule)?.body ?? {});
        assert.match(
          request,
          /Retained Outputs kept this output of the session whole before the compaction/,
          `rule ${rule}`,
        );
        assert.match(
          request,
          /\[retained #\S+\] Bash seq 1 80000.* result: \d+ bytes, 160000 lines; error at line 80001/,
        );
      }
      // None before the first compaction.
      assert.doesNotMatch(
        JSON.stringify(model.requests.find((r) => r.answeredBy === 1)?.body),
        /Retained Outputs kept/,
      );
      assert.match(resultSent(model.requests, 'toolu_peek') ?? '', /80001: error: linker failed at step 80001/);
      // A replay of the run rebuilds each index as the request after its compaction carried it, byte for byte.
      const replayed = execFileSync(process.execPath, [CLI, 'replay', sessionId!, '--shape', 'anthropic'], {
        cwd,
        encoding: 'utf8',
      });
      const indexes = [...replayed.matchAll(/"(Retained Outputs kept (?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!);
      assert.equal(indexes.length, 2, 'one per compaction');
      for (const [i, rule] of [3, 7].entries())
        assert.ok(
          JSON.stringify(model.requests.find((r) => r.answeredBy === rule)?.body).includes(indexes[i]!),
          `the replayed index ${i + 1} is the one sent`,
        );
    } finally {
      await model.stop();
    }
  });

  it('an automatic compaction (brought on by the input the model reports) hands the next request the index, mid-turn', async () => {
    const { home, cwd } = setUpProject();
    const usage = (input: number) => ({
      input_tokens: input,
      output_tokens: 5,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    });
    const model = new ScriptedModel([
      summary(1),
      {
        prompt: 'Build it',
        usage: usage(3000),
        reply: [
          { type: 'tool_use', id: 'toolu_build', name: 'Bash', input: { command: COMMAND, description: 'Build' } },
        ],
      },
      // 60,000 tokens in, past the 5 % of the window the override sets: Claude Code compacts before the next call.
      {
        after: 'toolu_build',
        usage: usage(60_000),
        reply: [
          { type: 'tool_use', id: 'toolu_echo', name: 'Bash', input: { command: 'echo next', description: 'Next' } },
        ],
      },
      { after: 'toolu_echo', reply: [{ type: 'text', text: 'Done after the compaction.' }] },
    ]);
    const url = await model.start();
    try {
      const result = await runClaude({
        home,
        cwd,
        modelUrl: url,
        prompt: 'Build it.',
        allowedTools: ['Bash'],
        env: { CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '5' },
        timeoutMs: 300_000,
      });
      assert.equal(result.code, 0, result.stderr.slice(-2000));
      assert.deepEqual(model.unusedRules(), [], 'the script ran to its end');
      const summarized = model.requests.findIndex((r) => r.answeredBy === 0);
      assert.ok(summarized > 0, 'Claude Code compacted by itself');
      const after = model.requests.slice(summarized + 1).find((r) => r.answeredBy === 3);
      assert.match(
        JSON.stringify(after?.body ?? {}),
        /Retained Outputs kept this output of the session whole before the compaction.*\[retained #\S+\] Bash seq 1 80000/,
      );
    } finally {
      await model.stop();
    }
  });

  describe('on the commands people run: a failing build, bash-only syntax, a cd, a command its timeout ends, a deny rule', () => {
    const bash = (id: string, command: string, extra: Record<string, unknown> = {}) => [
      { type: 'tool_use' as const, id, name: 'Bash', input: { command, description: 'Run', ...extra } },
    ];
    const script: ScriptRule[] = [
      { prompt: 'Build it', reply: bash('toolu_fail', FAILING) },
      { after: 'toolu_fail', reply: bash('toolu_bash', BASH_ONLY) },
      { after: 'toolu_bash', reply: bash('toolu_cd', 'mkdir -p sub && cd sub') },
      { after: 'toolu_cd', reply: bash('toolu_pwd', 'pwd') },
      { after: 'toolu_pwd', reply: bash('toolu_rm', DENIED) },
      // Background tasks off (else Claude Code moves it to the background and waits for it): its timeout kills it.
      { after: 'toolu_rm', reply: bash('toolu_tick', TICKING, { timeout: 1500 }) },
      { after: 'toolu_tick', reply: [{ type: 'text' as const, text: 'Done.' }] },
    ];

    async function run(withRetained: boolean) {
      const root = tempDir();
      const home = join(root, 'home');
      const cwd = join(root, 'project');
      mkdirSync(home, { recursive: true });
      mkdirSync(cwd, { recursive: true });
      plantVictim(cwd);
      if (withRetained) setUp(cwd);
      // The user's own rule, as in their settings: no rm.
      const settingsFile = join(root, 'user-settings.json');
      writeFileSync(settingsFile, JSON.stringify({ permissions: { deny: ['Bash(rm:*)'] } }));
      const model = new ScriptedModel(script);
      const url = await model.start();
      try {
        const result = await runClaude(
          {
            home,
            cwd,
            modelUrl: url,
            prompt: 'Build it and tell me what failed.',
            allowedTools: ['Bash'],
            settingsFile,
            env: { CLAUDE_CODE_DISABLE_BACKGROUND_TASKS: '1' },
            timeoutMs: 300_000,
          },
          binary,
        );
        assert.equal(result.code, 0, result.stderr.slice(-2000));
        assert.deepEqual(model.unusedRules(), [], 'the script ran to its end');
      } finally {
        await model.stop();
      }
      return { cwd, sent: (id: string) => resultSent(model.requests, id) };
    }

    it('with setup (its shell prefix): the failing build is kept whole, exit 2 in its stub; the rest ends exactly as without it', async () => {
      const plain = await run(false);
      const ours = await run(true);
      assertFailingKept('Claude Code with its shell prefix', { sent: ours.sent('toolu_fail'), cwd: ours.cwd });
      assert.match(ours.sent('toolu_fail') ?? '', /^Exit code 2\n/, "Claude Code's own line first, as without");
      assert.doesNotMatch(
        plain.sent('toolu_fail') ?? '',
        /error: linker failed at step 80001$/m,
        'alone, the error is cut away',
      );
      for (const { sent } of [plain, ours]) assert.equal(sent('toolu_bash'), BASH_ONLY_OUTPUT);
      // The folder a command ends in is the next command's, with the prefix as without.
      for (const { sent, cwd } of [plain, ours]) assert.equal(sent('toolu_pwd'), join(cwd, 'sub'));
      assert.equal(ours.sent('toolu_rm'), plain.sent('toolu_rm'), 'the deny rule answers as without setup');
      for (const { cwd } of [plain, ours]) assertDenied('Claude Code', cwd);
      for (const { sent } of [plain, ours]) assert.match(sent('toolu_tick') ?? '', /^Exit code 143\n/);
      for (const [what, { cwd }] of [
        ['Claude Code alone', plain],
        ['Claude Code with its shell prefix', ours],
      ] as const)
        await assertStopped(what, join(cwd, 'sub')); // where the cd left it
    });
  });
});
