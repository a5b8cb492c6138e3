/**
 * Agents outside VS Code, seen in a real VS Code: a real Claude Code (against the scripted model)
 * runs in the workspace with the hook and the MCP server; its session appears in the Agent
 * Sessions view as it is written, opens in the inspector, and grows there live when the agent
 * goes on. "Set Up an Agent…" shows what it adds and writes it when confirmed.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { FrameLocator, Locator } from 'playwright-core';
import { claudeBinary, runClaude } from '../helpers/claudeCode';
import { ScriptedModel } from '../helpers/scriptedModel';
import { newWorkspace } from './fixtures';
import { poll, VSCode } from './harness';

const CLI = resolve(__dirname, '../../dist/cli.js');
const COMMAND = 'seq 1 40000; echo "error: linker failed at step 40001"; seq 40002 80000';

describe('Agents outside VS Code, in a real VS Code', () => {
  let vs: VSCode;
  let workspace: string;
  let home: string;
  let model: ScriptedModel;
  let modelUrl: string;
  let binary: string;

  before(async () => {
    binary = claudeBinary();
    workspace = newWorkspace();
    home = join(workspace, '..', `${workspace.split('/').pop()}-home`);
    mkdirSync(home, { recursive: true });
    model = new ScriptedModel([
      {
        prompt: 'Build it',
        reply: [
          { type: 'tool_use', id: 'toolu_build', name: 'Bash', input: { command: COMMAND, description: 'Build' } },
        ],
      },
      { after: 'toolu_build', reply: [{ type: 'text', text: 'The linker failed at line 40001.' }] },
      { prompt: 'And the fix?', reply: [{ type: 'text', text: 'A second answer, arriving live.' }] },
    ]);
    modelUrl = await model.start();
    vs = await VSCode.start({
      workspace,
      env: { CLAUDE_CONFIG_DIR: join(home, '.claude'), CODEX_HOME: join(home, '.codex') },
    });
  });
  afterEach(async function () {
    await vs.afterTest(this.currentTest, 'agents-');
  });
  after(async () => {
    await vs?.close();
    await model?.stop();
  });

  const frame = (): FrameLocator => vs.page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
  const treeRow = (name: string | RegExp): Locator => vs.page.getByRole('treeitem', { name }).first();

  it('opening a folder with no store starts no language server; opening the view starts it, and it idles small', async () => {
    // The workbench is up and its extension host has had time to start what it starts.
    await vs.page.locator('.statusbar').waitFor();
    await vs.page.waitForTimeout(5000);
    assert.deepEqual(vs.languageServers(), [], 'no language server before the view is opened');
    assert.doesNotMatch(vs.extensionLog(), /Language server started/);
    await vs.page.locator('.activitybar [aria-label^="Retained Outputs"]').first().click();
    const [server] = await poll(
      'a language server',
      () => vs.languageServers(),
      (servers) => servers.length === 1,
    );
    const activated = await poll(
      'the activation time in the log',
      () => /Activated in (\d+) ms, (\d+) ms of it the language server's start/.exec(vs.extensionLog()),
      (m) => m !== null,
    );
    // Idle: the view's first requests answered, nothing else asked of it for a few seconds.
    await vs.page.waitForTimeout(5000);
    const idle = vs.languageServers().find((s) => s.pid === server!.pid)!;
    console.log(
      `      activation: ${activated![1]} ms (${activated![2]} ms the language server's start); the idle server: ${Math.round(idle.rssBytes / 2 ** 20)} MiB resident`,
    );
    assert.ok(idle.rssBytes < 80 * 2 ** 20, `the idle server holds ${idle.rssBytes} bytes`);
  });

  it('opening a folder creates no store; the sidebar says what to do first', async () => {
    if (!(await vs.page.locator('.pane-header[aria-label^="Runs"]').isVisible()))
      await vs.page.locator('.activitybar [aria-label^="Retained Outputs"]').first().click();
    const welcome = vs.page.locator('.welcome-view-content', { hasText: 'No retained outputs yet' }).first();
    await welcome.waitFor({ timeout: 60_000 });
    for (const button of ['Set Up an Agent…', 'Import Agent Session…'])
      assert.equal(await welcome.getByRole('button', { name: button }).count(), 1, button);
    await vs.screenshot('welcome');
    assert.equal(existsSync(join(workspace, '.retained')), false, 'no .retained after activation');
  });

  function claude(prompt: string, resume?: string) {
    const settingsFile = join(home, 'settings.json');
    const mcpConfigFile = join(home, 'mcp.json');
    writeFileSync(
      settingsFile,
      JSON.stringify({
        hooks: {
          PostToolUse: [
            { matcher: '*', hooks: [{ type: 'command', command: `"${process.execPath}" "${CLI}" hook claude-code` }] },
          ],
        },
      }),
    );
    writeFileSync(
      mcpConfigFile,
      JSON.stringify({ mcpServers: { retained: { command: process.execPath, args: [CLI, 'mcp'] } } }),
    );
    return runClaude(
      {
        home,
        cwd: workspace,
        modelUrl,
        prompt,
        allowedTools: ['Bash', 'mcp__retained__peek_value'],
        settingsFile,
        mcpConfigFile,
        ...(resume ? { resume } : {}),
      },
      binary,
    );
  }

  it('a Claude Code session appears in Agent Sessions as the agent writes it, opens in the inspector, and grows there live', async () => {
    if (!(await vs.page.locator('.pane:has(.pane-header[aria-label^="Agent Sessions"])').isVisible())) {
      await vs.page.locator('.activitybar [aria-label^="Retained Outputs"]').first().click();
    }
    await vs.page.locator('.pane-header[aria-label^="Agent Sessions"]').waitFor({ timeout: 30_000 });
    const first = await claude('Build it and tell me what failed.');
    assert.equal(first.code, 0, first.stderr.slice(-1000));
    const session = treeRow(/Build it and tell me what failed/);
    await session.waitFor({ timeout: 30_000 });
    assert.match((await session.innerText()).replace(/\s+/g, ' '), /Claude Code · \d+s ago/);
    await session.click();
    await poll(
      'the session in the inspector',
      () =>
        frame()
          .locator('.header')
          .innerText()
          .catch(() => ''),
      (t) => /\d+ tool calls?/.test(t),
    );
    // What Claude Code sent (the hook's stub), event by event.
    await poll(
      'the stub the model got',
      () =>
        frame()
          .locator('.row')
          .allInnerTexts()
          .then((t) => t.join('\n'))
          .catch(() => ''),
      (t) => t.includes('[retained #toolu_build]') && t.includes('error at line 40001'),
    );
    assert.match(await frame().locator('.columns-head').innerText(), /As Claude Code sent it/);
    await vs.screenshot('agent-session-inspector');

    // The agent goes on in the same session: the open inspector shows it without a reload.
    const second = await claude('And the fix?', first.sessionId);
    assert.equal(second.code, 0, second.stderr.slice(-1000));
    await poll(
      'the new answer, live',
      () =>
        frame()
          .locator('.row')
          .allInnerTexts()
          .then((t) => t.join('\n'))
          .catch(() => ''),
      (t) => t.includes('A second answer, arriving live.'),
      30_000,
    );

    // The hook kept the whole output in the workspace's store, under the session.
    const value = join(workspace, '.retained', 'runs', `${first.sessionId}.values`, 'toolu_build.txt');
    assert.ok(existsSync(value));
    assert.equal(readFileSync(value, 'utf8').split('\n').length, 80_001);
  });

  it('Set Up Claude Code shows what it will add, and writes it when confirmed', async () => {
    // The live inspector of the last test could take the focus, and a quick pick closes on losing it.
    await vs.runCommand('View: Close All Editors');
    await vs.runCommand('Retained Outputs: Set Up an Agent…');
    await vs.page
      .locator('.quick-input-title', { hasText: 'Set Up an Agent for Retained Outputs' })
      .waitFor({ timeout: 20_000 });
    const pick = vs.page.locator('.quick-input-list .monaco-list-row[aria-label^="Claude Code"]').first();
    await pick.waitFor({ timeout: 20_000 });
    // Chosen from the keyboard: the list may still be moving as it opens.
    await vs.page.locator('.quick-input-widget input').fill('Claude Code');
    await vs.page.keyboard.press('Enter');
    const question = vs.page.locator('.quick-input-title', { hasText: 'Set up Claude Code for Retained Outputs' });
    await question.waitFor({ timeout: 20_000 });
    const write = vs.page.locator('.quick-input-list .monaco-list-row[aria-label="Write 3 Files"]');
    // The preview: a read-only document beside the question, not a dirty Untitled under a modal.
    assert.deepEqual(await vs.tabTitles(), ['Set up Claude Code.md']);
    assert.equal(await vs.page.locator('.monaco-dialog-box').count(), 0, 'no modal dialog covers it');
    assert.match(
      (await vs.page.locator('.editor-instance .view-lines').first().innerText()).replace(/\u00a0/g, ' '),
      /Nothing is written until you choose \*\*Write 3 Files\*\*/,
    );
    await vs.screenshot('agent-setup');
    // The question stays: not a notification that hides after a while, nor lost when the preview
    // is clicked to be read.
    await vs.page.locator('.editor-instance .view-lines').first().click();
    await new Promise((r) => setTimeout(r, 30_000));
    assert.ok(await question.isVisible(), 'the question is still there after 30 s');
    await write.waitFor({ timeout: 5_000 });
    await write.click();
    await poll(
      'the configuration written',
      () => existsSync(join(workspace, '.claude', 'settings.json')),
      (ok) => ok,
    );
    await poll(
      'the preview closed, nothing left to save',
      () => vs.tabTitles(),
      (tabs) => tabs.length === 0,
    );
    // The command line's stable copy: a path with no version in it, which the next update keeps.
    const mcp = JSON.parse(readFileSync(join(workspace, '.mcp.json'), 'utf8'));
    assert.deepEqual(mcp.mcpServers.retained.args.slice(1), ['mcp']);
    const cli = mcp.mcpServers.retained.args[0] as string;
    assert.match(cli, /globalStorage\/retained-outputs\.retained-outputs\/cli\/cli\.js$/);
    assert.doesNotMatch(cli, /\d+\.\d+\.\d+/);
    assert.ok(existsSync(cli) && existsSync(join(cli, '..', 'scanKernel.wasm')), 'the copy is there, kernel beside it');
    const settings = JSON.parse(readFileSync(join(workspace, '.claude', 'settings.json'), 'utf8'));
    const hook = settings.hooks.PostToolUse[0].hooks[0].command as string;
    assert.ok(hook.endsWith(`${cli} hook claude-code`), hook);
    // The shell prefix its Bash tool runs commands through: named in the settings, a program.
    const prefix = join(workspace, '.claude', 'retained-outputs-prefix.sh');
    assert.equal(settings.env.CLAUDE_CODE_SHELL_PREFIX, prefix);
    assert.equal(statSync(prefix).mode & 0o111, 0o111, 'executable');
    // The copy runs, and is the command line this extension bundles.
    const { execFileSync } = await import('node:child_process');
    assert.equal(
      execFileSync(process.execPath, [cli, '--version'], { encoding: 'utf8' }).trim(),
      execFileSync(process.execPath, [CLI, '--version'], { encoding: 'utf8' }).trim(),
    );
  });

  it('Remove from an Agent shows what it takes out, the same way, and leaves the project as it was', async () => {
    await vs.runCommand('View: Close All Editors');
    await vs.runCommand('Retained Outputs: Remove from an Agent…');
    await vs.page
      .locator('.quick-input-title', { hasText: 'Remove Retained Outputs from an Agent' })
      .waitFor({ timeout: 20_000 });
    await vs.page.locator('.quick-input-list .monaco-list-row[aria-label^="Claude Code"]').first().waitFor();
    await vs.page.locator('.quick-input-widget input').fill('Claude Code');
    await vs.page.keyboard.press('Enter');
    const remove = vs.page.locator('.quick-input-list .monaco-list-row[aria-label="Remove from 3 Files"]');
    await remove.waitFor({ timeout: 20_000 });
    assert.deepEqual(await vs.tabTitles(), ['Remove from Claude Code.md']);
    const preview = (await vs.page.locator('.editor-instance .view-lines').first().innerText()).replace(/\u00a0/g, ' ');
    assert.match(preview, /settings\.json \(deleted: it holds only what Set Up wrote\)/);
    await remove.click();
    await poll(
      'the files Set Up wrote gone, its .claude folder with them',
      () => ['.mcp.json', '.claude'].filter((f) => existsSync(join(workspace, f))),
      (left) => left.length === 0,
    );
    assert.deepEqual(await vs.tabTitles(), []);
  });
});
