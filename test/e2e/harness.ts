/**
 * A real VS Code for end-to-end tests: code-server (installed by scripts/setup-e2e.sh) with the
 * packaged extension, on loopback, driven by Playwright in Debian's Chromium. Every run gets
 * its own user-data, extensions, XDG and temp folders, so no run sees another's settings, state
 * or extensions, and nothing outside its folder is read or written.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { CHROMIUM, ensureTools, packageExtension, packageProbe, ROOT } from '../../scripts/tools';
import { freePort } from '../helpers/freePort';

export const OUTPUT = join(ROOT, 'test-output', 'e2e');

export interface VSCodeOptions {
  workspace: string;
  /** User settings written before start. */
  settings?: Record<string, unknown>;
  /** More environment for VS Code and its extension host (where agents keep their sessions). */
  env?: Record<string, string>;
}

/** Reads until `ok` holds (the workbench updates asynchronously), or fails saying what it last saw. */
export async function poll<T>(
  what: string,
  read: () => Promise<T> | T,
  ok: (value: T) => boolean,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await read();
  while (!ok(last)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last saw ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 200));
    last = await read();
  }
  return last;
}

export class VSCode {
  readonly log: string[] = [];
  private constructor(
    readonly page: Page,
    private readonly context: BrowserContext,
    private readonly server: ChildProcess,
    readonly runDir: string,
    readonly userSettingsPath: string,
    readonly testOutput: string,
    readonly workspace: string,
  ) {}

  /** After each test: a failed one leaves a screenshot and the extension's log; any open menu or box is closed. */
  async afterTest(test: Mocha.Test | undefined, prefix = ''): Promise<void> {
    if (test?.state === 'failed') {
      await this.screenshot(`${prefix}failed-${test.title.replace(/\W+/g, '-')}`);
      console.log(`extension log:\n${this.extensionLog()}`);
    }
    await this.page.keyboard.press('Escape');
  }

  /** Writes the workspace's .vscode/settings.json, as the Settings editor does, while the window is open. */
  setWorkspaceSettings(settings: Record<string, unknown>): void {
    mkdirSync(join(this.workspace, '.vscode'), { recursive: true });
    writeFileSync(join(this.workspace, '.vscode', 'settings.json'), JSON.stringify(settings, null, 2));
  }

  static async start(options: VSCodeOptions): Promise<VSCode> {
    const { node24, codeServer } = ensureTools();
    const vsix = packageExtension();
    const probe = packageProbe();
    // Short paths: unix socket paths are limited to ~107 characters.
    const runDir = mkdtempSync('/tmp/rte2e-');
    const dirs = Object.fromEntries(
      ['user', 'ext', 'xdgc', 'xdgd', 'xdgk', 'tmp', 'chrome', 'out'].map((d) => [d, join(runDir, d)]),
    );
    for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
    const userSettingsPath = join(dirs.user!, 'User', 'settings.json');
    mkdirSync(join(dirs.user!, 'User'), { recursive: true });
    writeFileSync(
      userSettingsPath,
      JSON.stringify(
        {
          'workbench.startupEditor': 'none',
          'chat.disableAIFeatures': true,
          'update.mode': 'none',
          'extensions.autoUpdate': false,
          'extensions.autoCheckUpdates': false,
          'workbench.enableExperiments': false,
          'telemetry.telemetryLevel': 'off',
          'security.workspace.trust.enabled': false,
          'workbench.tips.enabled': false,
          'editor.hover.delay': 100,
          'workbench.secondarySideBar.defaultVisibility': 'hidden',
          ...options.settings,
        },
        null,
        2,
      ),
    );
    const env = {
      ...process.env,
      PATH: `${resolve(node24, '..')}:${process.env.PATH}`,
      XDG_CONFIG_HOME: dirs.xdgc!,
      XDG_DATA_HOME: dirs.xdgd!,
      XDG_CACHE_HOME: dirs.xdgk!,
      TMPDIR: dirs.tmp!,
      RETAINED_TEST_OUTPUT: dirs.out!,
      ...options.env,
    };
    for (const extension of [vsix, probe])
      execFileSync(
        node24,
        [codeServer, '--user-data-dir', dirs.user!, '--extensions-dir', dirs.ext!, '--install-extension', extension],
        { env, stdio: 'ignore' },
      );

    const port = await freePort();
    writeFileSync(join(runDir, 'config.yaml'), 'auth: none\n');
    const server = spawn(
      node24,
      [
        codeServer,
        '--config',
        join(runDir, 'config.yaml'),
        '--bind-addr',
        `127.0.0.1:${port}`,
        '--auth',
        'none',
        '--user-data-dir',
        dirs.user!,
        '--extensions-dir',
        dirs.ext!,
        '--disable-telemetry',
        '--disable-update-check',
        '--disable-workspace-trust',
        '--disable-getting-started-override',
        options.workspace,
      ],
      // Its own process group, so close() stops the extension hosts and servers it started too.
      { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
    );
    const logLines: string[] = [];
    await new Promise<void>((ready, fail) => {
      const timer = setTimeout(
        () => fail(new Error(`code-server did not start in 60 s:\n${logLines.join('')}`)),
        60_000,
      );
      const onData = (data: Buffer) => {
        logLines.push(data.toString());
        if (data.toString().includes('HTTP server listening')) {
          clearTimeout(timer);
          ready();
        }
      };
      server.stdout!.on('data', onData);
      server.stderr!.on('data', onData);
      server.on('exit', (code) => fail(new Error(`code-server exited (${code}):\n${logLines.join('')}`)));
    });

    const context = await chromium.launchPersistentContext(dirs.chrome!, {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1400, height: 900 },
      env: { XDG_CONFIG_HOME: dirs.xdgc!, XDG_CACHE_HOME: dirs.xdgk! },
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--disable-dev-shm-usage',
      ],
    });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: `http://127.0.0.1:${port}` });
    const page = context.pages()[0] ?? (await context.newPage());
    const vscode = new VSCode(page, context, server, runDir, userSettingsPath, dirs.out!, options.workspace);
    vscode.log.push(...logLines);
    server.stdout!.on('data', (d: Buffer) => vscode.log.push(d.toString()));
    server.stderr!.on('data', (d: Buffer) => vscode.log.push(d.toString()));
    const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(options.workspace)}`;
    const consoleErrors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    await page.goto(url);
    try {
      await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    } catch (err) {
      await vscode.screenshot('workbench-did-not-load');
      await vscode.close();
      throw new Error(
        `the workbench did not load: ${(err as Error).message}\nbrowser console errors:\n${consoleErrors.slice(0, 20).join('\n')}`,
      );
    }
    return vscode;
  }

  /** Right-clicks `target` (a tree row, an Explorer file) and picks an item of its context menu. */
  async contextMenu(target: Locator, item: string | RegExp): Promise<void> {
    await target.click({ button: 'right' });
    const entry = this.page.getByRole('menuitem', { name: item });
    await entry.waitFor();
    await this.page.waitForTimeout(150); // the menu ignores clicks while it animates in
    await entry.click();
    await entry.waitFor({ state: 'detached' });
  }

  /** Runs a command by its title through the command palette (F1). */
  async runCommand(title: string): Promise<void> {
    const input = this.page.locator('.quick-input-widget input');
    const row = this.page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
    // A key can land where the workbench does not see it (a tree just clicked, a closing editor), and
    // the palette can list nothing while the workbench is busy: as a person would, close it and try again.
    for (let attempt = 1; ; attempt++) {
      await this.page.keyboard.press(attempt === 1 ? 'F1' : 'Control+Shift+P');
      const listed = await input
        .waitFor({ timeout: 10_000 })
        .then(async () => {
          await input.fill(`>${title}`);
          await row.waitFor({ timeout: 10_000 });
          return true;
        })
        .catch(() => false);
      if (listed) break;
      if (attempt === 3) throw new Error(`the command palette did not list "${title}"`);
      await this.page.keyboard.press('Escape');
      await this.page.waitForTimeout(1000);
    }
    // Click the matching row: Enter would run the top one, which may be a longer title containing it.
    await row.click();
  }

  async screenshot(name: string): Promise<void> {
    mkdirSync(OUTPUT, { recursive: true });
    await this.page.screenshot({ path: join(OUTPUT, `${name}.png`) });
  }

  /** The names of the open editor tabs, e.g. `notes.md`. */
  async tabTitles(): Promise<string[]> {
    const labels = await this.page
      .locator('.tabs-container .tab')
      .evaluateAll((tabs) => tabs.map((t) => t.getAttribute('aria-label') ?? ''));
    return labels.map((label) => label.split(/,\s/)[0]!.trim());
  }

  /** The language servers this VS Code's extension started (`cli.js lsp`): their pids and resident memory. */
  languageServers(): { pid: number; rssBytes: number }[] {
    const servers: { pid: number; rssBytes: number }[] = [];
    for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
      try {
        const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        const at = args.findIndex((a) => a.startsWith(this.runDir) && a.endsWith('/dist/cli.js'));
        if (at === -1 || args[at + 1] !== 'lsp') continue;
        const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
        servers.push({ pid: Number(pid), rssBytes: kb ? Number(kb[1]) * 1024 : Number.NaN });
      } catch {
        // gone meanwhile
      }
    }
    return servers;
  }

  /** The extension's own log (its output channel), for diagnosing a failed test. */
  extensionLog(): string {
    return execFileSync(
      'bash',
      ['-c', `find ${JSON.stringify(this.runDir)} -name '*Retained Outputs.log' -print0 | xargs -0 cat`],
      { encoding: 'utf8' },
    );
  }

  async close(): Promise<void> {
    await this.context.close().catch(() => undefined);
    await new Promise<void>((done) => {
      if (this.server.exitCode !== null) return done();
      this.server.once('exit', () => done());
      this.signalGroup('SIGTERM');
      setTimeout(() => this.signalGroup('SIGKILL'), 5000);
    });
    this.signalGroup('SIGKILL'); // children that outlived code-server
    // A child may still be closing a file as the folder goes: retry rather than fail the run.
    rmSync(this.runDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  }

  private signalGroup(signal: NodeJS.Signals): void {
    try {
      process.kill(-this.server.pid!, signal);
    } catch {
      // the group is gone already
    }
  }
}
