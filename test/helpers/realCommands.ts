/**
 * The commands every agent test runs besides the 1 MB build, as users run them: the build
 * failing, a bash-only line, a command the agent kills, and one the user's rules deny. With
 * Retained Outputs each must end as it does without it; the failing build's output is kept whole.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUILD, buildOutput, stubId } from './buildScenario';

/** The build, failing: its error on line 80,001, exit 2. */
export const FAILING = `${BUILD}; exit 2`;
/** Brace expansion, `[[ ]]`, an array, `let`: dash refuses or prints otherwise (no `$((`: Gemini CLI refuses it). */
// biome-ignore lint/suspicious/noTemplateCurlyInString: a shell command: its ${…} is the shell's
export const BASH_ONLY = 'arr=(alpha beta); [[ ${arr[1]} == beta ]] && let n=6*7 && echo "${arr[1]}" {1..3} $n';
export const BASH_ONLY_OUTPUT = 'beta 1 2 3 42';
/** Runs until it is killed, writing a line every 0.2 s. */
export const TICKING = 'while true; do echo tick >> ticks.txt; sleep 0.2; done';
/** What a deny rule on `rm` refuses. */
export const DENIED = 'rm victim.txt';

/**
 * A command given a second before it exits, for agents that stop reading a command's output when
 * its process exits, so that on a loaded machine they lose the end of it, with Retained Outputs or
 * without: OpenCode 1.18.33 (the exit races the stream it reads), Qwen Code 0.24.4 (its PTY's
 * `onExit` waits two `setImmediate` turns for data, then finalizes: data the PTY has not handed
 * over by then is dropped). The value can then be held to the command's whole output.
 */
export const settled = (command: string) => command.replace(/(; exit 2)?$/, '; sleep 1$1');

/** The file a denied `rm` would remove, made before the session. */
export function plantVictim(cwd: string): void {
  writeFileSync(join(cwd, 'victim.txt'), 'keep me\n');
}

/** The failing build: the model got our stub naming the error's line and how it ended; the value is the whole output. */
export function assertFailingKept(
  what: string,
  { sent, cwd, trimmed = false }: { sent: string | undefined; cwd: string; trimmed?: boolean },
): void {
  assert.ok(sent, `${what}: the failing call was answered`);
  assert.match(sent, /\[retained #\S+\] \S+ (result|error): \d+ bytes, 160000 lines/, `${what}: ${sent.slice(0, 500)}`);
  assert.match(sent, /Landmarks: [^\n]*error at line 80001/, what);
  assert.match(sent, /exit(ed)?( with)?( code)? 2\b/, `${what}: the model sees that the command failed`);
  assert.ok(Buffer.byteLength(sent) < 4096, `${what}: a stub, not the output (${Buffer.byteLength(sent)} bytes)`);
  const runs = join(cwd, '.retained', 'runs');
  const values = readdirSync(runs).filter((d) => d.endsWith('.values'));
  const file = values.map((v) => join(runs, v, `${stubId(sent)}.txt`)).find((f) => existsSync(f));
  assert.ok(file, `${what}: the value ${stubId(sent)} is in the store`);
  // An agent that trims an output's end before its hooks see it (trimmed) keeps all but the last newline.
  const whole = trimmed ? buildOutput().subarray(0, -1) : buildOutput();
  assert.deepEqual(readFileSync(file), whole, `${what}: the value is the whole output`);
  console.log(
    `      ${what}: a failing 1 MB build gave the model ${Buffer.byteLength(sent)} bytes, exit 2 and the error's line named`,
  );
}

/** The ticking command was ended with the session: its file grows no more. */
export async function assertStopped(what: string, cwd: string): Promise<void> {
  const ticks = join(cwd, 'ticks.txt');
  assert.ok(existsSync(ticks), `${what}: the command ran`);
  const before = statSync(ticks).size;
  await new Promise((resolve) => setTimeout(resolve, 1500));
  assert.equal(statSync(ticks).size, before, `${what}: nothing runs on after the agent ended it`);
}

/** The denied `rm` did not run. */
export function assertDenied(what: string, cwd: string): void {
  assert.ok(existsSync(join(cwd, 'victim.txt')), `${what}: the rule kept the file`);
}
