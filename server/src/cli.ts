/**
 * `dist/cli.js`: the command `retained` as the agents and the extension start it. It loads the
 * server bundle (`dist/server.js`: the command line, the language server, the MCP server, the
 * hooks) for everything but the one path that runs on every tool call of every session and must
 * cost no more than Node itself: a Claude Code hook on a small output. That output passes
 * untouched and unrecorded, as the hook leaves it (cli/hook.ts), so nothing is loaded for it.
 * This file imports only Node's own modules and a constant.
 */
import { readFileSync } from 'node:fs';
import { DEFAULT_THRESHOLD_BYTES } from '../../shared/threshold';

/**
 * Whether the hook leaves this input alone, surely: all of it no bigger than the threshold (the
 * output is within it, as JSON never makes text shorter), no output saved to a file (Claude
 * Code's big Bash outputs), and a hook input at all (else the hook says why in its log).
 */
function leftAlone(input: Buffer): boolean {
  if (input.length > DEFAULT_THRESHOLD_BYTES || input.includes('persistedOutputPath')) return false;
  try {
    const v = JSON.parse(input.toString('utf8')) as Record<string, unknown> | null;
    return ['session_id', 'tool_name', 'tool_use_id'].every((key) => typeof v?.[key] === 'string' && v[key] !== '');
  } catch {
    return false;
  }
}

/** Reads all of stdin, or undefined when it cannot be read here (the bundle reads it then). */
function readStdin(): Buffer | undefined {
  try {
    return readFileSync(0);
  } catch {
    return undefined;
  }
}

const argv = process.argv.slice(2);
// `--guard` (a secret in a small output is withheld) or any other option: the bundle decides.
const hook = argv.length === 2 && argv[0] === 'hook' && argv[1] === 'claude-code';
const stdin = hook ? readStdin() : undefined;
if (!(stdin && leftAlone(stdin))) require('./server.js').start(stdin);
