/**
 * The inspector in a real VS Code (code-server + Chromium): opened from the tree, the status
 * bar and the command palette; both columns; a stub click opening the value; the model call
 * selector and the history policy; a live run; hostile tool output; restore after a reload;
 * and a 10,000-event run with 50 MB results, timed. Screenshots go to test-output/e2e/.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FrameLocator, Locator } from 'playwright-core';
import { recordDemoRun } from '../../scripts/demoRun';
import { ROOT } from '../../scripts/tools';
import { AppendRequest, ImportRequest, RetainRequest, WithholdRequest } from '../../shared/protocol';
import { BIG_RUN, recordBigRun } from '../helpers/bigRun';
import { ServerProcess } from '../helpers/serverProcess';
import { newWorkspace, valueFiles } from './fixtures';
import { OUTPUT, poll, VSCode } from './harness';

/** Tool output built to break a careless renderer. */
const HOSTILE_LINES = [
  '<script>window.__pwned = "script"</script>',
  '<img src=x onerror="window.__pwned = \'img\'">',
  '<a href="javascript:window.__pwned = \'link\'">click me</a>',
  '<style>* { display: none !important }</style>',
  '\u001b[31mred text\u001b[0m then a bell \u0007',
  'invalid UTF-8 decoded: \ufffd\ufffd and a lone surrogate \ud800',
];

describe('The inspector in a real VS Code', () => {
  let vs: VSCode;
  let workspace: string;
  const cspViolations: string[] = [];

  before(async function () {
    this.timeout(600_000);
    workspace = newWorkspace();
    await recordDemoRun(workspace);
    const server = await ServerProcess.start({ workspace });
    try {
      const runId = 'hostile-run';
      await server.request(AppendRequest.type, { runId, event: { type: 'run_started', tools: ['sh', 'peek_value'] } });
      await server.request(AppendRequest.type, { runId, event: { type: 'user', text: 'Show me the page.' } });
      await server.request(AppendRequest.type, {
        runId,
        event: {
          type: 'assistant',
          toolCalls: [
            { id: 'h1', name: 'sh', arguments: { cmd: 'cat page.html' } },
            { id: 'h2', name: 'sh', arguments: { cmd: 'cat one-line.min.js' } },
          ],
        },
      });
      // Retained, with the hostile lines in the stub's preview; and a 1 MB single line.
      await server.request(RetainRequest.type, {
        runId,
        callId: 'h1',
        tool: 'sh',
        text: `${HOSTILE_LINES.join('\n')}\n${'filler line\n'.repeat(3000)}${HOSTILE_LINES.join('\n')}\n`,
      });
      await server.request(RetainRequest.type, { runId, callId: 'h2', tool: 'sh', text: `${'<b>'.repeat(350_000)}\n` });
      await server.request(AppendRequest.type, { runId, event: { type: 'assistant', text: HOSTILE_LINES.join('\n') } });
      // A run whose agent's guard withheld a result.
      const guarded = 'guarded-run';
      await server.request(AppendRequest.type, { runId: guarded, event: { type: 'user', text: 'Deploy it.' } });
      await server.request(AppendRequest.type, {
        runId: guarded,
        event: { type: 'assistant', toolCalls: [{ id: 'toolu_deploy', name: 'deploy', arguments: { env: 'prod' } }] },
      });
      await server.request(WithholdRequest.type, {
        runId: guarded,
        results: [{ callId: 'toolu_deploy', tool: 'deploy', text: 'receipt: LOG.md clobbered\n', reason: 'a policy' }],
      });
      // A run its agent compacted: a retained build log among what the summary replaced.
      const compacted = 'compacted-run';
      const append = (event: Record<string, unknown>) =>
        server.request(AppendRequest.type, { runId: compacted, event: event as never });
      await append({ type: 'run_started', tools: ['sh', 'peek_value'] });
      await append({ type: 'user', text: 'Build it and fix what fails.' });
      await append({ type: 'assistant', toolCalls: [{ id: 'c_build', name: 'sh', arguments: { cmd: 'make' } }] });
      await server.request(RetainRequest.type, {
        runId: compacted,
        callId: 'c_build',
        tool: 'sh',
        text: `${'cc -c module.c\n'.repeat(3000)}error: undefined reference to main\n`,
      });
      await append({ type: 'assistant', toolCalls: [{ id: 'c_ls', name: 'sh', arguments: { cmd: 'ls' } }] });
      await server.request(RetainRequest.type, { runId: compacted, callId: 'c_ls', tool: 'sh', text: 'main.c\n' });
      await append({ type: 'compaction', reason: 'auto', summary: 'The build failed: no main (log #c_build).' });
      await append({ type: 'user', text: 'Go on.' });
      await append({ type: 'assistant', toolCalls: [{ id: 'c_fix', name: 'sh', arguments: { cmd: 'make' } }] });
      await server.request(RetainRequest.type, { runId: compacted, callId: 'c_fix', tool: 'sh', text: 'ok\n' });
      await append({ type: 'assistant', text: 'Fixed: main was missing.' });
      // An imported session: the view switch and the provider's figures.
      await server.request(ImportRequest.type, {
        path: join(ROOT, 'test/fixtures/claude-code/compact-auto/project/68ec047e-1189-4809-b65c-a155a1c3b831.jsonl'),
        runId: 'imported-run',
      });
    } finally {
      await server.stop();
    }
    await recordBigRun(workspace);
    vs = await VSCode.start({ workspace });
    vs.page.on('console', (message) => {
      if (/Content.Security.Policy|Refused to/i.test(message.text())) cspViolations.push(message.text());
    });
  });
  afterEach(async function () {
    await vs.afterTest(this.currentTest, 'inspector-');
  });
  after(async () => vs?.close());

  const frame = (): FrameLocator => vs.page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
  const rows = (): Locator => frame().locator('.row:not(.loading)');
  const rowAt = (index: number): Locator => frame().locator(`.row[data-index="${index}"]`);
  const treeRow = (name: string | RegExp): Locator => vs.page.getByRole('treeitem', { name }).first();

  /** Scrolls the virtualized list until row `index` is rendered, and returns it. */
  async function showRow(index: number): Promise<Locator> {
    const timeline = frame().locator('.timeline');
    const target = rowAt(index);
    for (let step = 0; step < 200 && (await target.count()) === 0; step++) {
      const moved = await timeline.evaluate((el) => {
        const before = el.scrollTop;
        el.scrollTop += el.clientHeight * 0.8;
        return el.scrollTop !== before;
      });
      if (!moved) break;
      await vs.page.waitForTimeout(100);
    }
    await target.locator('.cell').first().waitFor({ timeout: 30_000 });
    await target.scrollIntoViewIfNeeded();
    return target;
  }

  async function closeEditors(): Promise<void> {
    await vs.runCommand('View: Close All Editors');
    await poll(
      'editors to close',
      () => vs.tabTitles(),
      (tabs) => tabs.length === 0,
    );
  }

  /** Switches the workbench's colour theme through the workspace's settings, and waits until it shows. */
  async function setTheme(name: 'light' | 'dark', theme: string): Promise<void> {
    mkdirSync(join(workspace, '.vscode'), { recursive: true });
    writeFileSync(join(workspace, '.vscode', 'settings.json'), JSON.stringify({ 'workbench.colorTheme': theme }));
    await poll(
      `the ${name} theme`,
      () => vs.page.locator('.monaco-workbench').getAttribute('class'),
      (c) => new RegExp(`(^|\\s)${name === 'light' ? 'vs' : 'vs-dark'}(\\s|$)`).test(c ?? ''),
    );
  }

  /** Opens the run's inspector from the command palette; resolves with when the run was picked (Date.now()). */
  async function openFromPalette(runId: string): Promise<number> {
    const pick = vs.page.locator('.quick-input-list .monaco-list-row', { hasText: runId }).first();
    const focused = vs.page.locator('.quick-input-list .monaco-list-row.focused', { hasText: runId }).first();
    // The list may refresh while it is open (a run being written), and an inspector that finishes
    // loading takes the focus and closes it: filter it to the run and take it with Enter, and open
    // it again when it closed, as a person would.
    for (let attempt = 1; ; attempt++) {
      await vs.runCommand('Retained Outputs: Open Inspector');
      const ready = await pick
        .waitFor({ timeout: 20_000 })
        .then(async () => {
          await vs.page.locator('.quick-input-widget input').fill(runId, { timeout: 5_000 });
          await focused.waitFor({ timeout: 10_000 });
          return true;
        })
        .catch(() => false);
      if (ready) break;
      if (attempt === 3) throw new Error(`the run picker did not offer ${runId}`);
      await vs.page.keyboard.press('Escape');
    }
    const picked = Date.now();
    await vs.page.keyboard.press('Enter');
    return picked;
  }

  it('opens from a run in the tree: both columns show the recorded run', async () => {
    if (!(await vs.page.locator('.pane:has(.pane-header[aria-label^="Runs"])').isVisible())) {
      await vs.page.locator('.activitybar [aria-label^="Retained Outputs"]').first().click();
    }
    await treeRow(/demo-run/).waitFor({ timeout: 60_000 });
    await vs.contextMenu(treeRow(/demo-run/), 'Open Inspector');
    await poll(
      'the inspector tab',
      () => vs.tabTitles(),
      (tabs) => tabs.includes('Inspector: demo-run'),
    );
    await rows().first().waitFor({ timeout: 30_000 });

    // The rows come first; the figures follow once counted.
    const header = await poll(
      'the figures below the rows',
      () => frame().locator('.header').innerText(),
      (text) => /All 6 model calls/.test(text),
    );
    assert.match(header, /14 events · 5 tool calls · 1 retained/);
    // Six model calls made; the seventh is the next one, not counted as made.
    assert.match(header, /The next model call/);
    assert.match(header, /6 made so far/);
    assert.match(header, /All 6 model calls/);
    assert.match(header, /sent \d.* tokens/);
    assert.match(await rowAt(1).locator('.cell.full').innerText(), /Which version of mocha/);
    assert.match(await rowAt(1).locator('.cell.model').innerText(), /Which version of mocha/);
    const lock = rowAt(3);
    assert.match(await lock.locator('.cell.full').innerText(), /read_file.*toolu_lock.*KiB/s);
    assert.match(await lock.locator('.cell.full').innerText(), /"name": "retained-outputs"/);
    assert.match(await lock.locator('.cell.model.form-stub').innerText(), /\[retained #toolu_lock\] read_file result/);
    await vs.screenshot('inspector');
    assert.match(
      await (await showRow(11)).locator('.cell.model').innerText(),
      /extension\s+media\s+package\.json/,
      'a small result is sent verbatim',
    );
    await frame()
      .locator('.timeline')
      .evaluate((el) => (el.scrollTop = 0));
    // `UPDATE_SCREENSHOTS=1 npm run test:e2e` refreshes the README's picture.
    if (process.env.UPDATE_SCREENSHOTS)
      copyFileSync(join(OUTPUT, 'inspector.png'), join(ROOT, 'media', 'screenshots', 'inspector.png'));
  });

  it('clicking a stub opens the value in an editor, a preview line at that line', async () => {
    await rowAt(3).locator('.cell.model .value-link', { hasText: '[retained #toolu_lock]' }).click();
    await poll(
      'the value to open',
      () => vs.tabTitles(),
      (tabs) => tabs.includes('toolu_lock · package-lock.json'),
    );
    // The last preview line of the stub links to that line.
    const lineLinks = rowAt(3).locator('.cell.model .value-link', { hasText: /^\d+$/ });
    const last = lineLinks.last();
    const line = Number(await last.innerText());
    await last.click();
    const cursor = vs.page.locator('.statusbar-item', { hasText: /Ln \d+, Col/ }).first();
    await poll(
      'the cursor at the stub line',
      () => cursor.innerText(),
      (text) => text.startsWith(`Ln ${line},`),
    );
    await vs.screenshot('inspector-stub-opened');
    // The stub's peek hint opens the range it names.
    await rowAt(3).locator('.cell.model .value-link', { hasText: '{"id":"toolu_lock","start":1,"end":400}' }).click();
    await poll(
      'lines 1-400 selected',
      () => cursor.innerText(),
      (text) => /\(\d+ selected\)/.test(text) && text.startsWith('Ln 400,'),
    );
  });

  it('shows the model view at an earlier model call, and with the history policy', async () => {
    await vs.page.locator('.tab', { hasText: 'Inspector: demo-run' }).first().click();
    await rows().first().waitFor();
    await frame().locator('vscode-button[aria-label="Previous model call"]').click();
    await poll(
      'model call 6 in the column head',
      () => frame().locator('.columns-head').innerText(),
      (t) => /model call 6$/.test(t.trim()),
    );
    await showRow(12);
    await poll(
      'the last answer not sent yet',
      () => rowAt(12).locator('.cell.model').innerText(),
      (t) => /not in this model call: first sent in the next model call/.test(t),
    );
    await frame().locator('vscode-button', { hasText: 'Latest' }).click();
    await poll(
      'the latest model call again',
      () => frame().locator('.columns-head').innerText(),
      (t) => /the next model call$/.test(t.trim()),
    );
    // The policy: the 5 KB test output of an older round becomes a reference, and nothing is written.
    const valuesBefore = valueFiles(workspace, 'demo-run');
    await frame().locator('vscode-checkbox.policy').click();
    await showRow(9);
    await poll(
      'a reference in the model view',
      () => frame().locator('.cell.model.form-reference').count(),
      (n) => n > 0,
    );
    assert.match(
      await frame().locator('.cell.model.form-reference').first().innerText(),
      /reference.*\[retained #toolu_test\] run_command result: .*an earlier result/s,
    );
    assert.match(await frame().locator('.note-banner').innerText(), /a real replay stores them before it sends/);
    assert.deepEqual(valueFiles(workspace, 'demo-run'), valuesBefore, 'the policy view wrote no value');
    await vs.screenshot('inspector-policy');
    await frame().locator('vscode-checkbox.policy').click();
    await poll(
      'the policy off',
      () => frame().locator('.cell.model.form-reference').count(),
      (n) => n === 0,
    );
  });

  it('searches the whole transcript', async () => {
    const field = frame().locator('vscode-textfield.search-input input');
    await field.fill('node_modules/mocha');
    await field.press('Enter');
    await poll(
      'the match count',
      () => frame().locator('.search-count').innerText(),
      (t) => /^1 \/ \d+$/.test(t.trim()),
    );
    assert.ok((await frame().locator('mark').count()) > 0);
    assert.match(await frame().locator('.hit-where').innerText(), /event #\d+, (result|arguments) line \d+/);
    await vs.screenshot('inspector-search');
  });

  it('"Where the tokens go" shows the model call by part, its cache reads and writes, and says what it is', async () => {
    const summary = frame().locator('details.usage summary');
    await summary.click();
    const body = frame().locator('.usage-body');
    await body.waitFor({ timeout: 30_000 });
    const text = await body.innerText();
    assert.match(text, /model call.*tokens/i);
    assert.match(text, /Prompt cache \(simulated\)/);
    assert.ok((await frame().locator('.usage-bar rect').count()) >= 2, 'a segment per part');
    // While the inspector is in view, the status bar says what the run saved (tokens: its model is not priced).
    await poll(
      "the status bar's saving",
      () =>
        vs.page
          .locator('.statusbar-item', { hasText: /kept out/ })
          .first()
          .innerText(),
      (t) => /kept out · −\d+ % tokens on this run/.test(t),
    );
    await vs.screenshot('inspector-usage');
    await summary.click();
  });

  it('is usable with the keyboard alone: Tab reaches the list, arrows every row and back, Enter into a row, Escape out', async () => {
    const active = () =>
      frame()
        .locator('body')
        .evaluate(() => {
          const el = document.activeElement;
          return {
            role: el?.getAttribute('role') ?? el?.tagName.toLowerCase() ?? '',
            index: Number(el?.getAttribute('data-index') ?? -1),
            label: el?.getAttribute('aria-label') ?? el?.textContent?.slice(0, 40) ?? '',
          };
        });
    const count = Number(await frame().locator('[role="grid"]').getAttribute('aria-rowcount')) - 1;
    assert.ok(count > 10, `${count} events`);
    // From the search field, Tab goes through the header's few controls into the list: not 14 stops a stub.
    await frame().locator('vscode-textfield.search-input input').focus();
    let presses = 0;
    while ((await active()).role !== 'row' && presses < 12) {
      await vs.page.keyboard.press('Tab');
      presses++;
    }
    const first = await active();
    assert.equal(first.role, 'row', `Tab reached the list in ${presses} presses`);
    await vs.page.keyboard.press('Home');
    await poll('the first row', active, (a) => a.index === 0);
    const labels: string[] = [];
    for (let i = 1; i < count; i++) {
      await vs.page.keyboard.press('ArrowDown');
      const at = await poll(`row ${i}`, active, (a) => a.index === i);
      labels.push(at.label);
    }
    assert.ok(
      labels.every((l) => /^Event \d+: /.test(l)),
      'each row says what it is',
    );
    await vs.page.keyboard.press('Home');
    await poll('back at the first row', active, (a) => a.index === 0);
    // Into the stub's row: Enter focuses its first link, Escape goes back to the row.
    for (let i = 0; i < 3; i++) await vs.page.keyboard.press('ArrowDown');
    await poll('the stub row', active, (a) => a.index === 3);
    await vs.page.keyboard.press('ArrowRight');
    await vs.page.keyboard.press('ArrowRight');
    await poll('the model cell', active, (a) => a.role === 'gridcell');
    await vs.page.keyboard.press('Enter');
    await poll('a link in the stub', active, (a) => a.role === 'button' && a.label.includes('retained #toolu_lock'));
    await vs.page.keyboard.press('Escape');
    await poll('back to the cell', active, (a) => a.role === 'gridcell');
    await vs.page.keyboard.press('ArrowLeft');
    await vs.page.keyboard.press('ArrowLeft');
    await poll('back to the row', active, (a) => a.role === 'row' && a.index === 3);
    // Shift+Tab leaves the list for the header, never for the page's body.
    await vs.page.keyboard.press('Shift+Tab');
    const out = await active();
    assert.notEqual(out.role, 'body');
    assert.notEqual(out.role, 'row');
    await vs.screenshot('inspector-keyboard');
  });

  /** axe-core's violations on the inspector shown now, written to test-output/e2e/axe-<name>.json. */
  async function axeViolations(name: string): Promise<{ id: string; impact: string; help: string }[]> {
    const violationsBefore = cspViolations.length;
    const outer = await (await vs.page.locator('iframe.webview.ready').elementHandle())!.contentFrame();
    const inner = await (await outer!.locator('iframe#active-frame').elementHandle())!.contentFrame();
    // Evaluated through the debugger, as a page's own script could not be (the webview's CSP allows none).
    await inner!.evaluate(`${readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8')}\n;true`);
    const violations = (await inner!.evaluate(`window.axe.run(document, { resultTypes: ['violations'] }).then((r) =>
      r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ') + ': ' + n.failureSummary) })))`)) as {
      id: string;
      impact: string;
      help: string;
    }[];
    writeFileSync(join(OUTPUT, `axe-${name}.json`), JSON.stringify(violations, null, 2));
    // axe's own probes set style attributes, which the webview's CSP refuses: those reports are axe's, not ours.
    await vs.page.waitForTimeout(300);
    cspViolations.splice(violationsBefore);
    return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  }

  it('axe-core finds no serious or critical accessibility violation in the real webview', async () => {
    assert.deepEqual(await axeViolations('demo-run'), []);
    // A run with a withheld result: its badges and notices too.
    await openFromPalette('guarded-run');
    await poll(
      'the guarded run',
      () => frame().locator('.withheld-badge').count(),
      (n) => n > 0,
    );
    assert.deepEqual(await axeViolations('guarded-run'), []);
    await vs.runCommand('View: Close Editor');
    // An imported run: its view switch, and "Where the tokens go" open, in both themes.
    await openFromPalette('imported-run');
    await frame().locator('.view-choice vscode-button').first().waitFor({ timeout: 60_000 });
    await frame().locator('details.usage summary').click();
    await frame().locator('details.usage .cache-breaks').waitFor({ timeout: 30_000 });
    for (const [name, theme] of [
      ['light', 'Default Light Modern'],
      ['dark', 'Default Dark Modern'],
    ] as const) {
      await setTheme(name, theme);
      for (const view of [0, 1]) {
        await frame().locator('.view-choice vscode-button').nth(view).click();
        await vs.page.waitForTimeout(300);
        assert.deepEqual(await axeViolations(`imported-run-${name}-${view}`), []);
      }
    }
    await vs.runCommand('View: Close Editor');
    await vs.page.locator('.tab', { hasText: 'Inspector: demo-run' }).first().click();
    await rows().first().waitFor();
  });

  it('an imported, compacted run reads as its figures are: one direction in both views, the next call’s prefix read', async () => {
    await openFromPalette('imported-run');
    await frame().locator('.view-choice vscode-button').first().waitFor({ timeout: 60_000 });
    const usage = frame().locator('details.usage');
    if ((await usage.getAttribute('open')) === null) await usage.locator('summary').click();
    const changes: string[] = [];
    for (const view of [0, 1]) {
      await frame().locator('.view-choice vscode-button').nth(view).click();
      const saving = await poll(
        `the whole-run sentence in view ${view}`,
        () => usage.locator('.usage-saving').innerText(),
        (t) => /With Retained Outputs: /.test(t),
      );
      // "221 % of its tokens" read as "costs 2.2×": the change is said against the run without it.
      assert.doesNotMatch(saving, /% of its/);
      changes.push(saving.replace(/^.*With Retained Outputs: /s, ''));
      const title = await usage.locator('.usage-title').innerText();
      assert.match(title, /^The next model call/);
      // After the compaction the next call is sent with the last call's system prompt and tools.
      const cache = await usage.locator('.usage-cache').innerText();
      assert.doesNotMatch(cache, /the system prompt or the tools changed/);
      assert.doesNotMatch(cache, /: 0 read/);
    }
    assert.match(changes[0]!, /^(\d+ % (fewer|more) tokens|the same tokens)/);
    assert.equal(changes[0], changes[1], 'the same change whichever view is shown');
    await vs.runCommand('View: Close Editor');
    await vs.page.locator('.tab', { hasText: 'Inspector: demo-run' }).first().click();
    await rows().first().waitFor();
  });

  it('follows a live run: events appended by an agent appear without a reload', async () => {
    // At the end of the list, the view follows the run as it grows.
    await showRow(13);
    const server = await ServerProcess.start({ workspace });
    try {
      await server.request(AppendRequest.type, {
        runId: 'demo-run',
        event: { type: 'user', text: 'Live: and which version of esbuild?' },
      });
      await server.request(AppendRequest.type, {
        runId: 'demo-run',
        event: {
          type: 'assistant',
          toolCalls: [{ id: 'toolu_live', name: 'run_command', arguments: { command: 'npm ls esbuild' } }],
        },
      });
      await server.request(RetainRequest.type, {
        runId: 'demo-run',
        callId: 'toolu_live',
        tool: 'run_command',
        text: 'esbuild@0.28.2\n',
      });
    } finally {
      await server.stop();
    }
    await poll(
      'the header to count the new events',
      () => frame().locator('.header .counts').innerText(),
      (t) => t.startsWith('17 events'),
    );
    await poll(
      'the live row',
      () => frame().locator('.row', { hasText: 'Live: and which version of esbuild?' }).count(),
      (n) => n === 1,
    );
    await poll(
      'the live result',
      () => frame().locator('.row', { hasText: 'esbuild@0.28.2' }).count(),
      (n) => n === 1,
    );
    await vs.screenshot('inspector-live');
    // A long message is cut in its cell; the whole of it opens in an editor from the transcript.
    const server2 = await ServerProcess.start({ workspace });
    const pasted = Array.from({ length: 300 }, (_, i) => `pasted line ${i + 1}`).join('\n');
    try {
      await server2.request(AppendRequest.type, { runId: 'demo-run', event: { type: 'user', text: pasted } });
    } finally {
      await server2.stop();
    }
    const cut = frame()
      .locator('.row', { hasText: 'pasted line 1' })
      .locator('.cut-note .link', { hasText: 'Open it all in an editor' });
    await poll(
      'the cut message',
      () => cut.count(),
      (n) => n === 1,
    );
    await cut.click();
    // A read-only document named after the event: never dirty, never asks to be saved.
    await poll(
      'a read-only editor with the whole message',
      () => vs.tabTitles(),
      (tabs) => tabs.some((t) => /^demo-run #\d+\.txt$/.test(t)),
    );
    assert.ok(!(await vs.page.locator('.tabs-container .tab.active').first().getAttribute('class'))?.includes('dirty'));
    const text = await vs.page
      .locator('.editor-group-container.active .editor-instance .view-lines')
      .first()
      .innerText();
    assert.match(text.replace(/\u00a0/g, ' '), /pasted line 1\s+pasted line 2/);
    await vs.runCommand('View: Close Editor');
    await poll(
      'the editor to close, asking nothing',
      () => vs.tabTitles(),
      (tabs) => !tabs.some((t) => /^demo-run #\d+\.txt$/.test(t)),
    );
  });

  it('reads in the light and the dark theme (screenshots)', async () => {
    for (const [name, theme] of [
      ['light', 'Default Light Modern'],
      ['dark', 'Default Dark Modern'],
    ] as const) {
      await setTheme(name, theme);
      await rows().first().waitFor();
      await vs.page.waitForTimeout(500);
      await vs.screenshot(`inspector-${name}`);
      // Where the tokens go, in the same theme: its colours are the theme's chart colours.
      const usage = frame().locator('details.usage');
      await usage.locator('summary').click();
      await usage.locator('.context-chart svg').waitFor();
      await vs.screenshot(`inspector-usage-${name}`);
      await usage.locator('summary').click();
    }
  });

  it('keeps its state when hidden and across a window reload', async () => {
    await frame().locator('vscode-button[aria-label="Previous model call"]').click();
    await poll(
      'model call 7',
      () => frame().locator('.columns-head').innerText(),
      (t) => /model call 7$/.test(t.trim()),
    );
    // Hidden behind another editor in its group (a value opened from the tree), the webview is
    // dropped; shown again, it restores its state.
    await vs.page.locator('.tab', { hasText: 'Inspector: demo-run' }).first().click();
    const demo = treeRow(/demo-run/);
    if ((await demo.getAttribute('aria-expanded')) !== 'true') await demo.click();
    await treeRow(/read_file package-lock\.json/).click();
    await poll(
      'the inspector hidden',
      () => vs.page.locator('iframe.webview.ready').count(),
      (n) => n === 0,
    );
    await vs.page.locator('.tab', { hasText: 'Inspector: demo-run' }).first().click();
    await poll(
      'the state after hiding',
      () =>
        frame()
          .locator('.columns-head')
          .innerText()
          .catch(() => ''),
      (t) => /model call 7$/.test(t.trim()),
    );
    await vs.page.locator('.part.sidebar .title').first().click(); // focus the workbench, not the webview
    // The workbench's own reload: it saves the webview's state before the page goes.
    await vs.runCommand('Developer: Reload Window');
    await vs.page.waitForEvent('load', { timeout: 60_000 });
    await vs.page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await poll(
      'the inspector tab to come back',
      () => vs.tabTitles(),
      (tabs) => tabs.includes('Inspector: demo-run'),
      60_000,
    );
    await vs.page.locator('.tab', { hasText: 'Inspector: demo-run' }).first().click();
    await poll(
      'the restored model call',
      () =>
        frame()
          .locator('.columns-head')
          .innerText()
          .catch(() => ''),
      (t) => /model call 7$/.test(t.trim()),
      60_000,
    );
  });

  it('renders hostile tool output as text and runs none of it (opened from the status bar)', async () => {
    await closeEditors();
    await vs.page
      .locator('.statusbar-item', { hasText: /retained · .* kept out/ })
      .first()
      .click();
    const pick = vs.page.locator('.quick-input-list .monaco-list-row', { hasText: 'hostile-run' }).first();
    await pick.waitFor({ timeout: 20_000 });
    await pick.click();
    await rows().first().waitFor({ timeout: 30_000 });
    const timeline = frame().locator('.timeline');
    for (const selector of ['script', 'img', 'style', 'a[href^="javascript"]', 'b']) {
      assert.equal(await timeline.locator(selector).count(), 0, `no <${selector}> made from tool output`);
    }
    const html = rowAt(3).locator('.cell.full');
    const text = await html.innerText();
    assert.ok(text.includes('<script>window.__pwned = "script"</script>'), 'the script tag is shown as text');
    assert.ok(text.includes('<img src=x onerror='), 'the img tag is shown as text');
    assert.ok(text.includes('␛[31mred text␛[0m then a bell ␇'), 'controls are visible pictures');
    assert.ok(text.includes('\ufffd\ufffd'), 'replacement characters are shown');
    assert.match(
      await rowAt(3).locator('.cell.model.form-stub').innerText(),
      /\[retained #h1\][\s\S]*<script>window\.__pwned/,
    );
    assert.match(
      await rowAt(5).locator('.cell.model').innerText(),
      /<script>window\.__pwned = "script"<\/script>/,
      'the assistant text too',
    );
    // The 1 MB single line: shown cut, with its whole size.
    const oneLine = rowAt(4).locator('.cell.full');
    assert.match(await oneLine.innerText(), /1\.0 MiB · 1 line\b/);
    assert.ok((await oneLine.locator('pre.body').innerText()).length <= 8192);
    await vs.screenshot('inspector-hostile');
    // Nothing ran: the page and both frames are untouched, and no CSP violation was reported.
    const pwned = await frame()
      .locator('body')
      .evaluate(() => (window as unknown as { __pwned?: string }).__pwned ?? null);
    assert.equal(pwned, null);
    assert.equal(await vs.page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned ?? null), null);
    assert.deepEqual(cspViolations, []);
  });

  it('shows a withheld result as the model got it, and opens its original read-only', async () => {
    await closeEditors();
    await openFromPalette('guarded-run');
    await poll(
      'the inspector of the guarded run',
      () => vs.tabTitles(),
      (tabs) => tabs.includes('Inspector: guarded-run'),
    );
    const row = frame()
      .locator('.row', { has: frame().locator('.withheld-badge') })
      .first();
    await row.waitFor({ timeout: 30_000 });
    assert.match(await row.locator('.cell.model').innerText(), /\[withheld\] This tool result was withheld/);
    assert.doesNotMatch(await row.innerText(), /clobbered|a policy/);
    await vs.screenshot('inspector-withheld');
    await row.locator('.open-original').click();
    await poll(
      'the original in an editor',
      () => vs.tabTitles(),
      (tabs) => tabs.some((t) => /withheld-[0-9a-f]{12}-0-toolu_deploy\.txt$/.test(t)),
    );
    await poll(
      'the original text',
      () => vs.page.locator('.editor-group-container .editor-instance .view-lines').first().innerText(),
      (t) => t.replace(/\u00a0/g, ' ').includes('receipt: LOG.md clobbered'),
    );
    // Opened beside, the inspector keeps the focus where it was: the user's row is not lost.
    await poll(
      'the focus still on the row',
      () => row.locator('.open-original:focus').count(),
      (n) => n === 1,
    );
  });

  it('shows where a compaction broke the cache and what its summary replaced, a retained value there one click away (both themes)', async () => {
    await closeEditors();
    await openFromPalette('compacted-run');
    await rows().first().waitFor({ timeout: 60_000 });
    const usage = frame().locator('details.usage');
    await usage.locator('summary').click();
    const breaks = usage.locator('.cache-breaks');
    await breaks.waitFor({ timeout: 30_000 });
    assert.match(await breaks.innerText(), /model call 3 at event #6: a compaction started a new history/);
    const compactions = usage.locator('.compactions');
    assert.match(
      await compactions.innerText(),
      /Before model call 3, event #6 replaced 6 events \([\d.,]+k? tokens\) with a summary of [\d.,]+k? tokens; retained values among them, still there to read, not named to the model again: #c_build\./,
    );
    assert.equal(await usage.locator('.context-chart line.compaction').count(), 1, 'the chart marks it');
    for (const [name, theme] of [
      ['light', 'Default Light Modern'],
      ['dark', 'Default Dark Modern'],
    ] as const) {
      await setTheme(name, theme);
      await compactions.scrollIntoViewIfNeeded();
      await vs.page.waitForTimeout(500);
      await vs.screenshot(`inspector-compaction-${name}`);
    }
    await compactions.getByRole('button', { name: '#c_build' }).click();
    await poll(
      'the retained log to open',
      () => vs.tabTitles(),
      (tabs) => tabs.some((t) => t.startsWith('c_build')),
    );
    await closeEditors();
  });

  it('a 50 MiB value clicked in the tree opens its tab at once, before its text, and then its text', async function () {
    this.timeout(300_000);
    await closeEditors();
    const run = treeRow(/big-run/);
    // The activity bar's icon toggles the view: clicked only when the view is not showing.
    if (!(await run.isVisible()))
      await vs.page.locator('.activitybar [aria-label^="Retained Outputs"]').first().click();
    await run.waitFor({ timeout: 60_000 });
    if ((await run.getAttribute('aria-expanded')) !== 'true') await run.click();
    const value = treeRow(/sh · call_1000\b/);
    await value.waitFor({ timeout: 60_000 });
    await value.click();
    // The order, not a time: the tab shows (with the editor's own progress) while the text is still on its way.
    const text = () =>
      vs.page
        .locator('.editor-group-container .editor-instance .view-lines')
        .first()
        .innerText({ timeout: 1_000 })
        .catch(() => '');
    await poll(
      "the value's tab",
      () => vs.tabTitles(),
      (tabs) => tabs.length > 0,
      60_000,
    );
    const atFirstSight = await text();
    assert.doesNotMatch(atFirstSight, /x{99}/, 'the tab came before the 50 MiB did');
    await poll("the value's text", text, (t) => /x{99}/.test(t), 240_000);
    await closeEditors();
  });

  it('opens a 10,000-event run with three 50 MB results and scrolls it (timed)', async function () {
    this.timeout(600_000);
    await closeEditors();
    const started = Date.now();
    const picked = await openFromPalette('big-run');
    await rows().first().waitFor({ timeout: 300_000 });
    const firstRender = Date.now() - started;
    const firstRenderFromPick = Date.now() - picked;
    assert.match(
      await frame().locator('.header .counts').innerText(),
      /^10,000 events · 4,999 tool calls · 3 retained values \(150 MiB kept out\)/,
    );
    // Scroll to the end and to the middle; each lands on rendered rows.
    const timing: Record<string, number> = { firstRenderMs: firstRender, firstRenderFromPickMs: firstRenderFromPick };
    for (const [name, fraction] of [
      ['scrollEndMs', 1],
      ['scrollMiddleMs', 0.5],
    ] as const) {
      const t0 = Date.now();
      const scroll = () =>
        frame()
          .locator('.timeline')
          .evaluate((el, f) => (el.scrollTop = (el.scrollHeight - el.clientHeight) * f), fraction);
      await scroll();
      if (fraction === 1) {
        // Rows measured on arrival can lengthen the list: scroll again until the last row is there, as a person would.
        await poll(
          'the last row',
          async () => {
            const shown = await rowAt(BIG_RUN.events - 1)
              .locator('.cell.full')
              .count();
            if (shown === 0) await scroll();
            return shown;
          },
          (n) => n > 0,
          60_000,
        );
      } else
        await poll(
          'rows in the middle',
          () => frame().locator('.row.loading').count(),
          (n) => n === 0,
          60_000,
        );
      timing[name] = Date.now() - t0;
    }
    // A 50 MB result's row: clipped on the left, a stub on the right.
    await frame()
      .locator('.timeline')
      .evaluate((el) => (el.scrollTop = 0));
    const field = frame().locator('vscode-textfield.search-input input');
    await field.fill('Step 1000.');
    const t0 = Date.now();
    await field.press('Enter');
    await poll(
      'the search over 150 MB',
      () => frame().locator('.search-count').innerText(),
      (t) => /^1 \/ 1$/.test(t.trim()),
      120_000,
    );
    timing.searchMs = Date.now() - t0;
    // The jump lands on the hit's line, a third of the way down the list, and stays there as the rows around it load.
    const offset = () =>
      frame()
        .locator('.timeline')
        .evaluate((el) => {
          const row = el.querySelector<HTMLElement>('.row.current');
          const mark = row?.querySelector<HTMLElement>('mark[data-line]');
          return row && mark
            ? {
                index: Number(row.dataset.index),
                off: mark.getBoundingClientRect().top - el.getBoundingClientRect().top - el.clientHeight / 3,
              }
            : undefined;
        });
    const there = (o: { index: number; off: number } | undefined) => o?.index === 2002 && Math.abs(o.off) <= 2;
    await poll('the hit a third of the way down', offset, there, 30_000);
    await vs.page.waitForTimeout(1500);
    const settled = await offset();
    assert.ok(there(settled), `still there: ${JSON.stringify(settled)}`);
    const bigRow = rowAt(2003);
    await bigRow.locator('.cell.model.form-stub').waitFor({ timeout: 60_000 });
    assert.match(await bigRow.locator('.cell.full').innerText(), /50 MiB · 524,288 lines/);
    await vs.screenshot('inspector-big-run');
    // Reopened after the language server restarts (as after reopening VS Code): from the run index.
    await closeEditors();
    await vs.runCommand('Retained Outputs: Restart Language Server');
    await vs.page
      .locator('.notification-toast', { hasText: 'the language server restarted' })
      .first()
      .waitFor({ timeout: 60_000 });
    const reopened = Date.now();
    const repicked = await openFromPalette('big-run');
    await rows().first().waitFor({ timeout: 300_000 });
    timing.reopenFirstRenderMs = Date.now() - reopened;
    timing.reopenFirstRenderFromPickMs = Date.now() - repicked;
    assert.match(
      await frame().locator('.header .counts').innerText(),
      /^10,000 events · 4,999 tool calls · 3 retained/,
    );
    // The first open's figures, then the reopen's. The output channel reaches its file a moment after the rows show.
    let log = '';
    const all = (pattern: RegExp) => [...log.matchAll(pattern)].map((m) => Number(m[1]));
    const inWebview = () => all(/Inspector \(big-run\): first rows rendered (\d+) ms/g);
    const inServer = () => all(/Inspector \(big-run\): inspect \{[^}]*"from":0,"limit":100[^}]*\} took (\d+) ms/g);
    await poll(
      "the reopen's figures in the log",
      () => {
        log = vs.extensionLog();
        return Math.min(inWebview().length, inServer().length);
      },
      (n) => n >= 2,
      30_000,
    );
    [timing.webviewFirstRenderMs, timing.reopenWebviewFirstRenderMs] = [inWebview()[0]!, inWebview().at(-1)!];
    [timing.serverFirstPageMs, timing.reopenServerFirstPageMs] = [inServer()[0]!, inServer().at(-1)!];
    mkdirSync(join(ROOT, 'test-output'), { recursive: true });
    writeFileSync(join(ROOT, 'test-output', 'inspector-timing.json'), JSON.stringify(timing, null, 2));
    console.log(`      inspector timing (10,000 events, 3 × 50 MB): ${JSON.stringify(timing)}`);
    // Where the page's time went (script, init, first request, its answer), first open then reopen.
    for (const steps of log.matchAll(
      /Inspector \(big-run\): first rows rendered \d+ ms after the page started \(\d+ rows; (\{[^}]*\})/g,
    ))
      console.log(`      page steps: ${steps[1]}`);
  });
});
