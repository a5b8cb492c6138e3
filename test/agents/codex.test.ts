/**
 * A real Codex CLI (0.171.0, installed by scripts/setup-agents.sh) with Retained Outputs' MCP
 * server, against a scripted Responses endpoint on localhost (the one mock: a model provider
 * cannot run here). The model runs a command through `run_command`, gets our stub with the
 * error's line, and peeks it there. Without Retained Outputs, Codex's own shell tool cuts the
 * output to its head and tail, the error in the middle with it, and keeps the whole nowhere.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { setupChanges } from '../../server/src/cli/setup';
import { sha256Hex } from '../../server/src/core/text/bytes';
import { codexScript, runCodex } from '../helpers/codex';
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
import { type Item, ScriptedResponses } from '../helpers/scriptedResponses';
import { removeTempDirs, tempDir } from '../helpers/tmp';

const CLI = resolve(__dirname, '../../dist/cli.js');
const COMMAND = 'seq 1 80000; echo "error: linker failed at step 80001"; seq 80002 160000';

type Output = Item & { output?: string | { text?: string }[] };

/** The output sent for call `id`, as text, in the input items given (or any logged request). */
function outputOf(input: readonly Output[], id: string): string | undefined {
  const item = input.find((i) => i.type === 'function_call_output' && i.call_id === id);
  if (!item) return undefined;
  return typeof item.output === 'string' ? item.output : (item.output ?? []).map((o) => o.text ?? '').join('\n');
}
const outputSent = (model: ScriptedResponses, id: string) =>
  model.requests.map(({ body }) => outputOf((body.input ?? []) as Output[], id)).find((o) => o !== undefined);

describe('a real Codex CLI with Retained Outputs', function () {
  this.timeout(600_000);
  let script: string;
  before(() => {
    script = codexScript();
  });
  after(removeTempDirs);

  async function session(rules: ConstructorParameters<typeof ScriptedResponses>[0], withRetained: boolean) {
    const root = tempDir();
    const cwd = join(root, 'project');
    mkdirSync(cwd, { recursive: true });
    const model = new ScriptedResponses(rules);
    const url = await model.start();
    try {
      const mcpServers: Record<string, { command: string; args: string[] }> = withRetained
        ? { retained: { command: process.execPath, args: [CLI, 'mcp'] } }
        : {};
      const result = await runCodex(
        {
          codexHome: join(root, '.codex'),
          cwd,
          modelUrl: url,
          prompt: 'Build it and tell me what failed.',
          mcpServers,
        },
        script,
      );
      assert.equal(result.code, 0, result.stderr.slice(-1500));
      assert.deepEqual(model.unusedRules(), [], 'the script ran to its end');
      return { cwd, model };
    } finally {
      await model.stop();
    }
  }

  it('run_command keeps the whole output; the model gets our stub with the error line, and peeks it by landmark', async () => {
    const { cwd, model } = await session(
      [
        {
          prompt: 'Build it',
          reply: [
            {
              type: 'function_call',
              call_id: 'call_run',
              namespace: 'mcp__retained',
              name: 'run_command',
              arguments: JSON.stringify({ command: COMMAND }),
            },
          ],
        },
        {
          after: 'call_run',
          // The stub names the value: the scripted model peeks the id it was shown, as a model would.
          reply: (input) => {
            const id = /\[retained #(\S+)\]/.exec(outputOf(input as Output[], 'call_run') ?? '')?.[1] ?? 'missing';
            return [
              {
                type: 'function_call',
                call_id: 'call_peek',
                namespace: 'mcp__retained',
                name: 'peek_value',
                arguments: JSON.stringify({ id, landmark: 'error', context: 0 }),
              },
            ];
          },
        },
        { after: 'call_peek', reply: [{ type: 'message', text: 'The linker failed.' }] },
      ],
      true,
    );
    const stub = outputSent(model, 'call_run');
    assert.ok(stub);
    assert.match(stub, /\[exit code 0\]\n\[retained #(cmd-\S+)\] run_command result: \d+ bytes, 160000 lines/);
    assert.match(stub, /Landmarks: error at line 80001/);
    const id = /\[retained #(\S+)\]/.exec(stub)![1]!;
    assert.match(outputSent(model, 'call_peek') ?? '', /80001: error: linker failed at step 80001/);
    const runs = join(cwd, '.retained', 'runs');
    const values = readdirSync(runs).find((d) => d.endsWith('.values'))!;
    assert.deepEqual(
      readFileSync(join(runs, values, `${id}.txt`)),
      execFileSync('sh', ['-c', COMMAND], { maxBuffer: 64 << 20 }),
    );
    console.log(
      `      Codex with Retained Outputs: the model got ${Buffer.byteLength(stub)} bytes, the error's line named`,
    );
  });

  it('with `retained setup codex` (its hook, trusted as Codex trusts hooks), the shell tool gives the model our stub; the model peeks the error line through MCP', async () => {
    const root = tempDir();
    const cwd = join(root, 'project');
    mkdirSync(cwd, { recursive: true });
    const model = new ScriptedResponses([
      {
        prompt: 'Build it',
        reply: [
          {
            type: 'function_call',
            call_id: 'call_exec',
            name: 'exec_command',
            arguments: JSON.stringify({ cmd: COMMAND }),
          },
        ],
      },
      {
        after: 'call_exec',
        reply: (input) => {
          const id = /\[retained #(\S+)\]/.exec(outputOf(input as Output[], 'call_exec') ?? '')?.[1] ?? 'missing';
          return [
            {
              type: 'function_call',
              call_id: 'call_peek',
              namespace: 'mcp__retained',
              name: 'peek_value',
              arguments: JSON.stringify({ id, landmark: 'error', context: 0 }),
            },
          ];
        },
      },
      { after: 'call_peek', reply: [{ type: 'message', text: 'The linker failed.' }] },
    ]);
    const url = await model.start();
    try {
      const result = await runCodex(
        {
          codexHome: join(root, '.codex'),
          cwd,
          modelUrl: url,
          prompt: 'Build it and tell me what failed.',
          // What `retained setup codex` writes, from the same module, into this Codex home.
          setup: (path, before) => {
            const [change] = setupChanges(
              'codex',
              { home: dirname(path) },
              { node: process.execPath, cli: CLI },
              () => before,
              { sha256: sha256Hex },
            );
            return change!.after!;
          },
        },
        script,
      );
      assert.equal(result.code, 0, result.stderr.slice(-1500));
    } finally {
      await model.stop();
    }
    const sent = outputSent(model, 'call_exec');
    assert.ok(sent, 'the shell call was answered');
    assert.match(sent, /\[retained #call_exec\] Bash result: \d+ bytes, 160000 lines/);
    assert.match(sent, /Landmarks: error at line 80001/);
    assert.ok(Buffer.byteLength(sent) < 4096, `a stub, not the output (${Buffer.byteLength(sent)} bytes)`);
    assert.match(outputSent(model, 'call_peek') ?? '', /80001: error: linker failed at step 80001/);
    const runs = join(cwd, '.retained', 'runs');
    const values = readdirSync(runs).find((d) => d.endsWith('.values'))!;
    assert.deepEqual(
      readFileSync(join(runs, values, 'call_exec.txt')),
      execFileSync('sh', ['-c', COMMAND], { maxBuffer: 64 << 20 }),
    );
    console.log(
      `      Codex with the hook: the model got ${Buffer.byteLength(sent)} bytes for the shell's output, the error's line named`,
    );
  });

  describe('on the commands people run: a failing build, bash-only syntax, a command Codex kills, a rule that forbids', () => {
    const rules = 'prefix_rule(pattern=["rm"], decision="forbidden", justification="no rm here")\n';
    const exec = (call_id: string, cmd: string, extra: Record<string, unknown> = {}) => [
      { type: 'function_call' as const, call_id, name: 'exec_command', arguments: JSON.stringify({ cmd, ...extra }) },
    ];

    async function run(withRetained: boolean) {
      const root = tempDir();
      const cwd = join(root, 'project');
      mkdirSync(cwd, { recursive: true });
      plantVictim(cwd);
      const model = new ScriptedResponses([
        { prompt: 'Build it', reply: exec('call_fail', FAILING) },
        { after: 'call_fail', reply: exec('call_bash', BASH_ONLY) },
        { after: 'call_bash', reply: exec('call_rm', DENIED) },
        // Still running when Codex yields: Codex ends it (its whole group) when the session ends.
        { after: 'call_rm', reply: exec('call_tick', TICKING, { yield_time_ms: 1000 }) },
        { after: 'call_tick', reply: [{ type: 'message', text: 'Done.' }] },
      ]);
      const url = await model.start();
      try {
        const result = await runCodex(
          {
            codexHome: join(root, '.codex'),
            cwd,
            modelUrl: url,
            prompt: 'Build it and tell me what failed.',
            files: { 'rules/default.rules': rules },
            ...(withRetained
              ? {
                  setup: (path: string, before: string) =>
                    setupChanges('codex', { home: dirname(path) }, { node: process.execPath, cli: CLI }, () => before, {
                      sha256: sha256Hex,
                    })[0]!.after!,
                }
              : {}),
          },
          script,
        );
        assert.equal(result.code, 0, result.stderr.slice(-1500));
        assert.deepEqual(model.unusedRules(), [], 'the script ran to its end');
      } finally {
        await model.stop();
      }
      return { cwd, model };
    }

    it('with the hook: the failing build is kept whole and its stub says exit 2; the rest ends exactly as without it', async () => {
      const plain = await run(false);
      const ours = await run(true);
      assertFailingKept('Codex with the hook', { sent: outputSent(ours.model, 'call_fail'), cwd: ours.cwd });
      for (const { model } of [plain, ours])
        assert.match(outputSent(model, 'call_bash') ?? '', new RegExp(`Output:\\n${BASH_ONLY_OUTPUT}\\n`));
      // The rule decides on the command as the model wrote it, with the hook as without.
      const refused = (m: ScriptedResponses) => (outputSent(m, 'call_rm') ?? '').replace(/\/bin\/bash -lc '.*'/, '');
      assert.match(refused(plain.model), /no rm here/);
      assert.equal(refused(ours.model), refused(plain.model));
      for (const { cwd } of [plain, ours]) assertDenied('Codex', cwd);
      for (const [what, { cwd }] of [
        ['Codex alone', plain],
        ['Codex with the hook', ours],
      ] as const)
        await assertStopped(what, cwd);
    });
  });

  it("without it, Codex's shell tool sends the head and the tail, and the error in the middle is lost", async () => {
    const { model } = await session(
      [
        {
          prompt: 'Build it',
          reply: [
            {
              type: 'function_call',
              call_id: 'call_exec',
              name: 'exec_command',
              arguments: JSON.stringify({ cmd: COMMAND }),
            },
          ],
        },
        { after: 'call_exec', reply: [{ type: 'message', text: 'Something printed a lot.' }] },
      ],
      false,
    );
    const sent = outputSent(model, 'call_exec');
    assert.ok(sent);
    // The error's own line (the command, echoed by some agents, holds its words too).
    assert.doesNotMatch(
      sent,
      /^error: linker failed at step 80001$/m,
      'the error in the middle never reaches the model',
    );
    console.log(
      `      Codex alone: the model got ${Buffer.byteLength(sent)} bytes of a ${execFileSync('sh', ['-c', COMMAND], { maxBuffer: 64 << 20 }).length}-byte output, the error not in it`,
    );
  });
});
