/**
 * The one bundle of the server side (`dist/server.js`, which dist/cli.js loads: server/src/cli.ts): the command line `retained`, the language
 * server (`retained lsp`, as the extension starts it), or, started as a thread of that server,
 * an import (lsp/importThread.ts). One copy of the core and of the tokenizer's table for all three;
 * each part is evaluated only when it runs.
 */
import { isImportThread, runImportThread } from './lsp/importThread';

if (isImportThread()) void runImportThread();

/** Runs the command of `process.argv`; `stdin`: what dist/cli.js read of it already (a hook's input), and whether that was all. */
export function start(stdin?: { head: Buffer; ended: boolean }): void {
  if (process.argv[2] === 'lsp') void import('./lsp/server');
  else
    void import('./cli/main').then(({ main }) =>
      main(process.argv.slice(2), stdin).then(
        (code) => {
          // The MCP server keeps the process alive through its transport.
          if (code !== 0 || process.argv[2] !== 'mcp') process.exitCode = code;
        },
        (err) => {
          process.stderr.write(`retained: ${(err as Error).stack ?? String(err)}\n`);
          process.exitCode = 1;
        },
      ),
    );
}
