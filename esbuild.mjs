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

/**
 * Libraries a process at rest never runs, each in a file of its own in dist/vendor/ that cli.js
 * requires on first use: every byte of a script costs memory once it is loaded, run or not (the
 * tokenizer's table alone is 2.7 MB). Each file exports its modules by name; the modules that
 * must share one copy (ajv and its formats) share a file.
 */
const VENDOR = {
  tokenizer: ['gpt-tokenizer/encoding/o200k_base'],
  re2js: ['re2js'],
  pg: ['pg'],
  ajv: ['ajv', 'ajv-formats'],
};
const vendorOf = new Map(Object.entries(VENDOR).flatMap(([file, modules]) => modules.map((m) => [m, file])));
const escaped = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** In cli.js, a vendored module is a shim over its file's export: `require("./vendor/<file>.js")[<module>]`. */
const fromVendor = {
  name: 'from-vendor',
  setup(build) {
    build.onResolve({ filter: new RegExp(`^(${[...vendorOf.keys()].map(escaped).join('|')})$`) }, ({ path }) => ({
      path,
      namespace: 'vendor-shim',
    }));
    build.onResolve({ filter: /^\.\/vendor\// }, ({ path }) => ({ path, external: true }));
    build.onLoad({ filter: /.*/, namespace: 'vendor-shim' }, ({ path }) => ({
      contents: `module.exports = require(${JSON.stringify(`./vendor/${vendorOf.get(path)}.js`)})[${JSON.stringify(path)}];`,
      loader: 'js',
    }));
  },
};

/** The vendor files themselves: each a bundle exporting its modules by name. */
const vendorBuilds = Object.entries(VENDOR).map(([file, modules]) => ({
  ...node,
  sourcemap: false,
  stdin: {
    contents: `module.exports = {${modules.map((m) => `${JSON.stringify(m)}: require(${JSON.stringify(m)})`).join(', ')}};`,
    resolveDir: '.',
    loader: 'js',
  },
  outfile: `dist/vendor/${file}.js`,
}));

const builds = [
  // The server side, in one bundle with all of its dependencies (it runs under VS Code's own Node):
  // the command line `retained` (with the MCP server and the agents' hooks), and the language
  // server as `retained lsp`, which starts imports on threads of its own (server/src/main.ts).
  {
    ...node,
    entryPoints: { server: 'server/src/main.ts' },
    outdir: 'dist',
    plugins: [fromVendor],
  },
  // `retained` itself: a few lines that answer a hook on a small output without loading the
  // bundle above, and load it for everything else (server/src/cli.ts).
  {
    ...node,
    entryPoints: { cli: 'server/src/cli.ts' },
    outdir: 'dist',
    banner: { js: '#!/usr/bin/env node' },
    external: ['./server.js', './rewriteHooks.js'],
  },
  // The hooks that rewrite a shell command and need nothing of the store: Codex's, Gemini CLI's BeforeTool (cli.ts loads it).
  { ...node, entryPoints: { rewriteHooks: 'server/src/cli/rewriteHooks.ts' }, outdir: 'dist' },
  ...vendorBuilds,
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
