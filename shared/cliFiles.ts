/**
 * The files of dist/ the command line needs beside it, with the vendor/ folder: cli.js, the
 * server bundle it loads, the bundle of the hooks that rewrite a command, the scan kernel. The npm package
 * (scripts/packCli.ts), the extension's copy in its global storage (extension/src/cliInstall.ts)
 * and the extension's package (.vscodeignore, held by test/unit/manifest.test.ts) take each.
 */
export const CLI_FILES = ['cli.js', 'server.js', 'rewriteHooks.js', 'scanKernel.wasm'] as const;
