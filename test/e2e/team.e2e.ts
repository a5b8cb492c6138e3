/**
 * A team store in a real VS Code: a real PostgreSQL (test/helpers/postgres.ts) holds a run made
 * "in CI" by the command line; VS Code with `retained.storeUrl` shows it under Team beside This
 * machine, opens its value read-only (read through the language server, no file here) and its
 * run in the inspector, and a run written while VS Code watches appears without a reload. Then,
 * as a newcomer meets it: the URL set while the window is open, a role that needs a password, a
 * wrong one, the right one, and the database stopped and started again, each said in the view.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { Locator } from 'playwright-core';
import { recordDemoRun } from '../../scripts/demoRun';
import { ROOT } from '../../scripts/tools';
import { type Postgres, startPostgres } from '../helpers/postgres';
import { newWorkspace } from './fixtures';
import { poll, VSCode } from './harness';

const CLI = join(ROOT, 'dist/cli.js');

describe('A team store in a real VS Code', () => {
  let vs: VSCode;
  let pg: Postgres;
  const retained = (command: string, ...args: string[]) =>
    execFileSync(process.execPath, [CLI, command, '--store', pg.url, ...args], { encoding: 'utf8', stdio: 'pipe' });

  before(async () => {
    pg = await startPostgres();
    retained('migrate');
    retained('run', '--run', 'ci/nightly build', '--', 'seq 1 300000; echo "error: the linker failed"');
    const workspace = newWorkspace();
    await recordDemoRun(workspace);
    vs = await VSCode.start({ workspace, settings: { 'retained.storeUrl': pg.url } });
  });
  afterEach(async function () {
    await vs.afterTest(this.currentTest);
  });
  after(async () => {
    await vs?.close();
    pg?.stop();
  });

  const row = (name: string | RegExp): Locator => vs.page.getByRole('treeitem', { name }).first();
  const expand = async (name: string | RegExp) => {
    const item = row(name);
    await item.waitFor({ timeout: 30_000 });
    if ((await item.getAttribute('aria-expanded')) !== 'true') await item.click();
  };

  it('lists This machine and Team side by side, each with its own runs', async () => {
    await vs.page.locator('.activitybar [aria-label^="Retained Outputs"]').first().click();
    await row(/^This machine/).waitFor({ timeout: 30_000 });
    await expand(/^Team/);
    await row(/ci\/nightly build/).waitFor({ timeout: 30_000 });
    await row(/demo-run/).waitFor();
    await expand(/ci\/nightly build/);
    await row(/run_command/).waitFor({ timeout: 30_000 });
    await vs.screenshot('team-sidebar');
  });

  it('opens a team value read-only, read through the server: there is no file of it here', async () => {
    await row(/run_command/).click();
    const text = await poll(
      'the team value in an editor',
      () => vs.page.locator('.editor-instance .view-lines').first().innerText(),
      (t) => /^1\s*$/m.test(t.replace(/\u00a0/g, ' ')) && t.includes('2'),
    );
    assert.match(text.replace(/\u00a0/g, ' '), /^3$/m);
    // Its end, through Go to Line: the last of 300,001 lines.
    await vs.page.keyboard.press('Control+g');
    await vs.page.keyboard.type('300001');
    await vs.page.keyboard.press('Enter');
    await poll(
      'the last line of the team value',
      () => vs.page.locator('.editor-instance .view-lines').first().innerText(),
      (t) => t.replace(/\u00a0/g, ' ').includes('error: the linker failed'),
    );
  });

  it('opens a team run in the inspector, named as the team\u2019s', async () => {
    await vs.contextMenu(row(/ci\/nightly build/), /Open Inspector|Inspect/);
    await poll(
      'the inspector tab',
      () => vs.tabTitles(),
      (tabs) => tabs.some((t) => /Inspector: ci_nightly_build.*\(team\)/.test(t)),
    );
    // Its rows come from the team store: the run's one result, as a stub beside the full output.
    const inspector = vs.page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
    await inspector
      .getByText(/\[retained #/)
      .first()
      .waitFor({ timeout: 30_000 });
    await vs.screenshot('team-inspector');
  });

  it('a run written to the team store while VS Code watches appears under Team without a reload', async () => {
    retained('run', '--run', 'ci/live job', '--', 'seq 1 100000');
    await row(/ci\/live job/).waitFor({ timeout: 30_000 });
  });
});

describe('A team store that needs a password, set while VS Code is open', () => {
  let vs: VSCode;
  let pg: Postgres;
  const row = (name: string | RegExp): Locator => vs.page.getByRole('treeitem', { name }).first();
  const inspector = () => vs.page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');

  before(async () => {
    pg = await startPostgres();
    execFileSync(process.execPath, [CLI, 'migrate', '--store', pg.url], { stdio: 'pipe' });
    execFileSync(process.execPath, [CLI, 'run', '--store', pg.url, '--run', 'ci/nightly build', '--', 'seq 1 100000'], {
      stdio: 'pipe',
    });
    await pg.sql(`CREATE ROLE ann LOGIN PASSWORD 'ann pw'; GRANT retained_writer, retained_reader TO ann;`);
    pg.requirePassword('ann');
    const workspace = newWorkspace();
    await recordDemoRun(workspace);
    vs = await VSCode.start({ workspace });
  });
  afterEach(async function () {
    await vs.afterTest(this.currentTest);
  });
  after(async () => {
    await vs?.close();
    pg?.stop();
  });

  const setPassword = async (password: string) => {
    await vs.runCommand('Retained Outputs: Set Team Store Password');
    const box = vs.page.locator('.quick-input-widget input[type="password"]');
    await box.waitFor();
    await box.fill(password);
    await vs.page.keyboard.press('Enter');
  };

  it('the URL set in Settings while the window is open: Team says the role needs a password, in the tree itself', async () => {
    await vs.page.locator('.activitybar [aria-label^="Retained Outputs"]').first().click();
    await row(/demo-run/).waitFor({ timeout: 30_000 });
    vs.setWorkspaceSettings({ 'retained.storeUrl': pg.urlAs('ann') });
    await row(/^Team/).waitFor({ timeout: 60_000 });
    await row(/asks the role ann for a password, and none was given/).waitFor({ timeout: 30_000 });
    await vs.screenshot('team-needs-password');
  });

  it('a wrong password is said as refused, not as out of reach', async () => {
    await setPassword('not the password');
    const refused = row(/refused the role ann: password authentication failed for user "ann"/);
    await refused.waitFor({ timeout: 60_000 });
    assert.doesNotMatch((await refused.getAttribute('aria-label')) ?? '', /cannot reach/);
  });

  it('the right password, with the URL the window was given after it opened, lists the team runs', async () => {
    await setPassword('ann pw');
    await row(/ci\/nightly build/).waitFor({ timeout: 60_000 });
    assert.equal(await row(/password/).count(), 0, 'no problem is left in the tree');
  });

  it('the database stopped: Team and an open team inspector say so without a Refresh, and come back by themselves', async () => {
    await vs.contextMenu(row(/ci\/nightly build/), /Open Inspector|Inspect/);
    await inspector()
      .getByText(/\[retained #/)
      .first()
      .waitFor({ timeout: 30_000 });
    pg.stop();
    await row(/cannot reach .*is the database running/).waitFor({ timeout: 60_000 });
    await inspector()
      .getByText(/The team store is offline: cannot reach/)
      .waitFor({ timeout: 30_000 });
    await vs.screenshot('team-offline');
    pg.start();
    await row(/ci\/nightly build/).waitFor({ timeout: 60_000 });
    await inspector()
      .getByText(/The team store is offline/)
      .waitFor({ state: 'detached', timeout: 30_000 });
  });
});
