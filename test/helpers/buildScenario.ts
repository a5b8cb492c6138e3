/**
 * The one scenario every agent test runs: a build printing 1 MB, its error on line 80,001 of
 * 160,000. With Retained Outputs the model must get our stub naming that line, peek it through
 * MCP, and the value must be the whole output; without, the line must not reach the model.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const BUILD = 'seq 1 80000; echo "error: linker failed at step 80001"; seq 80002 160000';
/** The command line the agents' configuration starts: the built one. */
export const CLI = resolve(__dirname, '../../dist/cli.js');

export const buildOutput = (): Buffer => execFileSync('sh', ['-c', BUILD], { maxBuffer: 64 << 20 });

/** The value id a stub names, or `missing`. */
export const stubId = (text: string | undefined): string => /\[retained #(\S+)\]/.exec(text ?? '')?.[1] ?? 'missing';

/** With Retained Outputs: `sent` is our stub for `tool`, naming the error's line; `peeked` holds the line; the value is `whole`. */
export function assertKept(
  what: string,
  {
    sent,
    peeked,
    cwd,
    tool,
    whole = buildOutput(),
  }: { sent?: string | undefined; peeked?: string | undefined; cwd: string; tool: string; whole?: Buffer },
): void {
  assert.ok(sent, 'the call was answered');
  assert.match(sent, new RegExp(`\\[retained #(\\S+)\\] ${tool} result: \\d+ bytes, 160000 lines`));
  assert.match(sent, /Landmarks: error at line 80001/);
  assert.ok(Buffer.byteLength(sent) < 4096, `a stub, not the output (${Buffer.byteLength(sent)} bytes)`);
  assert.match(peeked ?? '', /80001: error: linker failed at step 80001/);
  const runs = join(cwd, '.retained', 'runs');
  const values = readdirSync(runs).find((d) => d.endsWith('.values'))!;
  assert.deepEqual(readFileSync(join(runs, values, `${stubId(sent)}.txt`)), whole);
  console.log(`      ${what}: the model got ${Buffer.byteLength(sent)} bytes for the output, the error's line named`);
}

/** Without it: the error's own line is not in what the model got (the command, echoed by some agents, holds its words too). */
export function assertLost(what: string, sent: string | undefined): void {
  assert.ok(sent, 'the call was answered');
  assert.doesNotMatch(
    sent,
    /^error: linker failed at step 80001$/m,
    `the error in the middle never reaches the model (it got ${sent.slice(0, 300)} … ${sent.slice(-300)})`,
  );
  console.log(
    `      ${what}: the model got ${Buffer.byteLength(sent)} bytes of a ${buildOutput().length}-byte output, the error not in it`,
  );
}
