import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { resultText } from '../../server/src/core/history/replay';
import { RetentionService } from '../../server/src/core/service';
import { type Block, PROVIDER_SHAPES } from '../../shared/history';
import { folderOf } from '../helpers/folderOf';
import { validateHistory } from '../helpers/pairing';
import { makeReadOnly, makeWritable, removeTempDirs, tempDir } from '../helpers/tmp';

const body = (tag: string) => Array.from({ length: 100 }, (_, i) => `${tag} line ${i}`).join('\n'); // ~1.5 KB: under the threshold

/** Four rounds: read a, run a failing command, read a again (identical), grep (exempt). */
async function recordedRun() {
  const s = new RetentionService(join(tempDir(), '.retained'));
  await s.init();
  await s.retainer.append({ runId: 'r', event: { type: 'user', text: 'go' } });
  const round = async (id: string, tool: string, text: string, isError = false) => {
    await s.retainer.append({
      runId: 'r',
      event: { type: 'assistant', toolCalls: [{ id, name: tool, arguments: { n: id } }] },
    });
    await s.retainer.retain({ runId: 'r', callId: id, tool, text, isError });
  };
  await round('c1', 'read_file', body('alpha'));
  await round('c2', 'bash', body('boom'), true);
  await round('c3', 'read_file', body('alpha'));
  await round('c4', 'grep', body('hits'));
  await round('c5', 'read_file', body('newest'));
  await s.retainer.append({ runId: 'r', event: { type: 'turn_ended', stopReason: 'end_turn' } });
  return s;
}

const results = (messages: readonly { content: readonly unknown[] }[]) =>
  new Map(
    messages
      .flatMap((m) => m.content as Block[])
      .flatMap((b: Block) =>
        b.type === 'tool_result' ? [[b.tool_use_id, { ...b, content: resultText(b) }] as const] : [],
      ),
  );

describe('history policy: older results as references', () => {
  after(removeTempDirs);

  it('keeps the newest round intact and turns older bodies into references to stored values', async () => {
    const s = await recordedRun();
    const replay = await s.history.replay({
      runId: 'r',
      shape: 'structured',
      policy: { keepRounds: 1, inlineMaxBytes: 1024, exemptTools: ['grep'] },
    });
    assert.ok(replay.shape === 'structured');
    const r = results(replay.messages);
    assert.equal(r.get('c5')!.content, body('newest'), 'the newest round is intact');
    assert.equal(r.get('c4')!.content, body('hits'), 'exempt tools stay inline');
    assert.match(
      r.get('c1')!.content,
      /^\[retained #c1\] read_file result: \d+ bytes, 100 lines, an earlier result kept out of context; read it with peek_value$/,
    );
    const stored = readFileSync(join(folderOf(s.store).valuesDir('r'), 'c1.txt'), 'utf8');
    assert.equal(stored, body('alpha'), 'the reference points at the full, byte-identical body');
    assert.equal((await s.values.peek({ valueId: 'c1', start: 2, end: 2 })).text, '2: alpha line 1');
  });

  it("never archives a stub under the id it names: peek of that id is never the stub's text", async () => {
    // A hooked session imported into another store: its result is the hook's stub, over 1 KiB.
    const s = new RetentionService(join(tempDir(), '.retained'));
    await s.init();
    const stub = `[retained #toolu_big] Bash result: 691292 bytes, 80000 lines, kept out of context\n${body('preview')}`;
    await s.retainer.append({ runId: 'r', event: { type: 'user', text: 'go' } });
    for (const [id, text] of [
      ['toolu_big', stub],
      ['c9', body('newest')],
    ] as const) {
      await s.retainer.append({
        runId: 'r',
        event: { type: 'assistant', toolCalls: [{ id, name: 'Bash', arguments: {} }] },
      });
      await s.retainer.retain({ runId: 'r', callId: id, tool: 'Bash', text });
    }
    await s.history.replay({ runId: 'r', shape: 'structured', policy: { keepRounds: 1, inlineMaxBytes: 1024 } });
    const ids = (await s.store.values.listFiles('r')).map((v) => v.valueId);
    assert.ok(!ids.includes('toolu_big'), `no value under the stub's own id (${ids.join(', ')})`);
    assert.equal(ids.length, 1, 'the stub is archived under an id of its own');
  });

  it('keeps failure identity: an error stays an error in its reference', async () => {
    const s = await recordedRun();
    const replay = await s.history.replay({ runId: 'r', shape: 'anthropic', policy: {} });
    assert.ok(replay.shape === 'anthropic');
    const c2 = results(replay.messages).get('c2')!;
    assert.ok(c2.type === 'tool_result' && c2.is_error === true);
    assert.match(c2.content, /^\[retained #c2\] bash error:/);
  });

  it('stores identical results once, and both share one reference', async () => {
    const s = await recordedRun();
    const replay = await s.history.replay({ runId: 'r', shape: 'structured', policy: { keepRounds: 1 } });
    assert.ok(replay.shape === 'structured');
    const r = results(replay.messages);
    assert.equal(r.get('c3')!.content, r.get('c1')!.content);
    assert.equal(existsSync(join(folderOf(s.store).valuesDir('r'), 'c3.txt')), false, 'no second copy');
  });

  it('is byte-identical on every replay and after a restart, and archives nothing twice', async () => {
    const s = await recordedRun();
    const first = JSON.stringify(await s.history.replay({ runId: 'r', shape: 'openai-responses', policy: {} }));
    const files = readdirSync(folderOf(s.store).valuesDir('r')).sort();
    const again = new RetentionService(folderOf(s.store).root);
    assert.equal(
      JSON.stringify(await again.history.replay({ runId: 'r', shape: 'openai-responses', policy: {} })),
      first,
    );
    assert.deepEqual(readdirSync(folderOf(s.store).valuesDir('r')).sort(), files);
  });

  it('passes every provider’s pairing rules', async () => {
    const s = await recordedRun();
    for (const shape of PROVIDER_SHAPES) {
      const replay = await s.history.replay({ runId: 'r', shape: shape, policy: { keepRounds: 2 } });
      assert.ok('messages' in replay);
      assert.deepEqual(validateHistory(shape, replay.messages), [], shape);
    }
  });

  it('fails with a clear error, dropping nothing, when an older body cannot be archived', async () => {
    const s = new RetentionService(join(tempDir(), '.retained'));
    await s.init();
    await s.retainer.append({
      runId: 'r',
      event: { type: 'assistant', toolCalls: [{ id: 'a', name: 't', arguments: {} }] },
    });
    await s.retainer.retain({ runId: 'r', callId: 'a', tool: 't', text: body('xxxxxxxx') });
    await s.retainer.append({
      runId: 'r',
      event: { type: 'assistant', toolCalls: [{ id: 'b', name: 't', arguments: {} }] },
    });
    await s.retainer.retain({ runId: 'r', callId: 'b', tool: 't', text: 'small' });
    makeReadOnly(folderOf(s.store).runsDir);
    try {
      await assert.rejects(
        s.history.replay({ runId: 'r', shape: 'structured', policy: {} }),
        /the result of call a could not be archived as a reference .*no projection was made/,
      );
      const plain = await s.history.replay({ runId: 'r', shape: 'structured' });
      assert.ok(plain.shape === 'structured' && JSON.stringify(plain.messages).includes('xxxxxxxx line 99'));
    } finally {
      makeWritable(folderOf(s.store).runsDir);
    }
  });

  it('reports bytes and tokens sent against a naive replay, per message and in total', async () => {
    const s = await recordedRun();
    const replay = await s.history.replay({ runId: 'r', shape: 'openai-chat', policy: {}, stats: true });
    assert.ok(replay.shape !== 'text' && replay.stats);
    const { stats } = replay;
    assert.ok(stats.tokensSent < stats.tokensNaive && stats.bytesSent < stats.bytesNaive);
    assert.ok(stats.tokensSent > 0);
    assert.match(stats.tokenizer, /o200k_base/);
    assert.equal(stats.perMessage.length, replay.messages.length);
    assert.equal(
      stats.perMessage.reduce((n, m) => n + m.tokensSent, 0),
      stats.tokensSent,
    );
  });

  it('names the field of a bad policy', async () => {
    const s = await recordedRun();
    await assert.rejects(
      s.history.replay({ runId: 'r', shape: 'structured', policy: { keepRounds: -1 } }),
      /policy\.keepRounds must be a whole number from 0 to 1000 \(got -1\)/,
    );
    await assert.rejects(
      s.history.replay({ runId: 'r', shape: 'structured', policy: { exemptTools: 'grep' as never } }),
      /params\.policy\.exemptTools must be an array \(got a string/,
    );
  });
});

describe('history policy from the settings', () => {
  after(removeTempDirs);

  it('policy: true uses the configured policy; a request may override it', async () => {
    const s = await recordedRun();
    s.updateSettings({ history: { keepRounds: 4 } });
    const configured = await s.history.replay({ runId: 'r', shape: 'structured', policy: true });
    assert.ok(configured.shape === 'structured');
    assert.equal(results(configured.messages).get('c2')!.content, body('boom'), 'four newest rounds intact');
    assert.match(results(configured.messages).get('c1')!.content, /^\[retained #c1\]/);
    const overridden = await s.history.replay({ runId: 'r', shape: 'structured', policy: { keepRounds: 1 } });
    assert.ok(overridden.shape === 'structured');
    assert.match(results(overridden.messages).get('c2')!.content, /^\[retained #c2\]/);
  });
});

describe('history policy: older inputs as references', () => {
  after(removeTempDirs);
  const file = Array.from({ length: 200 }, (_, i) => `export const line${i} = ${i};`).join('\n'); // ~5 KB

  async function writesRun() {
    const s = new RetentionService(join(tempDir(), '.retained'));
    await s.init();
    await s.retainer.append({ runId: 'w', event: { type: 'user', text: 'write it twice' } });
    for (const id of ['w1', 'w2', 'w3']) {
      await s.retainer.append({
        runId: 'w',
        event: {
          type: 'assistant',
          toolCalls: [
            {
              id,
              name: 'Write',
              arguments: { file_path: `/src/${id}.ts`, content: file, edits: [{ old_string: 'x', new_string: file }] },
            },
          ],
        },
      });
      await s.retainer.retain({ runId: 'w', callId: id, tool: 'Write', text: 'ok' });
    }
    return s;
  }

  it('replaces large string arguments of older calls, keeping the arguments shape and small fields', async () => {
    const s = await writesRun();
    const replay = await s.history.replay({ runId: 'w', shape: 'structured', policy: {} });
    assert.ok(replay.shape === 'structured');
    const uses = replay.messages.flatMap((m) => m.content).flatMap((b) => (b.type === 'tool_use' ? [b] : []));
    const first = uses[0]!.input as {
      file_path: string;
      content: string;
      edits: { old_string: string; new_string: string }[];
    };
    assert.equal(first.file_path, '/src/w1.ts', 'small arguments untouched');
    assert.match(
      first.content,
      /^\[retained #w1-input-content\] Write input content: \d+ bytes, 200 lines, elided from an earlier call; read it with peek_value$/,
    );
    assert.equal(first.edits[0]!.old_string, 'x');
    assert.match(
      first.edits[0]!.new_string,
      /^\[retained #w1-input-content\] Write input edits\[0\]\.new_string: /,
      'identical input content shares one value',
    );
    assert.equal((uses[2]!.input as { content: string }).content, file, 'the newest round keeps its input');
    assert.equal(
      (await s.values.peek({ valueId: 'w1-input-content', start: 200, end: 200 })).text,
      '200: export const line199 = 199;\n\\ No newline at end of file',
    );
    for (const shape of PROVIDER_SHAPES) {
      const projected = await s.history.replay({ runId: 'w', shape: shape, policy: {} });
      assert.ok('messages' in projected);
      assert.deepEqual(validateHistory(shape, projected.messages), [], shape);
    }
    const again = new RetentionService(folderOf(s.store).root);
    assert.deepEqual(
      await again.history.replay({ runId: 'w', shape: 'openai-chat', policy: {} }),
      await s.history.replay({ runId: 'w', shape: 'openai-chat', policy: {} }),
    );
  });

  it('leaves inputs of exempt tools and small inputs alone', async () => {
    const s = await writesRun();
    const exempt = await s.history.replay({ runId: 'w', shape: 'structured', policy: { exemptTools: ['Write'] } });
    assert.ok(exempt.shape === 'structured' && !JSON.stringify(exempt.messages).includes('[retained #'));
    const roomy = await s.history.replay({ runId: 'w', shape: 'structured', policy: { inputMaxBytes: 100_000 } });
    assert.ok(roomy.shape === 'structured' && !JSON.stringify(roomy.messages).includes('input content'));
  });
});
