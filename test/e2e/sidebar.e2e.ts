/**
 * The extension in a real VS Code (code-server + Chromium), driven as a person would: the
 * sidebar, opening originals, the context menu, stub links and hovers, the status bar,
 * settings, and the peek_value language-model tool. Each test saves a screenshot.
 */
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, readdirSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Locator } from 'playwright-core';
import { type DemoRun, recordDemoRun } from '../../scripts/demoRun';
import { ROOT } from '../../scripts/tools';
import { lockFolder, unlockFolder } from '../helpers/lockFolder';
import { newWorkspace, writeNote } from './fixtures';
import { poll, VSCode } from './harness';

describe('Retained Outputs in a real VS Code', () => {
  let vs: VSCode;
  let demo: DemoRun;
  let altStore: string;
  let workspace: string;

  before(async () => {
    workspace = newWorkspace();
    demo = await recordDemoRun(workspace);
    altStore = join(workspace, 'alt-store');
    await recordDemoRun(workspace, altStore, 'other-run');
    await recordDemoRun(workspace, altStore, 'old-run');
    ageRun(altStore, 'old-run', 40);
    writeNote(workspace, 'notes.md', `# Notes\n\nThe agent got this stub:\n\n${demo.stub.content}\n`);
    copyFileSync(
      // A real Claude Code 2.1.332 session: two big file reads (an Elixir module and a JSON catalogue).
      join(ROOT, 'test/fixtures/claude-code/read-code/project/ebe262b4-ddd9-4a74-8811-8cb905a40d09.jsonl'),
      join(workspace, 'session.jsonl'),
    );
    copyFileSync(
      join(ROOT, 'test/fixtures/claude-code/failing/project/bfce6d29-af80-4442-9d88-40eb567871be.jsonl'),
      join(workspace, 'failing.jsonl'),
    );
    vs = await VSCode.start({ workspace });
  });
  afterEach(async function () {
    await vs.afterTest(this.currentTest);
  });
  after(async () => vs?.close());

  const view = () => vs.page.locator('.pane:has(.pane-header[aria-label^="Runs"])');
  const row = (name: string | RegExp): Locator => vs.page.getByRole('treeitem', { name }).first();

  /** Shows the sidebar (clicking the activity-bar icon would toggle it closed if it were open). */
  async function openSidebar(runName = /demo-run/): Promise<void> {
    if (!(await view().isVisible()))
      await vs.page.locator('.activitybar [aria-label^="Retained Outputs"]').first().click();
    await row(runName).waitFor({ timeout: 30_000 });
  }

  /** Right-clicks a tree row and picks a context-menu item. */
  const contextAction = (name: string | RegExp, item: string) => vs.contextMenu(row(name), item);

  async function expandDemoRun(): Promise<void> {
    const run = row(/demo-run/);
    if ((await run.getAttribute('aria-expanded')) !== 'true') await run.click();
    await row(/read_file package-lock\.json/).waitFor();
  }

  it('lists the run recorded through the protocol, and its retained value', async () => {
    // A workspace that holds a store starts the extension by itself: its status bar item shows before any view opens.
    assert.equal(await view().isVisible(), false);
    await vs.page
      .locator('.statusbar-item', { hasText: /retained · .* kept out/ })
      .first()
      .waitFor({ timeout: 60_000 });
    await openSidebar();
    await expandDemoRun();
    const label = await row(/read_file package-lock\.json/).innerText();
    assert.match(label, /read_file package-lock\.json/);
    assert.match(label, /\d+(\.\d)? KiB · [\d,]+ lines/);
    // The small results were kept verbatim: only the lock file is a value.
    assert.equal(
      await view()
        .getByRole('treeitem', { name: /toolu_ls/ })
        .count(),
      0,
    );
    await vs.screenshot('sidebar');
  });

  it('opens the original when a value is clicked', async () => {
    await row(/read_file package-lock\.json/).click();
    await poll(
      'the value to open in an editor',
      () => vs.tabTitles(),
      (tabs) => tabs.includes('toolu_lock · package-lock.json'),
    );
    const visible = await poll(
      'the lock file text',
      () => vs.page.locator('.editor-instance .view-lines').first().innerText(),
      (t) => t.includes('"version"'),
    );
    const firstLine = visible
      .replace(/\u00a0/g, ' ')
      .split('\n')
      .find((l) => l.trim().length > 3)!;
    assert.ok(demo.lock.includes(firstLine.trim()), `${firstLine} is from the lock file`);
    // Read-only, and JSON: the name is the file the call read.
    await poll(
      'the language of the value',
      () => vs.page.locator('#status\\.editor\\.mode').innerText(),
      (t) => t.trim() === 'JSON',
    );
    await vs.page.locator('.editor-instance .view-lines').first().click();
    await vs.page.keyboard.type('x');
    await vs.page
      .locator('.monaco-editor-overlaymessage', { hasText: /read-only/i })
      .first()
      .waitFor();
    assert.ok(!(await vs.page.locator('.tabs-container .tab.active').first().getAttribute('class'))?.includes('dirty'));
    await vs.screenshot('open-original');
  });

  it('context menu: Peek Lines… opens the original with those lines selected', async () => {
    await contextAction(/read_file package-lock\.json/, 'Peek Lines…');
    const input = vs.page.locator('.quick-input-widget input');
    await input.fill('5-7');
    await input.press('Enter');
    const selection = vs.page.locator('.statusbar-item', { hasText: /Ln \d+, Col \d+ \(\d+ selected\)/ }).first();
    await selection.waitFor();
    assert.match(await selection.innerText(), /\(\d+ selected\)/);
    await vs.screenshot('peek-lines');
  });

  it('context menu: Search in Value… lists matching lines and jumps to one', async () => {
    await contextAction(/read_file package-lock\.json/, 'Search in Value…');
    const input = vs.page.locator('.quick-input-widget input');
    await input.fill('node_modules/mocha');
    await input.press('Enter');
    const pick = vs.page.locator('.quick-input-list .monaco-list-row', { hasText: '"node_modules/mocha"' }).first();
    await pick.waitFor();
    await vs.screenshot('search-in-value');
    await pick.click();
    const expectedLine = demo.lock.split('\n').findIndex((l) => l.includes('"node_modules/mocha"')) + 1;
    const cursor = vs.page.locator('.statusbar-item', { hasText: /Ln \d+, Col/ }).first();
    await poll(
      'the cursor to jump to the match',
      () => cursor.innerText(),
      (text) => text.startsWith(`Ln ${expectedLine},`),
    );
  });

  it('context menu: Copy Stub puts the exact stub the model got on the clipboard', async () => {
    await contextAction(/read_file package-lock\.json/, 'Copy Stub');
    const clipboard = await poll(
      'the clipboard',
      () => vs.page.evaluate<string>('navigator.clipboard.readText()'),
      (text) => text.startsWith('[retained #'),
    );
    assert.equal(clipboard, demo.stub.content);
  });

  it('context menu: Copy Path gives the value file', async () => {
    await contextAction(/read_file package-lock\.json/, 'Copy Path');
    const clipboard = await poll(
      'the clipboard',
      () => vs.page.evaluate<string>('navigator.clipboard.readText()'),
      (text) => text.endsWith('.txt'),
    );
    assert.equal(clipboard, fileURLToPath(demo.stub.uri!));
  });

  it('makes a stub in an open document a link with a hover, and the link opens the original', async () => {
    await vs.page.keyboard.press('Control+P');
    await vs.page.locator('.quick-input-widget input').fill('notes.md');
    await vs.page.locator('.quick-input-list .monaco-list-row', { hasText: 'notes.md' }).first().waitFor();
    await vs.page.keyboard.press('Enter');
    await poll(
      'notes.md to open',
      () => vs.tabTitles(),
      (tabs) => tabs.includes('notes.md'),
    );
    await vs.page.locator('.editor-instance .view-lines').first().waitFor();
    const link = vs.page.locator('.editor-instance .detected-link', { hasText: '[retained #toolu_lock]' }).first();
    await link.waitFor({ timeout: 30_000 });
    await link.hover();
    const hover = vs.page.locator('.monaco-hover', { hasText: 'Retained value #toolu_lock' }).first();
    await hover.waitFor({ timeout: 20_000 });
    await poll(
      'the hover preview',
      () => hover.innerText(),
      (text) => /read_file, \d+(\.\d)? KiB, [\d,]+ lines/.test(text) && text.includes('1: {'),
    );
    await vs.screenshot('stub-link-hover');
    await vs.page.keyboard.press('Escape');
    // Close every editor, then follow the link with Ctrl+click.
    await vs.runCommand('View: Close All Editors');
    await poll(
      'editors to close',
      () => vs.tabTitles(),
      (tabs) => tabs.length === 0,
    );
    await vs.page.keyboard.press('Control+P');
    await vs.page.locator('.quick-input-widget input').fill('notes.md');
    await vs.page.locator('.quick-input-list .monaco-list-row', { hasText: 'notes.md' }).first().waitFor();
    await vs.page.keyboard.press('Enter');
    await link.waitFor({ timeout: 30_000 });
    // The quick open may still be fading out over the editor (it takes the click): wait it out,
    // and click again until the value opens (the link is re-made as the document's links refresh).
    await vs.page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 10_000 });
    await poll(
      'the link to open the value',
      async () => {
        const tabs = await vs.tabTitles();
        if (!tabs.includes('toolu_lock · package-lock.json'))
          await link.click({ modifiers: ['Control'], timeout: 5_000 }).catch(() => undefined);
        return tabs;
      },
      (tabs) => tabs.includes('toolu_lock · package-lock.json'),
    );
  });

  it('counts retained values and bytes kept out in the status bar; clicking it offers the runs to inspect', async () => {
    const item = vs.page.locator('.statusbar-item', { hasText: /retained · .* kept out/ }).first();
    const text = await poll(
      'the status bar count',
      () => item.innerText().catch(() => ''),
      (t) => /1 retained/.test(t),
    );
    assert.match(text, /1 retained · \d+(\.\d)? KiB kept out/);
    // The run's row says the same figure in the same words (it said the values' size, a KiB more).
    const keptOut = text.match(/([\d.]+ KiB) kept out/)![1]!;
    await openSidebar();
    assert.match(await row(/demo-run/).innerText(), new RegExp(`1 value · ${keptOut.replace('.', '\\.')} kept out`));
    await item.click();
    await vs.page.locator('.quick-input-list .monaco-list-row', { hasText: 'demo-run' }).first().waitFor();
    await vs.screenshot('status-bar');
    await vs.page.keyboard.press('Escape');
  });

  it('the peek_value language-model tool returns the peek text with its gutter', async () => {
    await vs.runCommand('Retained Test: Invoke peek_value (test)');
    const file = join(vs.testOutput, 'lm-tool.json');
    await poll('the tool result file', () => existsSync(file), Boolean);
    const results = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    const lines = demo.lock.split('\n');
    assert.equal(results.registered, true);
    assert.equal(results.range, `2: ${lines[1]}\n3: ${lines[2]}\n4: ${lines[3]}`);
    assert.equal(results.api, results.range);
    const version = (JSON.parse(demo.lock).packages['node_modules/mocha'] as { version: string }).version;
    assert.match(results.query as string, new RegExp(`^\\d+: +"version": "${version.replace(/\./g, '\\.')}",$`, 'm'));
    assert.match(JSON.stringify(results.unknown), /no retained value \\"no_such_id\\"; known ids: .*toolu_lock/);
  });

  it('context menu: Reveal in Explorer selects the value file in the Explorer', async () => {
    await openSidebar();
    await expandDemoRun();
    await contextAction(/read_file package-lock\.json/, 'Reveal in Explorer');
    const selected = vs.page.locator('.explorer-folders-view .monaco-list-row.selected', { hasText: 'toolu_lock.txt' });
    await selected.waitFor({ timeout: 20_000 });
    await vs.screenshot('reveal-in-explorer');
    await openSidebar();
  });

  it('Import Agent Session… on a .jsonl in the Explorer imports it and opens its inspector, no button to catch', async () => {
    await vs.runCommand('View: Close All Editors');
    await vs.runCommand('Notifications: Clear All Notifications');
    await vs.runCommand('View: Show Explorer');
    const file = vs.page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'session.jsonl' }).first();
    await file.waitFor({ timeout: 20_000 });
    await vs.contextMenu(file, 'Import Agent Session…');
    const toast = vs.page.locator('.notification-toast', { hasText: 'Imported the Claude Code session' }).first();
    await toast.waitFor({ timeout: 60_000 });
    await vs.page
      .locator('.notification-toast', { hasText: 'Importing session.jsonl' })
      .waitFor({ state: 'detached', timeout: 30_000 });
    await vs.page.waitForTimeout(400); // the toast's entrance
    await vs.screenshot('import-done');
    const tab = await poll(
      'the inspector of the imported run',
      () => vs.tabTitles(),
      (tabs) => tabs.some((t) => t.startsWith('Inspector: ') && t !== 'Inspector: demo-run'),
    );
    assert.ok(tab.length > 0);
    await vs.page
      .frameLocator('iframe.webview.ready')
      .frameLocator('iframe#active-frame')
      .locator('.row')
      .first()
      .waitFor({ timeout: 30_000 });
    await vs.screenshot('import-inspector');
    await vs.runCommand('View: Close All Editors');
    await openSidebar();
    // Its values are named after the files the calls read, and open in their language.
    // Called by its first prompt; its id is in its name for a screen reader, and in the tooltip.
    const run = row(/, run session,/);
    await run.waitFor({ timeout: 30_000 });
    assert.match(await run.innerText(), /Scenario read-code: read the worker and the catalogue\./);
    if ((await run.getAttribute('aria-expanded')) !== 'true') await run.click();
    await row(/^Read .*catalog\.json/).click();
    await poll(
      'the imported value, named after its file',
      () => vs.tabTitles(),
      (tabs) => tabs.includes('toolu_rc2 · catalog.json'),
    );
    await poll(
      'the language of the imported value',
      () => vs.page.locator('#status\\.editor\\.mode').innerText(),
      (t) => t.trim() === 'JSON',
    );
    assert.ok(await row(/^Read .*worker\.ex/).isVisible(), 'the other read is named after its file too');
    await vs.runCommand('View: Close All Editors');
  });

  it('Import into a store that cannot be written says so in words: which folder, why, the code last', async () => {
    await vs.runCommand('View: Close All Editors');
    await vs.runCommand('Notifications: Clear All Notifications');
    const runs = join(workspace, '.retained', 'runs');
    const unwritable = lockFolder(runs);
    try {
      await vs.runCommand('View: Show Explorer');
      const file = vs.page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'failing.jsonl' }).first();
      await file.waitFor({ timeout: 20_000 });
      await vs.contextMenu(file, 'Import Agent Session…');
      const toast = vs.page.locator('.notification-toast', { hasText: 'Could not write to' }).first();
      await toast.waitFor({ timeout: 60_000 });
      const text = await toast.innerText();
      assert.ok(text.includes(`Could not write to ${runs}: ${unwritable}`), text);
      assert.doesNotMatch(text, /\.tmp-\d+/, 'no temporary file name');
      await vs.screenshot('import-unwritable');
    } finally {
      unlockFolder(runs);
    }
    await vs.runCommand('Notifications: Clear All Notifications');
    await openSidebar();
  });

  it('the walkthrough: three steps, each button a command that runs', async () => {
    await vs.runCommand('Welcome: Open Walkthrough');
    const ours = vs.page.locator('.quick-input-list .monaco-list-row', {
      hasText: 'Get started with Retained Outputs',
    });
    await ours.first().waitFor({ timeout: 20_000 });
    await ours.first().click();
    const page = vs.page.locator('.editor-group-container');
    for (const step of ['Set up an agent', 'See a stub', 'Open the inspector'])
      await page.getByText(step, { exact: true }).first().waitFor({ timeout: 30_000 });
    // Escape with the focus still on the walkthrough goes back to the Welcome page: it is pressed
    // only with the focus in the quick pick. VS Code gives the quick pick the focus a moment after
    // it shows, and on a loaded machine now and then leaves it on the button, or the walkthrough
    // takes it back and the quick pick closes on losing it: put it in the box, as a person would
    // click into it, until the quick pick is gone either way.
    const dismissQuickPick = async () => {
      const widget = vs.page.locator('.quick-input-widget');
      await poll(
        'the quick pick dismissed',
        async () => {
          if (!(await widget.isVisible())) return true;
          await widget
            .locator('.quick-input-box input')
            .focus({ timeout: 1_000 })
            .catch(() => undefined);
          if (await vs.page.evaluate(() => !!document.activeElement?.closest('.quick-input-widget')))
            await vs.page.keyboard.press('Escape');
          return !(await widget.isVisible());
        },
        (hidden) => hidden,
      );
    };
    // Each step's button runs its command: Set Up's agent question, the Runs view, the run picker.
    const press = async (step: string, button: string) => {
      await page.getByText(step, { exact: true }).first().click();
      await page.getByText(button, { exact: true }).first().click();
    };
    await press('Set up an agent', 'Set Up an Agent…');
    await vs.page
      .locator('.quick-input-title', { hasText: 'Set Up an Agent for Retained Outputs' })
      .waitFor({ timeout: 20_000 });
    await dismissQuickPick();
    await press('See a stub', 'Show the Runs');
    await row(/demo-run/).waitFor({ timeout: 20_000 });
    await press('Open the inspector', 'Open Inspector');
    await vs.page.locator('.quick-input-title', { hasText: 'Open Inspector' }).waitFor({ timeout: 20_000 });
    await dismissQuickPick();
    await vs.screenshot('walkthrough');
    await vs.runCommand('View: Close All Editors');
  });

  it('Open the Guide shows the README the installed extension holds', async () => {
    await vs.runCommand('Retained Outputs: Open the Guide (README)');
    await poll(
      'the guide',
      () => vs.tabTitles(),
      (tabs) => tabs.some((t) => /^Preview readme\.md$/i.test(t)),
    );
    assert.equal(
      await vs.page.locator('.notification-toast', { hasText: /cannot be found|not in the installed/ }).count(),
      0,
    );
    // Its pictures are the package's own: they load here, where nothing online can be reached.
    const pictures = await poll(
      "the guide's pictures, loaded",
      async () => {
        for (const frame of vs.page.frames()) {
          const found = (await frame
            .evaluate(
              `[...document.querySelectorAll('img[alt^="The inspector"], img[alt^="The same"]')].map((i) => ({ src: i.src, ok: i.complete && i.naturalWidth > 0 }))`,
            )
            .catch(() => [])) as { src: string; ok: boolean }[];
          if (found.length > 0) return found;
        }
        return [];
      },
      (found) => found.length > 0 && found.every((p) => p.ok),
    );
    assert.ok(
      pictures.every((p) => !/github|raw\//.test(p.src)),
      JSON.stringify(pictures),
    );
    await vs.runCommand('View: Close All Editors');
  });

  it('a plain paste leaves "200: OK" alone and drops the gutters of a peeked range; the command does too', async () => {
    await vs.runCommand('View: Close All Editors');
    await poll(
      'editors to close',
      () => vs.tabTitles(),
      (tabs) => tabs.length === 0,
    );
    await vs.runCommand('File: New Untitled Text File');
    await poll(
      'an untitled editor',
      () => vs.tabTitles(),
      (tabs) => tabs.some((t) => /^Untitled-\d+$/.test(t)),
    );
    const editorText = async () =>
      (await vs.page.locator('.editor-group-container.active .view-lines').first().innerText()).replace(/\u00a0/g, ' ');
    const paste = async (copied: string, how: 'keys' | 'command') => {
      await vs.page.evaluate<void, string>((text) => navigator.clipboard.writeText(text), copied);
      await vs.runCommand('Select All');
      await vs.page.keyboard.press('Delete');
      // The editor takes input in its focused element (a textarea, or an EditContext div).
      await vs.page.locator('.editor-group-container.active .view-lines').first().click();
      if (how === 'command') return vs.runCommand('Retained Outputs: Paste without Line Numbers');
      // What Ctrl+V does: a paste event carrying the clipboard's text (headless Chromium has no
      // system clipboard for the key itself to read).
      await vs.page.evaluate((text) => {
        const data = new DataTransfer();
        data.setData('text/plain', text);
        const paste = new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true });
        document.activeElement?.dispatchEvent(paste);
      }, copied);
    };
    const peeked = '12:   "name": "retained-outputs",\n13:   "version": "0.1.0",';
    const original = '  "name": "retained-outputs",\n  "version": "0.1.0",';

    await paste('200: OK', 'keys');
    assert.equal(await poll('the pasted text', editorText, (t) => t.includes('OK')), '200: OK');
    await paste(peeked, 'keys');
    assert.equal(await poll('the pasted lines', editorText, (t) => t.includes('version')), original);
    await paste(peeked, 'command');
    assert.equal(await poll('the pasted lines', editorText, (t) => t.includes('version')), original);
    await vs.screenshot('paste-without-line-numbers');
    await vs.runCommand('View: Revert and Close Editor');
    await poll(
      'the untitled editor to close',
      () => vs.tabTitles(),
      (tabs) => tabs.length === 0,
    );
  });

  it('a setting change takes effect without a reload: another store root shows its runs', async () => {
    await openSidebar();
    vs.setWorkspaceSettings({ 'retained.storeRoot': altStore });
    await openSidebar(/other-run/);
    assert.equal(
      await view()
        .getByRole('treeitem', { name: /demo-run/ })
        .count(),
      0,
    );
    await vs.screenshot('setting-store-root');
    // An invalid combination is refused with the reason, and the previous settings stay.
    vs.setWorkspaceSettings({ 'retained.storeRoot': altStore, 'retained.thresholdBytes': 4096 });
    const toast = vs.page
      .locator('.notification-toast', {
        hasText: 'retained.peekMaxBytes (16384) must be below retained.thresholdBytes (4096)',
      })
      .first();
    await toast.waitFor({ timeout: 30_000 });
    await vs.screenshot('setting-refused');
    assert.equal(await row(/other-run/).count(), 1);
  });

  it('context menu: Delete… asks first, then removes the value', async () => {
    await row(/other-run/).click();
    await row(/read_file package-lock\.json/).waitFor();
    await contextAction(/read_file package-lock\.json/, 'Delete…');
    const dialog = vs.page.locator('.monaco-dialog-box');
    await dialog.waitFor();
    assert.match(await dialog.innerText(), /Delete retained value #toolu_lock/);
    await vs.screenshot('delete-confirm');
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await poll(
      'the value to leave the tree',
      () =>
        view()
          .getByRole('treeitem', { name: /read_file package-lock\.json/ })
          .count(),
      (n) => n === 0,
    );
    assert.equal(existsSync(join(altStore, 'runs', 'other-run.values', 'toolu_lock.txt')), false);
  });

  it('Keep Run pins a run; Clean Up Store… shows what goes, removes only the old unpinned run, whole, and says so', async () => {
    await contextAction(/other-run/, 'Keep Run (Never Clean Up)');
    await poll(
      'the pinned icon',
      () =>
        row(/other-run/)
          .locator('.codicon-pinned')
          .count(),
      (n) => n === 1,
    );
    ageRun(altStore, 'other-run', 60); // older still, but kept
    await vs.runCommand('Retained Outputs: Clean Up Store…');
    const dialog = vs.page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 30_000 });
    const text = await dialog.innerText();
    assert.match(text, /Remove 1 run, freeing \d+(\.\d)? KiB\?/);
    assert.match(text, /old-run: .*not written to since/);
    assert.doesNotMatch(text, /other-run/);
    assert.match(text, /Kept: 1 pinned run/);
    await vs.screenshot('cleanup-confirm');
    await dialog.getByRole('button', { name: 'Remove' }).click();
    await vs.page
      .locator('.notification-toast', { hasText: /removed 1 run, freed/ })
      .first()
      .waitFor({ timeout: 30_000 });
    await poll(
      'old-run to leave the tree',
      () =>
        view()
          .getByRole('treeitem', { name: /old-run/ })
          .count(),
      (n) => n === 0,
    );
    assert.equal(existsSync(join(altStore, 'runs', 'old-run.jsonl')), false);
    assert.equal(existsSync(join(altStore, 'runs', 'old-run.values')), false);
    assert.equal(existsSync(join(altStore, 'runs', 'other-run.jsonl')), true);
    const audit = readFileSync(join(altStore, 'audit.jsonl'), 'utf8');
    assert.match(audit, /"event":"removed","runId":"old-run","why":"age"/);
  });
  it('Export Run… writes the run as Markdown where the save dialog says, and offers to open it', async () => {
    await openSidebar(/other-run/);
    await contextAction(/other-run/, 'Export Run…');
    await vs.page.locator('.quick-input-list .monaco-list-row', { hasText: 'Markdown' }).first().click();
    // VS Code in a browser saves through its own dialog: the path in a quick input, the run's id in the workspace.
    const path = vs.page.locator('.quick-input-widget input');
    await poll(
      'the save dialog',
      () => path.inputValue(),
      (v) => v.endsWith('other-run.md'),
    );
    await vs.page.keyboard.press('Enter');
    const toast = vs.page.locator('.notification-toast', { hasText: 'Exported run' }).first();
    await toast.waitFor({ timeout: 30_000 });
    const report = readFileSync(join(workspace, 'other-run.md'), 'utf8');
    assert.match(report, /^# Run other-run\n/);
    assert.match(report, /\| model call \| tokens \| cache read \| cache write \|/);
    assert.match(report, /read_file/);
    await toast.getByRole('button', { name: 'Open' }).click();
    await poll(
      'the report to open',
      () => vs.tabTitles(),
      (tabs) => tabs.includes('other-run.md'),
    );
    await vs.runCommand('View: Close All Editors');
  });
});

/** Makes a run look last written `days` ago (its files and folders). */
function ageRun(store: string, runId: string, days: number): void {
  const when = new Date(Date.now() - days * 24 * 60 * 60 * 1000);
  const runs = join(store, 'runs');
  for (const name of readdirSync(runs).filter((n) => n.startsWith(`${runId}.`) && !n.endsWith('.pinned'))) {
    const path = join(runs, name);
    if (statSync(path).isDirectory()) for (const file of readdirSync(path)) utimesSync(join(path, file), when, when);
    utimesSync(path, when, when);
  }
}
