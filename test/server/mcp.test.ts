/**
 * The MCP server (`retained mcp`) driven by the MCP SDK's own client over stdio, as an agent's
 * MCP client would drive it; and beside a language server on the same store.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { peekToolJsonSchema } from '../../shared/peekTool';
import { RetainRequest, RunsRequest } from '../../shared/protocol';
import { ServerProcess } from '../helpers/serverProcess';
import { removeTempDirs, tempDir } from '../helpers/tmp';

const CLI = resolve(__dirname, '../../dist/cli.js');

async function connect(workspace: string, name = 'mcp-test-client'): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', '--run', 'agent-run'],
      cwd: workspace,
      stderr: 'pipe',
    }),
  );
  return client;
}

type TextContent = { type: 'text'; text: string };
const textOf = (result: unknown) =>
  (((result as { content?: unknown }).content ?? []) as TextContent[])
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');

describe('the MCP server', function () {
  this.timeout(120_000);
  after(removeTempDirs);

  it('lists its tools; run_command retains a big output and answers the exit status and the stub, with a link; peek_value reads it', async () => {
    const workspace = tempDir();
    const client = await connect(workspace);
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), ['list_retained', 'peek_value', 'run_command']);
      const peekTool = tools.find((t) => t.name === 'peek_value')!;
      assert.deepEqual(
        Object.keys(peekTool.inputSchema.properties ?? {}).sort(),
        Object.keys(peekToolJsonSchema().properties as object).sort(),
      );

      const command = 'seq 1 100000; echo "error: disk quota exceeded"; seq 100002 200000';
      const result = await client.callTool({ name: 'run_command', arguments: { command } });
      const text = textOf(result);
      assert.match(text, /^\[exit code 0\]\n\[retained #(cmd-\S+)\] run_command result: \d+ bytes, 200000 lines/);
      assert.match(text, /error at line 100001/);
      const id = /\[retained #(\S+)\]/.exec(text)![1]!;
      const link = (result.content as { type: string; uri?: string }[]).find((c) => c.type === 'resource_link');
      assert.equal(link?.uri, `retained://agent-run/${id}`);
      assert.equal(result.structuredContent, undefined, 'text only: Claude Code would show the model nothing else');
      assert.deepEqual(
        readFileSync(join(workspace, '.retained', 'runs', 'agent-run.values', `${id}.txt`)),
        execFileSync('sh', ['-c', command], { maxBuffer: 64 << 20 }),
      );

      const peek = await client.callTool({ name: 'peek_value', arguments: { id, query: 'quota', context: 1 } });
      assert.equal(
        textOf(peek),
        '100000: 100000\n100001: error: disk quota exceeded\n100002: 100002\n[peek: 1 matching line]',
      );

      const failing = await client.callTool({ name: 'run_command', arguments: { command: 'echo nope >&2; exit 4' } });
      assert.equal(failing.isError, true);
      assert.equal(textOf(failing), '[exit code 4]\nnope\n');

      const bad = await client.callTool({ name: 'peek_value', arguments: { id, start: 0 } });
      assert.equal(bad.isError, true);
      assert.match(textOf(bad), /start/);

      // What was retained in the run, with what the call worked on, its landmarks and how to read it.
      const second = await client.callTool({ name: 'run_command', arguments: { command: 'seq 1 50000' } });
      const other = /\[retained #(\S+)\]/.exec(textOf(second))![1]!;
      const listed = textOf(await client.callTool({ name: 'list_retained', arguments: { runId: 'agent-run' } }));
      const lines = listed.split('\n');
      assert.match(
        lines[0]!,
        new RegExp(`^\\[retained #${other}\\] run_command seq 1 50000 result: \\d+ bytes, 50000 lines$`),
      );
      assert.match(
        lines[1]!,
        new RegExp(
          `^\\[retained #${id}\\] run_command seq 1 100000.* result: \\d+ bytes, 200000 lines; error at line 100001`,
        ),
      );
      assert.match(lines[2]!, new RegExp(`^Read one with peek_value: \\{"id":"${other}"`));
      const filtered = textOf(
        await client.callTool({ name: 'list_retained', arguments: { runId: 'agent-run', text: 'quota' } }),
      );
      assert.equal(filtered.split('\n').length, 2, filtered);
      assert.match(filtered, new RegExp(`#${id}\\]`));
      const none = await client.callTool({ name: 'list_retained', arguments: { runId: 'agent-run', tool: 'Read' } });
      assert.equal(textOf(none), 'no values in run agent-run that match');
    } finally {
      await client.close();
    }
  });

  it('when the client goes with a run_command still running, the command is ended: nothing runs on after the server', async () => {
    const workspace = tempDir();
    const client = await connect(workspace);
    const call = client
      .callTool({
        name: 'run_command',
        arguments: { command: 'while true; do echo tick >> ticks.txt; sleep 0.2; done', timeoutSeconds: 600 },
      })
      .catch(() => undefined);
    const ticks = join(workspace, 'ticks.txt');
    for (let i = 0; i < 100 && !existsSync(ticks); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(existsSync(ticks), 'the command ran');
    await client.close();
    await call;
    await new Promise((r) => setTimeout(r, 1000));
    const before = statSync(ticks).size;
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(statSync(ticks).size, before, 'it writes no more');
  });

  it('offers each value as a resource, read back (the first MiB) by its link', async () => {
    const workspace = tempDir();
    const client = await connect(workspace);
    try {
      const run = textOf(await client.callTool({ name: 'run_command', arguments: { command: 'seq 1 50000' } }));
      const id = /\[retained #(\S+)\]/.exec(run)![1]!;
      const { resources } = await client.listResources();
      assert.deepEqual(
        resources.map((r) => r.uri),
        [`retained://agent-run/${id}`],
      );
      const read = await client.readResource({ uri: `retained://agent-run/${id}` });
      const contents = read.contents[0] as { text: string };
      assert.equal(contents.text, execFileSync('seq', ['1', '50000'], { encoding: 'utf8' }));
    } finally {
      await client.close();
    }
  });

  it('names peek_value as Claude Code knows it (mcp__retained__peek_value) in a stub for Claude Code', async () => {
    const workspace = tempDir();
    const client = await connect(workspace, 'claude-code');
    try {
      const text = textOf(await client.callTool({ name: 'run_command', arguments: { command: 'seq 1 50000' } }));
      assert.match(text, /Read it with mcp__retained__peek_value: /);
    } finally {
      await client.close();
    }
  });

  it('works on one store at the same time as a language server and a second MCP client', async () => {
    const workspace = tempDir();
    const lsp = await ServerProcess.start({ workspace });
    const [a, b] = [await connect(workspace), await connect(workspace)];
    try {
      const seen = lsp.nextChange('agent-run', 10_000);
      const [fromA, fromB, fromLsp] = await Promise.all([
        a.callTool({ name: 'run_command', arguments: { command: 'seq 1 40000' } }),
        b.callTool({ name: 'run_command', arguments: { command: 'seq 2 40001' } }),
        lsp.request(RetainRequest.type, { runId: 'editor-run', callId: 'c1', tool: 't', text: 'e'.repeat(30_000) }),
      ]);
      await seen;
      const ids = [fromA, fromB].map((r) => /\[retained #(\S+)\]/.exec(textOf(r))![1]!);
      assert.notEqual(ids[0], ids[1]);
      assert.ok(fromLsp.retained);
      const { runs } = await lsp.request(RunsRequest.type, {});
      assert.deepEqual(runs.map((r) => [r.runId, r.valueCount]).sort(), [
        ['agent-run', 2],
        ['editor-run', 1],
      ]);
      const peek = await a.callTool({
        name: 'peek_value',
        arguments: { id: 'c1', runId: 'editor-run', start: 1, end: 1 },
      });
      assert.match(textOf(peek), /^1: e{1000}/);
    } finally {
      await a.close();
      await b.close();
      await lsp.stop();
    }
  });
});
