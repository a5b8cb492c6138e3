/**
 * The extension in a real VS Code (code-server + Chromium), driven as a person would: the
 * sidebar, opening originals, the context menu, stub links and hovers, the status bar,
 * settings, and the peek_value language-model tool. Each test saves a screenshot.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Locator } from 'playwright-core';
import { type DemoRun, recordDemoRun } from '../../scripts/demoRun';
import { newWorkspace, writeNote } from './fixtures';
import { poll, VSCode } from './harness';

describe('Retained Outputs in a real VS Code', () => {
  let vs: VSCode;
  let demo: DemoRun;
  let altStore: string;

  before(async () => {
    const workspace = newWorkspace();
    demo = await recordDemoRun(workspace);
    altStore = join(workspace, 'alt-store');
    await recordDemoRun(workspace, altStore, 'other-run');
    writeNote(workspace, 'notes.md', `# Notes\n\nThe agent got this stub:\n\n${demo.stub.content}\n`);
    vs = await VSCode.start({ workspace });
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') {
      await vs.screenshot(`failed-${this.currentTest.title.replace(/\W+/g, '-')}`);
      console.log(`extension log:\n${vs.extensionLog()}`);
    }
    await vs.page.keyboard.press('Escape');
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
  async function contextAction(name: string | RegExp, item: string): Promise<void> {
    await row(name).click({ button: 'right' });
    const entry = vs.page.getByRole('menuitem', { name: item });
    await entry.waitFor();
    await vs.page.waitForTimeout(150); // the menu ignores clicks while it animates in
    await entry.click();
    await entry.waitFor({ state: 'detached' });
  }

  async function expandDemoRun(): Promise<void> {
    const run = row(/demo-run/);
    if ((await run.getAttribute('aria-expanded')) !== 'true') await run.click();
    await row(/read_file · toolu_lock/).waitFor();
  }

  it('lists the run recorded through the protocol, and its retained value', async () => {
    await openSidebar();
    await expandDemoRun();
    const label = await row(/read_file · toolu_lock/).innerText();
    assert.match(label, /read_file · toolu_lock/);
    assert.match(label, /\d+(\.\d)? KB · \d+ lines/);
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
    await row(/read_file · toolu_lock/).click();
    await poll(
      'the value to open in an editor',
      () => vs.tabTitles(),
      (tabs) => tabs.includes('toolu_lock.txt'),
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
    await vs.screenshot('open-original');
  });

  it('context menu: Peek Lines… opens the original with those lines selected', async () => {
    await contextAction(/read_file · toolu_lock/, 'Peek Lines…');
    const input = vs.page.locator('.quick-input-widget input');
    await input.fill('5-7');
    await input.press('Enter');
    const selection = vs.page.locator('.statusbar-item', { hasText: /Ln \d+, Col \d+ \(\d+ selected\)/ }).first();
    await selection.waitFor();
    assert.match(await selection.innerText(), /\(\d+ selected\)/);
    await vs.screenshot('peek-lines');
  });

  it('context menu: Search in Value… lists matching lines and jumps to one', async () => {
    await contextAction(/read_file · toolu_lock/, 'Search in Value…');
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
    await contextAction(/read_file · toolu_lock/, 'Copy Stub');
    const clipboard = await poll(
      'the clipboard',
      () => vs.page.evaluate<string>('navigator.clipboard.readText()'),
      (text) => text.startsWith('[retained #'),
    );
    assert.equal(clipboard, demo.stub.content);
  });

  it('context menu: Copy Path gives the value file', async () => {
    await contextAction(/read_file · toolu_lock/, 'Copy Path');
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
      (text) => /read_file, \d+ bytes, \d+ lines/.test(text) && text.includes('1: {'),
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
    await link.click({ modifiers: ['Control'] });
    await poll(
      'the link to open the value',
      () => vs.tabTitles(),
      (tabs) => tabs.includes('toolu_lock.txt'),
    );
  });

  it('counts retained values and bytes kept out in the status bar; clicking it offers the runs to inspect', async () => {
    const item = vs.page.locator('.statusbar-item', { hasText: /retained · .* kept out/ }).first();
    const text = await poll(
      'the status bar count',
      () => item.innerText().catch(() => ''),
      (t) => /1 retained/.test(t),
    );
    assert.match(text, /1 retained · \d+(\.\d)? KB kept out/);
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
    await contextAction(/read_file · toolu_lock/, 'Reveal in Explorer');
    const selected = vs.page.locator('.explorer-folders-view .monaco-list-row.selected', { hasText: 'toolu_lock.txt' });
    await selected.waitFor({ timeout: 20_000 });
    await vs.screenshot('reveal-in-explorer');
    await openSidebar();
  });

  it('Paste without Line Numbers strips the gutters of peeked lines', async () => {
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
    await vs.page.evaluate<void, string>(
      (text) => navigator.clipboard.writeText(text),
      '12:   "name": "retained-outputs",\n13:   "version": "0.1.0",',
    );
    await vs.runCommand('Retained: Paste without Line Numbers');
    const text = await poll(
      'the pasted lines',
      () => vs.page.locator('.editor-group-container.active .view-lines').first().innerText(),
      (t) => t.includes('version'),
    );
    assert.equal(text.replace(/\u00a0/g, ' '), '  "name": "retained-outputs",\n  "version": "0.1.0",');
    await vs.screenshot('paste-without-line-numbers');
    await vs.runCommand('View: Revert and Close Editor');
    await poll(
      'the untitled editor to close',
      () => vs.tabTitles(),
      (tabs) => tabs.length === 0,
    );
  });

  /** Changes workspace settings the way a person often does: by editing .vscode/settings.json. */
  function setWorkspaceSettings(settings: Record<string, unknown>): void {
    mkdirSync(join(demo.workspace, '.vscode'), { recursive: true });
    writeFileSync(join(demo.workspace, '.vscode', 'settings.json'), JSON.stringify(settings, null, 2));
  }

  it('a setting change takes effect without a reload: another store root shows its runs', async () => {
    await openSidebar();
    setWorkspaceSettings({ 'retained.storeRoot': altStore });
    await openSidebar(/other-run/);
    assert.equal(
      await view()
        .getByRole('treeitem', { name: /demo-run/ })
        .count(),
      0,
    );
    await vs.screenshot('setting-store-root');
    // An invalid combination is refused with the reason, and the previous settings stay.
    setWorkspaceSettings({ 'retained.storeRoot': altStore, 'retained.thresholdBytes': 4096 });
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
    await row(/read_file · toolu_lock/).waitFor();
    await contextAction(/read_file · toolu_lock/, 'Delete…');
    const dialog = vs.page.locator('.monaco-dialog-box');
    await dialog.waitFor();
    assert.match(await dialog.innerText(), /Delete retained value #toolu_lock/);
    await vs.screenshot('delete-confirm');
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await poll(
      'the value to leave the tree',
      () =>
        view()
          .getByRole('treeitem', { name: /read_file · toolu_lock/ })
          .count(),
      (n) => n === 0,
    );
    assert.equal(existsSync(join(altStore, 'runs', 'other-run.values', 'toolu_lock.txt')), false);
  });
});
