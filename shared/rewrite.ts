/**
 * The rewrite of an agent's shell command that runs it through `retained run`, written once for
 * every agent whose hooks can only change a command before it runs (Codex, Gemini CLI, OpenCode,
 * Cline). The agent's own shell runs the rewrite, which `exec`s our command line (so it is the
 * process the agent started, and the agent's signals reach it) with the command line in a
 * here-document on descriptor 3: never quoted, so it reaches the shell byte for byte at any
 * length, and stdin stays the agent's. `retained run` starts the same shell the agent started
 * (`"$0"`, `-l` if bash says it was a login shell, `-c`) on it.
 */

import { commandLine, type Launcher } from './launcher';
import { utf8Length } from './utf8';

export interface RewriteOptions {
  /** The store, always named: an agent's working folder is not where the user keeps it. */
  store: string;
  run: string;
  /** The call's id, when the agent names one (the value is named after it). */
  call?: string | undefined;
  tool: string;
  guard?: boolean | undefined;
  /** Shell variables of the agent's script the inner shell needs too, passed in its environment. */
  pass?: readonly string[];
}

/** The most a rewritten command may take: one argument of `sh -c` (Linux's MAX_ARG_STRLEN, with its NUL). */
export const REWRITE_MAX_BYTES = 128 * 1024 - 1;

const DESCRIPTOR = 3;
/** The here-document's end line (another when the command holds a line of it). */
export const REWRITE_TAG = 'RETAINED_OUTPUTS_EOF';

/** A here-document's end line that is no line of `text`. */
function tagFor(text: string): string {
  const lines = new Set(text.split('\n'));
  let tag = REWRITE_TAG;
  for (let n = 1; lines.has(tag); n++) tag = `${REWRITE_TAG}_${n}`;
  return tag;
}

/**
 * `command` rewritten to run through `retained run`, or undefined when the rewrite would not fit
 * where the command did (it is then left as it is).
 */
export function rewrite(launcher: Launcher, options: RewriteOptions, command: string): string | undefined {
  const tag = tagFor(command);
  // `--flag=value`: an id that starts with a dash is still the flag's value.
  const retained = commandLine(launcher, [
    'run',
    `--store=${options.store}`,
    `--run=${options.run}`,
    ...(options.call ? [`--call=${options.call}`] : []),
    `--tool=${options.tool}`,
    '--quiet',
    ...(options.guard ? ['--guard'] : []),
    `--command-fd=${DESCRIPTOR}`,
  ]);
  // The shell as the agent started it: its name (`$0`), and bash's options, which say a login shell.
  // (No command substitution: agents refuse a command that holds one.)
  const shell = `--shell="$0" --shell-options="$BASHOPTS"`;
  const pass = (options.pass ?? []).map((name) => `${name}="$${name}" `).join('');
  const text = `${pass}exec ${retained} ${shell} ${DESCRIPTOR}<<'${tag}'\n${command}\n${tag}`;
  return utf8Length(text) <= REWRITE_MAX_BYTES ? text : undefined;
}

/** Whether `command` is a rewrite already (a command is never rewritten twice). */
export function isRewritten(command: string): boolean {
  return /^(\w+="\$\w+" )*exec /.test(command) && command.includes(` --command-fd=${DESCRIPTOR} --shell="$0" `);
}
