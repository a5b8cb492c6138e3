/**
 * `retained/export`: a run as JSON, Markdown or one HTML file. Hostile tool output stays text
 * in all three (no element made, no fence closed early), the JSON holds the protocol's shapes,
 * and one model call's report holds only what that call was sent.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { RetentionService } from '../../server/src/core/service';
import { USAGE_PARTS } from '../../shared/usage';
import { removeTempDirs, tempDir } from '../helpers/tmp';

const HOSTILE = '<script>alert(1)</script> ``` \n```text\n</pre><img src=x onerror=alert(2)>';

async function recorded() {
  const s = new RetentionService(join(tempDir(), '.retained'), { indexImports: false });
  await s.init();
  const runId = 'bug-report';
  await s.retainer.append({
    runId,
    event: { type: 'run_started', tools: ['sh', 'peek_value'], model: 'claude-sonnet-4-5' },
  });
  await s.retainer.append({ runId, event: { type: 'user', text: 'Why does it fail?' } });
  await s.retainer.append({
    runId,
    event: { type: 'assistant', toolCalls: [{ id: 'c1', name: 'sh', arguments: { cmd: 'cat notes' } }] },
  });
  await s.retainer.retain({ runId, callId: 'c1', tool: 'sh', text: HOSTILE });
  await s.retainer.append({
    runId,
    event: { type: 'assistant', toolCalls: [{ id: 'c2', name: 'sh', arguments: { cmd: 'make' } }] },
  });
  await s.retainer.retain({ runId, callId: 'c2', tool: 'sh', text: `${'build line\n'.repeat(5000)}error: boom\n` });
  await s.retainer.append({ runId, event: { type: 'assistant', text: 'The build fails at the end.' } });
  return { s, runId };
}

describe('retained/export', () => {
  after(removeTempDirs);

  it('HTML: one file, no script, nothing loaded from elsewhere, every text escaped', async () => {
    const { s, runId } = await recorded();
    const { text } = await s.inspection.export({ runId, format: 'html' });
    assert.match(text, /^<!DOCTYPE html>/);
    assert.match(text, /Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'"/);
    // The only elements are the report's own: the result's tags are text.
    const tags = new Set([...text.matchAll(/<([a-z][a-z0-9]*)/gi)].map((m) => m[1]!.toLowerCase()));
    const own = [
      'html',
      'head',
      'meta',
      'title',
      'style',
      'body',
      'h1',
      'h2',
      'h3',
      'p',
      'table',
      'thead',
      'tbody',
      'tr',
      'th',
      'td',
      'em',
      'section',
      'pre',
    ];
    assert.deepEqual(
      [...tags].filter((t) => !own.includes(t)),
      [],
    );
    assert.match(text, /&lt;img src=x onerror=alert\(2\)&gt;/);
    assert.match(text, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    assert.match(text, /retained #c2/, 'the big result named by its value');
    assert.match(text, /<td>\$0\.\d{4}<\/td>/, 'priced');
  });

  it('Markdown: hostile backticks never close the fence; the figures are a table', async () => {
    const { s, runId } = await recorded();
    const { text } = await s.inspection.export({ runId, format: 'markdown' });
    const at = text.indexOf('alert(1)');
    const before = text.slice(0, at);
    const fence = /(`{3,})text\n[^`]*$/.exec(before.slice(before.lastIndexOf('\n#')))?.[1];
    assert.ok(fence && fence.length > 3, 'a fence longer than the run of backticks in the result');
    assert.ok(text.indexOf(`\n${fence}\n`, at) > at, 'closed after the result, by the same fence');
    assert.match(
      text,
      /\| model call \| tokens \| cache read \| cache write \| output \| USD \| basis \| largest parts \|/,
    );
    assert.match(text, /^\| total \| \d+ \|/m);
    // Numbered as the inspector numbers them (from #0), its parts named in words, not field names.
    assert.match(text, /^### #0 /m);
    assert.doesNotMatch(text, /^### 1\. /m);
    assert.doesNotMatch(text, /toolResults|toolInputs|systemPrompt/);
  });

  it('Markdown and HTML: terminal escapes and bidirectional controls in an output are named, never sent on', async () => {
    const s = new RetentionService(join(tempDir(), '.retained'), { indexImports: false });
    await s.init();
    const runId = 'escapes';
    await s.retainer.append({ runId, event: { type: 'user', text: 'show it' } });
    await s.retainer.append({
      runId,
      event: { type: 'assistant', toolCalls: [{ id: 'c1', name: 'sh', arguments: { cmd: 'cat log' } }] },
    });
    // A title set, the screen cleared, and text that reads backwards: all a `cat report.md` would run.
    const raw = '\u001b]0;owned\u0007\u001b[2J\u001b[31mred\u001b[0m safe\u202egnp.exe\u202c\tend';
    await s.retainer.retain({ runId, callId: 'c1', tool: 'sh', text: raw });
    for (const format of ['markdown', 'html'] as const) {
      const { text } = await s.inspection.export({ runId, format });
      // biome-ignore lint/suspicious/noControlCharactersInRegex: no control character may be left.
      assert.doesNotMatch(text, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/, format);
      assert.ok(
        text.includes('\\x1b[31mred\\x1b[0m safe\\u202egnp.exe\\u202c\tend'),
        `${format}: named where they were`,
      );
    }
  });

  it("JSON: the protocol's shapes; one model call's report holds only what it was sent", async () => {
    const { s, runId } = await recorded();
    const whole = JSON.parse((await s.inspection.export({ runId, format: 'json' })).text);
    assert.equal(whole.run.runId, runId);
    assert.equal(whole.events.length, 7);
    assert.equal(whole.outline.events, 7);
    for (const call of whole.usage.modelCalls)
      assert.equal(
        USAGE_PARTS.reduce((n: number, p) => n + call.parts[p], 0),
        call.total,
      );
    const second = JSON.parse((await s.inspection.export({ runId, format: 'json', modelCall: 2 })).text);
    assert.equal(second.modelCall, 2);
    assert.deepEqual(
      second.usage.modelCalls.map((c: { modelCall: number }) => c.modelCall),
      [2],
    );
    assert.equal(second.events.length, second.usage.modelCalls[0].cut);
    await assert.rejects(s.inspection.export({ runId, format: 'json', modelCall: 9 }), /model call 9 is past/);
    await assert.rejects(s.inspection.export({ runId, format: 'pdf' as never }), /format/);
  });
});
