/**
 * `npm start`: builds the extension, installs what a real VS Code needs (first run only), and
 * opens code-server on 127.0.0.1 with the extension and a demo workspace whose store holds a
 * recorded run. Prints the URL; Ctrl+C stops it.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { STORE_DIR } from '../shared/storeDir';
import { recordDemoRun } from './demoRun';
import { ensureTools, packageExtension, ROOT } from './tools';

const PORT = Number(process.env.PORT ?? 8080);

const DEMO_SETTINGS = {
  'workbench.startupEditor': 'readme',
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'chat.commandCenter.enabled': false,
  'update.mode': 'none',
  'telemetry.telemetryLevel': 'off',
  'extensions.autoUpdate': false,
};

const DEMO_README = `# Retained Outputs demo

This workspace's store holds one recorded run of a coding agent: its read of a big
\`package-lock.json\` is kept whole, and the model got a short stub instead.

1. Open **Retained Outputs** in the activity bar: **Runs** lists \`demo-run\` and its value.
2. Click the value: the original opens, read-only, as JSON.
3. Click the run's inspector button: the transcript beside exactly what the model was sent.
4. Open \`notes.md\`: the stub in it is a link; hover or Ctrl+click it.

The guide: **Retained Outputs: Open the Guide (README)** in the command palette.
`;

/** What settings an earlier demo left; none when there are none or they do not parse (comments: VS Code writes JSONC). */
function readSettings(path: string): Record<string, unknown> {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

async function main(): Promise<void> {
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
  const { node24, codeServer } = ensureTools();
  const vsix = packageExtension();
  const home = join(homedir(), '.cache', 'retained-outputs-demo');
  const workspace = join(home, 'workspace');
  const userData = join(home, 'user-data');
  const extensions = join(home, 'extensions');
  for (const dir of [workspace, join(userData, 'User'), extensions]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(workspace, 'README.md'), DEMO_README);
  if (!existsSync(join(workspace, STORE_DIR, 'runs', 'demo-run.jsonl'))) {
    const { stub } = await recordDemoRun(workspace);
    writeFileSync(join(workspace, 'notes.md'), `# A stub is a link\n\nCtrl+click or hover it:\n\n${stub.content}\n`);
  }
  // The demo's own settings, over whatever an earlier demo left: its README open, the editor wide (no Chat beside it).
  const settings = join(userData, 'User', 'settings.json');
  const before = readSettings(settings);
  writeFileSync(settings, JSON.stringify({ ...before, ...DEMO_SETTINGS }, null, 2));
  const env = { ...process.env, PATH: `${join(node24, '..')}:${process.env.PATH}` };
  execFileSync(
    node24,
    [codeServer, '--user-data-dir', userData, '--extensions-dir', extensions, '--force', '--install-extension', vsix],
    { env, stdio: 'ignore' },
  );
  const server = spawn(
    node24,
    [
      codeServer,
      '--bind-addr',
      `127.0.0.1:${PORT}`,
      '--auth',
      'none',
      '--user-data-dir',
      userData,
      '--extensions-dir',
      extensions,
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--disable-getting-started-override',
      workspace,
    ],
    { env, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  server.stdout.on('data', (data: Buffer) => {
    if (data.toString().includes('HTTP server listening')) {
      console.log(
        `\nRetained Outputs is running in VS Code (code-server):\n\n  http://127.0.0.1:${PORT}/?folder=${encodeURIComponent(workspace)}\n\nDemo workspace: ${workspace}\nCtrl+C to stop.`,
      );
    }
  });
  const stop = () => server.kill('SIGTERM');
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  server.on('exit', (code) => process.exit(code ?? 0));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
