/** The built server, spawned as a real process, spoken to over stdio in temp folders with real files. */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { PROVIDER_SHAPES } from '../../shared/history';
import {
  AppendRequest,
  DeleteRequest,
  PeekRequest,
  ReplayRequest,
  RetainFileRequest,
  RetainRequest,
  RunsRequest,
  StatusRequest,
  TranscriptRequest,
  ValueFileRequest,
  ValuesRequest,
} from '../../shared/protocol';
import { stripGutters } from '../../shared/stubText';
import { parseValueDocument } from '../../shared/valueDocument';
import { validateHistory } from '../helpers/pairing';
import { ServerProcess } from '../helpers/serverProcess';
import { removeTempDirs, tempDir } from '../helpers/tmp';

const PACKAGE_LOCK = resolve(__dirname, '../../package-lock.json');

describe('language server over stdio', () => {
  let workspace: string;
  let server: ServerProcess;

  beforeEach(async () => {
    workspace = tempDir();
    server = await ServerProcess.start({ workspace });
  });
  afterEach(async () => server.stop());
  after(removeTempDirs);

  it("the seed's scenario: this project's package-lock.json is retained, searched, and rebuilt byte for byte", async () => {
    const lock = readFileSync(PACKAGE_LOCK, 'utf8');
    assert.ok(Buffer.byteLength(lock) > 20480, 'package-lock.json is well over 20 KB');
    const retained = await server.request(RetainRequest.type, {
      runId: 'demo',
      callId: 'toolu_lock',
      tool: 'read_file',
      text: lock,
    });
    assert.equal(retained.retained, true);
    assert.match(retained.content, /^\[retained #toolu_lock\] read_file result: \d+ bytes, \d+ lines/);
    assert.ok(Buffer.byteLength(retained.content) < 2048);
    assert.equal(readFileSync(fileURLToPath(retained.uri!), 'utf8'), lock);
    assert.ok(retained.uri!.startsWith(pathToFileURL(join(workspace, '.retained', 'runs', 'demo.values')).href));

    // A query for one package finds its version and integrity lines.
    const pkg = JSON.parse(lock).packages['node_modules/mocha'] as { version: string; integrity: string };
    const found = await server.request(PeekRequest.type, {
      valueId: 'toolu_lock',
      query: '"node_modules/mocha"',
      context: 4,
    });
    assert.equal(found.matches, 1);
    assert.match(found.text, new RegExp(`^\\d+: +"version": "${pkg.version.replace(/\./g, '\\.')}",$`, 'm'));
    assert.ok(found.text.split('\n').some((l) => l.endsWith(`"integrity": "${pkg.integrity}",`)));

    // Range peeks, following nextStart, rebuild the file after stripGutters.
    const parts: string[] = [];
    for (let start = 1; ; ) {
      const page = await server.request(PeekRequest.type, { valueId: 'toolu_lock', start });
      assert.ok(Buffer.byteLength(page.text) <= 16384);
      parts.push(
        stripGutters(
          page.text
            .split('\n')
            .filter((l) => !l.startsWith('[peek:'))
            .join('\n'),
        ),
      );
      if (!page.nextStart) break;
      start = page.nextStart;
    }
    assert.equal(`${parts.join('\n')}\n`, lock);
  });

  it('retains a result from a file: streamed into its value byte for byte, with the stub a text gets; a path that is no file is refused', async () => {
    const lines = Array.from({ length: 400_000 }, (_, i) => `${i} compiling module ${i} of the build`);
    lines[250_000] = 'error: the one in the middle';
    const text = `${lines.join('\n')}\n`;
    writeFileSync(join(workspace, 'build.log'), text);
    const fromFile = await server.request(RetainFileRequest.type, {
      runId: 'files',
      callId: 'c_file',
      tool: 'run_command',
      path: 'build.log',
    });
    assert.equal(fromFile.retained, true);
    assert.equal(fromFile.bytes, Buffer.byteLength(text));
    assert.ok(readFileSync(fileURLToPath(fromFile.uri!)).equals(Buffer.from(text)), 'the value holds the file');
    assert.match(fromFile.content, /error at line 250001/);
    const fromText = await server.request(RetainRequest.type, {
      runId: 'files',
      callId: 'c_text',
      tool: 'run_command',
      text,
    });
    assert.equal(fromFile.content, fromText.content.replaceAll('c_text', 'c_file'));
    // Small: the file's text itself goes to the model, as a small text does.
    writeFileSync(join(workspace, 'small.txt'), 'ok\n');
    const small = await server.request(RetainFileRequest.type, {
      runId: 'files',
      callId: 'c_small',
      tool: 'run_command',
      path: join(workspace, 'small.txt'),
    });
    assert.deepEqual([small.retained, small.content], [false, 'ok\n']);
    for (const path of ['missing.log', '.', '/dev/null'])
      await assert.rejects(
        server.request(RetainFileRequest.type, { runId: 'files', callId: 'c_bad', tool: 't', path }),
        (err: { code: number; message: string }) => err.code === -32602 && err.message.includes(JSON.stringify(path)),
        path,
      );
    assert.ok(await server.stillServes('files', 'c_after'));
  });

  it('records a whole run and lists, pages, replays and deletes it', async () => {
    await server.request(AppendRequest.type, {
      runId: 'r1',
      event: { type: 'run_started', tools: ['read_file', 'peek_value'], model: 'm', agent: 'test' },
    });
    await server.request(AppendRequest.type, { runId: 'r1', event: { type: 'user', text: 'what is in big.txt?' } });
    await server.request(AppendRequest.type, {
      runId: 'r1',
      event: { type: 'assistant', toolCalls: [{ id: 'call_1', name: 'read_file', arguments: { path: 'big.txt' } }] },
    });
    const text = Array.from({ length: 3000 }, (_, i) => `big ${i}`).join('\n');
    const live = await server.request(RetainRequest.type, {
      runId: 'r1',
      callId: 'call_1',
      tool: 'read_file',
      text,
      turn: 0,
    });
    await server.request(AppendRequest.type, { runId: 'r1', event: { type: 'turn_ended', stopReason: 'end_turn' } });

    const { runs } = await server.request(RunsRequest.type, {});
    assert.deepEqual(
      runs.map((r) => [r.runId, r.valueCount, r.valueBytes]),
      [['r1', 1, Buffer.byteLength(text)]],
    );
    const { values } = await server.request(ValuesRequest.type, { runId: 'r1' });
    assert.equal(values[0]!.tool, 'read_file');
    assert.equal(values[0]!.lines, 3000);
    const page = await server.request(TranscriptRequest.type, { runId: 'r1', from: 1, limit: 2 });
    assert.deepEqual(
      page.events.map((e) => e.type),
      ['user', 'assistant'],
    );

    const replay = await server.request(ReplayRequest.type, { runId: 'r1', shape: 'structured' });
    assert.ok(replay.shape === 'structured');
    assert.deepEqual(replay.messages[2]!.content[0], {
      type: 'tool_result',
      tool_use_id: 'call_1',
      content: live.content,
    });

    for (const shape of PROVIDER_SHAPES) {
      const projected = await server.request(ReplayRequest.type, { runId: 'r1', shape });
      assert.ok(projected.shape === shape && 'messages' in projected);
      assert.deepEqual(validateHistory(shape, projected.messages), [], shape);
      assert.ok(
        JSON.stringify(projected.messages).includes(JSON.stringify(live.content)),
        `${shape} carries the live stub`,
      );
    }

    const withStats = await server.request(ReplayRequest.type, {
      runId: 'r1',
      shape: 'anthropic',
      policy: { keepRounds: 1 },
      stats: true,
    });
    assert.ok(withStats.shape === 'anthropic' && withStats.stats);
    assert.ok(
      withStats.stats.tokensSent < withStats.stats.tokensNaive,
      'the stub costs fewer tokens than the full result',
    );
    await assert.rejects(
      server.request(ReplayRequest.type, {
        runId: 'r1',
        shape: 'anthropic',
        policy: { inlineMaxBytes: 'big' as never },
      }),
      /params\.policy\.inlineMaxBytes must be a whole number \(got a string, "big"\)/,
    );

    await server.request(DeleteRequest.type, { runId: 'r1', valueId: 'call_1' });
    const after = await server.request(ReplayRequest.type, { runId: 'r1', shape: 'text' });
    assert.ok(
      after.shape === 'text' &&
        after.text.includes('[retained #call_1] read_file result') &&
        after.text.includes('its value was deleted from the store'),
      'with the value gone, the replay says so',
    );
    assert.ok(!after.text.includes(text), 'and does not bring the full text back unasked');
    await server.request(DeleteRequest.type, { runId: 'r1' });
    assert.deepEqual((await server.request(RunsRequest.type, {})).runs, []);
  });

  it('answers bad params with InvalidParams naming the field, and keeps serving', async () => {
    const cases: [string, unknown, RegExp][] = [
      [RetainRequest.method, { runId: 'r', callId: 'c', tool: 't' }, /params\.text is required \(a string\)/],
      [
        RetainFileRequest.method,
        { runId: 'r', callId: 'c', tool: 't', path: 'x', text: 'y' },
        /params\.text is not a known field/,
      ],
      [RetainRequest.method, { runId: 'r', tool: 't', text: 'x' }, /params\.callId is required \(a string\)/],
      [
        RetainRequest.method,
        { runId: 'r', callId: 'c', tool: 't', text: 'x', args: {} },
        /params\.args is not a known field \(did you mean arguments\?\)/,
      ],
      [
        RetainRequest.method,
        { runId: 'r', callId: 'c', tool: 't', text: 'x', is_error: true },
        /params\.is_error is not a known field \(did you mean isError\?\)/,
      ],
      [RetainRequest.method, [1, 2], /params must be an object \(got an array\)/],
      [PeekRequest.method, { valueId: 'missing' }, /no retained value "missing"/],
      [PeekRequest.method, { valueId: 5 }, /params\.valueId must be a string \(got number 5\)/],
      [
        PeekRequest.method,
        { valueId: 'x', query: 'a', regex: 'false' },
        /params\.regex must be a boolean \(got a string, "false"\)/,
      ],
      [AppendRequest.method, { runId: 'r', event: { type: 'user' } }, /params\.event\.text is required \(a string\)/],
      [
        AppendRequest.method,
        { runId: 'r', event: { type: 'assistant', toolCalls: [{ id: 'c1', name: 'read', args: { path: 'a' } }] } },
        /params\.event\.toolCalls\[0\]\.args is not a known field \(did you mean arguments\?\)/,
      ],
      [
        ReplayRequest.method,
        { runId: 'r', shape: 'html' },
        /params\.shape must be one of "text", "structured", "anthropic", "openai-chat", "openai-responses"/,
      ],
      [
        TranscriptRequest.method,
        { runId: 'r', from: -1 },
        /params\.from must be a whole number of at least 0 \(got -1\)/,
      ],
      [RunsRequest.method, { runIds: 5 }, /params\.runIds must be an array \(got number 5\)/],
      [StatusRequest.method, { verbose: true }, /params\.verbose is not a known field/],
      [DeleteRequest.method, { runId: 'r', valueId: null }, /params\.valueId must be a string \(got null\)/],
    ];
    for (const [method, params, message] of cases) {
      await assert.rejects(server.raw(method, params), (err: { code: number; message: string }) => {
        assert.equal(err.code, -32602, method);
        assert.match(err.message, message);
        return true;
      });
    }
    const ok = await server.request(RetainRequest.type, { runId: 'r', callId: 'c', tool: 't', text: 'fine' });
    assert.equal(ok.content, 'fine');
  });

  it('sends one retained/changed per change: an append, a retain that writes a value', async () => {
    const count = (runId: string) => server.changed.filter((id) => id === runId).length;
    await server.request(AppendRequest.type, { runId: 'once', event: { type: 'user', text: 'a' } });
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(count('once'), 1, 'one append, one notice (not the write and the watcher echo of it)');
    await server.request(RetainRequest.type, { runId: 'once', callId: 'c1', tool: 't', text: 'z'.repeat(40_000) });
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(count('once'), 2, 'a retain writes a value, its sidecars and an event: one more notice');
  });

  it('notifies retained/changed for its own writes and for another process writing the same store', async () => {
    const own = server.nextChange('shared');
    await server.request(AppendRequest.type, { runId: 'shared', event: { type: 'user', text: 'a' } });
    await own;
    const other = await ServerProcess.start({ workspace });
    try {
      const seen = server.nextChange('shared');
      await other.request(RetainRequest.type, { runId: 'shared', callId: 'x', tool: 't', text: 'y'.repeat(30000) });
      await seen;
      const fresh = server.nextChange('fresh-run');
      await other.request(AppendRequest.type, { runId: 'fresh-run', event: { type: 'user', text: 'b' } });
      await fresh;
    } finally {
      await other.stop();
    }
  });

  it('makes [retained #id] in an open document a link to the value, with a hover preview', async () => {
    const output = Array.from({ length: 5000 }, (_, i) => `hit ${i}`).join('\n');
    const r = await server.request(RetainRequest.type, { runId: 'r', callId: 'toolu_9', tool: 'grep', text: output });
    const uri = pathToFileURL(join(workspace, 'notes.md')).href;
    const text = `Earlier the agent saw:\n${r.content}\nand [retained #unknown_id] too.`;
    await server.connection.sendNotification('textDocument/didOpen', {
      textDocument: { uri, languageId: 'markdown', version: 1, text },
    });
    const links = await server.raw<{ range: { start: { line: number; character: number } }; target: string }[]>(
      'textDocument/documentLink',
      { textDocument: { uri } },
    );
    assert.equal(links.length, 1);
    // The value's read-only document, by its ids; the server resolves them to the file.
    assert.equal(links[0]!.target, `retained-value:/r/toolu_9.txt?run=r&value=toolu_9`);
    const file = await server.request(ValueFileRequest.type, parseValueDocument(links[0]!.target.split('?')[1]!)!);
    assert.deepEqual(file, { uri: r.uri, bytes: Buffer.byteLength(output), valueId: 'toolu_9' });
    assert.equal(readFileSync(fileURLToPath(file.uri), 'utf8'), output);
    assert.deepEqual(links[0]!.range.start, { line: 1, character: 0 });
    const hover = await server.raw<{ contents: { value: string } }>('textDocument/hover', {
      textDocument: { uri },
      position: { line: 1, character: 5 },
    });
    assert.match(hover.contents.value, /\*\*Retained value #toolu_9\*\*: grep, \d+(\.\d)? KiB, 5,000 lines/);
    assert.match(hover.contents.value, /1: hit 0\n2: hit 1/);
  });
});

describe('language server settings', () => {
  after(removeTempDirs);

  it('refuses at initialize a peek cap not below the threshold, saying why', async () => {
    await assert.rejects(
      ServerProcess.start({ workspace: tempDir(), settings: { thresholdBytes: 8192, peekMaxBytes: 16384 } }),
      /settings\.peekMaxBytes \(16384\) must be below settings\.thresholdBytes \(8192\)/,
    );
  });

  it('applies a settings change without a restart', async () => {
    const server = await ServerProcess.start({ workspace: tempDir() });
    try {
      const text = 'z'.repeat(10000);
      assert.equal(
        (await server.request(RetainRequest.type, { runId: 'r', callId: 'a', tool: 't', text })).retained,
        false,
      );
      await server.connection.sendNotification('workspace/didChangeConfiguration', {
        settings: { retained: { settings: { thresholdBytes: 8192, peekMaxBytes: 4096 } } },
      });
      assert.equal(
        (await server.request(RetainRequest.type, { runId: 'r', callId: 'b', tool: 't', text })).retained,
        true,
      );
    } finally {
      await server.stop();
    }
  });

  it('answers a request sent right after a store root changed from the new store, never the old one', async () => {
    const other = join(tempDir(), 'other-store');
    const writer = await ServerProcess.start({ workspace: tempDir(), storeRoot: other });
    await writer.request(AppendRequest.type, { runId: 'elsewhere', event: { type: 'user', text: 'hi' } });
    await writer.stop();
    const server = await ServerProcess.start({ workspace: tempDir() });
    try {
      await server.request(AppendRequest.type, { runId: 'here', event: { type: 'user', text: 'hi' } });
      // As the extension does: the notification, then at once the request, with no answer between.
      void server.connection.sendNotification('workspace/didChangeConfiguration', {
        settings: { retained: { storeRoot: other } },
      });
      const { runs } = await server.request(RunsRequest.type, {});
      assert.deepEqual(
        runs.map((r) => r.runId),
        ['elsewhere'],
      );
    } finally {
      await server.stop();
    }
  });
});
