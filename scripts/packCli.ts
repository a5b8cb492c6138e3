/**
 * The command line as an npm package (`npm run pack:cli`): only what `retained`, its hooks and
 * its MCP server load (dist/cli.js, the server bundle, the lazily loaded vendor files, the scan
 * kernel, the Agent SDK helper), with its own package.json and README, at the extension's
 * version. Written to dist/npm/ and packed by `npm pack` into dist/retained-outputs-<version>.tgz.
 * Run after `npm run build`.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI_FILES } from '../shared/cliFiles';
import { ROOT } from './tools';

/** Files of dist/ the package holds, by name: the command line's, and the Agent SDK helper. */
const FILES = [...CLI_FILES, 'claudeAgentSdk.js'];

/** Writes the command line's files into `out` (emptied first): what the package and each agent extension hold. */
export function copyCommandLine(out: string): void {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(join(out, 'vendor'), { recursive: true });
  for (const file of FILES) {
    if (!existsSync(join(ROOT, 'dist', file))) throw new Error(`dist/${file} is missing: run npm run build first`);
    cpSync(join(ROOT, 'dist', file), join(out, file));
  }
  for (const file of readdirSync(join(ROOT, 'dist', 'vendor')).filter((f) => f.endsWith('.js')))
    cpSync(join(ROOT, 'dist', 'vendor', file), join(out, 'vendor', file));
  cpSync(join(ROOT, 'LICENSE'), join(out, 'LICENSE'));
}

export function packCli(): string {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const out = join(ROOT, 'dist', 'npm');
  copyCommandLine(out);
  cpSync(join(ROOT, 'media', 'npm-README.md'), join(out, 'README.md'));
  const pkg = {
    name: manifest.name,
    mcpName: manifest.mcpName,
    version: manifest.version,
    description:
      'Keeps big tool outputs out of coding agents\u2019 context without losing a byte: the retained command line, its agent hooks and its MCP server',
    license: manifest.license,
    repository: manifest.repository,
    homepage: manifest.homepage,
    bugs: manifest.bugs,
    keywords: ['mcp', 'claude-code', 'codex', 'gemini-cli', 'coding-agent', 'context'],
    engines: { node: '>=20' },
    bin: { retained: 'cli.js' },
    main: 'claudeAgentSdk.js',
    files: [...FILES, 'vendor/'],
  };
  writeFileSync(join(out, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  const packed = execFileSync('npm', ['pack', '--silent', '--pack-destination', join(ROOT, 'dist')], {
    cwd: out,
    encoding: 'utf8',
  })
    .trim()
    .split('\n')
    .pop()!;
  return join(ROOT, 'dist', packed);
}

if (require.main === module) console.log(packCli());
