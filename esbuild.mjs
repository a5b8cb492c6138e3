// One build for every bundle. `node esbuild.mjs` builds once; `--watch` rebuilds on change;
// `--production` minifies.

import { cpSync, mkdirSync } from 'node:fs';
import * as esbuild from 'esbuild';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

const node = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
  // jsonc-parser's main build is UMD with requires esbuild cannot follow; its ES module build bundles.
  alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
  // node-postgres asks for its optional native binding only when told to: never here (pure JavaScript).
  external: ['pg-native'],
};

/** cli.js asks for the tokenizer at run time, from the file beside it (see the tokenizer build). */
const besideTokenizer = {
  name: 'beside-tokenizer',
  setup(build) {
    build.onResolve({ filter: /^gpt-tokenizer\/encoding\/o200k_base$/ }, () => ({
      path: './tokenizer.js',
      external: true,
    }));
  },
};

const builds = [
  // The server side, in one bundle with all of its dependencies (it runs under VS Code's own Node):
  // the command line `retained` (with the MCP server and the agents' hooks), and the language
  // server as `retained lsp`, which starts imports on threads of its own (server/src/main.ts).
  {
    ...node,
    entryPoints: { cli: 'server/src/main.ts' },
    outdir: 'dist',
    banner: { js: '#!/usr/bin/env node' },
    plugins: [besideTokenizer],
  },
  // The tokenizer's table (2.7 MB of script), a file of its own beside cli.js: parsed only when a
  // token is first counted, so a server or command that counts none stays small.
  {
    ...node,
    entryPoints: { tokenizer: 'node_modules/gpt-tokenizer/cjs/encoding/o200k_base.js' },
    outdir: 'dist',
    sourcemap: false,
  },
  // The Claude Agent SDK helper, loaded by the user's own program (it starts cli.js beside it).
  { ...node, entryPoints: { claudeAgentSdk: 'server/src/sdk/claudeAgentSdk.ts' }, outdir: 'dist' },
  // The extension: everything but `vscode`, which the extension host provides.
  {
    ...node,
    entryPoints: { extension: 'extension/src/extension.ts' },
    outdir: 'dist',
    external: ['vscode', 'pg-native'],
  },
  // The extension-host suite, loaded by VS Code from `extensionTestsPath` (mocha from node_modules).
  {
    ...node,
    entryPoints: { 'test/vscode/index': 'test/vscode/index.ts', 'test/vscode/suite.test': 'test/vscode/suite.test.ts' },
    outdir: 'dist',
    external: ['vscode', 'mocha'],
  },
  // The inspector webview: React for the browser, with its CSS beside it. Always React's
  // production build: the development one is several times slower on big runs.
  {
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    jsx: 'automatic',
    entryPoints: { inspector: 'webview/src/main.tsx' },
    outdir: 'dist/webview',
    define: { 'process.env.NODE_ENV': '"production"' },
    sourcemap: !production,
    minify: true,
    logLevel: 'warning',
  },
];

// The scan kernel (core/kernel/scanKernel.ts), beside the bundles that read it.
mkdirSync('dist', { recursive: true });
cpSync('server/src/core/kernel/scanKernel.wasm', 'dist/scanKernel.wasm');

// Codicons, loaded by the webview as a stylesheet (vscode-elements finds it by its id).
mkdirSync('dist/webview', { recursive: true });
for (const file of ['codicon.css', 'codicon.ttf'])
  cpSync(`node_modules/@vscode/codicons/dist/${file}`, `dist/webview/${file}`);

if (watch) {
  for (const options of builds) await (await esbuild.context(options)).watch();
} else {
  await Promise.all(builds.map((options) => esbuild.build(options)));
}
