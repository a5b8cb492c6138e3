/** Runs one of the project's setup scripts (they install what is missing, idempotently) and gives what its last line names. */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

const done = new Map<string, string>();

export function setupScript(name: string): string {
  let out = done.get(name);
  if (out === undefined) {
    out = execFileSync('bash', [resolve(__dirname, '../../scripts', name)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    })
      .trim()
      .split('\n')
      .pop()!;
    done.set(name, out);
  }
  return out;
}
