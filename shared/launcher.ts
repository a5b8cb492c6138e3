/**
 * How `retained` is started from a shell: the Node that runs it and the script, as setup writes
 * them into an agent's configuration and as a rewritten command starts it again. Nothing else is
 * here, so a hook that only rewrites a command loads no more than this (cli/rewriteHooks.ts).
 */

/** How to start the `retained` command line: a Node and a cli.js that outlives an upgrade. */
export interface Launcher {
  node: string;
  cli: string;
  /** Set when `node` is the editor's own binary, which runs scripts only with ELECTRON_RUN_AS_NODE. */
  env?: Record<string, string>;
}

/** A word as a POSIX shell reads it back: as it is when plain, else in single quotes. */
export const shellQuote = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

/** The command line that runs `retained <args>`, for a shell. */
export function commandLine(launcher: Launcher, args: string[]): string {
  const env = Object.entries(launcher.env ?? {}).map(([k, v]) => `${k}=${shellQuote(v)} `);
  return `${env.join('')}${[launcher.node, launcher.cli, ...args].map(shellQuote).join(' ')}`;
}
