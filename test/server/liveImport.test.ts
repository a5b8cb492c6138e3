/**
 * A session recorded with Retained Outputs' hook active (test/fixtures/claude-code/hook-*: the
 * session folder Claude Code wrote, and the store the hook wrote beside it) imported into that
 * store: one run, enriched with the exact requests, and every value whose stub the model got
 * still there and peekable, whatever `ifExists` says. Through the CLI and through the server.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ImportRequest, InspectRequest, PeekRequest } from '../../shared/protocol';
import { findMarkers } from '../../shared/stubText';
import { loggedRequests, sessionFile } from '../helpers/asSent';
import { ServerProcess } from '../helpers/serverProcess';
import { removeTempDirs, tempDir } from '../helpers/tmp';

const CLI = resolve(__dirname, '../../dist/cli.js');
const RECORDED = resolve(__dirname, '../fixtures/claude-code');
const HOOKED = readdirSync(RECORDED).filter((d) => d.startsWith('hook-'));

function retained(args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The value ids of every stub the model was sent, from the logged request bodies. */
function stubsTheModelGot(dir: string): string[] {
  const ids = new Set<string>();
  for (const request of loggedRequests(dir))
    for (const message of request.body.messages ?? [])
      for (const block of Array.isArray(message.content) ? message.content : [])
        if ((block as { type?: string }).type === 'tool_result')
          for (const ref of findMarkers(JSON.stringify((block as { content?: unknown }).content))) ids.add(ref.valueId);
  return [...ids];
}

/** A copy of the fixture: the store the hook wrote, and the session folder. */
function copyOf(scenario: string): { store: string; session: string } {
  const root = tempDir();
  cpSync(join(RECORDED, scenario), root, { recursive: true });
  return { store: join(root, 'store'), session: sessionFile(root) };
}

describe('a hooked session imported into the store its hook wrote', function () {
  this.timeout(120_000);
  after(removeTempDirs);

  for (const scenario of HOOKED) {
    const dir = join(RECORDED, scenario);
    const stubs = stubsTheModelGot(dir);

    it(`${scenario}: the model got ${stubs.length} stubs; with each --if-exists, one run, exact, every stub's value peekable (CLI)`, () => {
      assert.ok(stubs.length > 0, 'the recording has stubs the model got');
      for (const ifExists of [undefined, 'error', 'new', 'replace']) {
        const { store, session } = copyOf(scenario);
        const sessionId = JSON.parse(readFileSync(join(dir, 'recording.json'), 'utf8')).sessionId as string;
        const imported = retained([
          'import',
          session,
          '--store',
          store,
          '--json',
          ...(ifExists ? ['--if-exists', ifExists] : []),
        ]);
        assert.equal(imported.code, 0, `${ifExists}: ${imported.stderr}`);
        const result = JSON.parse(imported.stdout) as { runId: string; fidelity: string; enriched?: number };
        assert.equal(result.runId, sessionId, `${ifExists}: the hook's run itself`);
        assert.equal(result.fidelity, 'exact');
        assert.equal(result.enriched, stubs.length, 'the values the hook wrote were kept');
        const runs = JSON.parse(retained(['ls', '--store', store, '--json']).stdout) as { runId: string }[];
        assert.deepEqual(
          runs.map((r) => r.runId),
          [sessionId],
          `${ifExists}: one run for the conversation`,
        );
        for (const id of stubs) {
          const peek = retained(['peek', id, '--store', store, '--lines', '1:2']);
          assert.equal(peek.code, 0, `${ifExists}: peek ${id}: ${peek.stderr}`);
          assert.match(peek.stdout, /^1: /);
        }
        // Importing again changes nothing that matters: still one run, the same values.
        const again = retained(['import', session, '--store', store, '--json']);
        assert.equal(again.code, 0, again.stderr);
        assert.equal((JSON.parse(again.stdout) as { enriched?: number }).enriched, stubs.length);
      }
    });

    it(`${scenario}: through the language server, the run is enriched and its values peek`, async () => {
      const { store, session } = copyOf(scenario);
      const server = await ServerProcess.start({ workspace: tempDir(), storeRoot: store });
      try {
        const result = await server.request(ImportRequest.type, { path: session, ifExists: 'replace' });
        assert.equal(result.enriched, stubs.length);
        for (const id of stubs) {
          const peek = await server.request(PeekRequest.type, { valueId: id, start: 1, end: 1 });
          assert.match(peek.text, /^1: /);
        }
        const inspected = await server.request(InspectRequest.type, { runId: result.runId });
        assert.equal(inspected.outline.source?.fidelity, 'exact');
      } finally {
        await server.stop();
      }
    });
  }

  it('replace refuses, naming the values, when the run it would delete is another run whose stubs a model got', () => {
    const { store, session } = copyOf(HOOKED[0]!);
    const run = retained(['run', '--store', store, '--run', 'other', '--', 'seq', '1', '20000']);
    assert.equal(run.code, 0, run.stderr);
    const replaced = retained(['import', session, '--store', store, '--run', 'other', '--if-exists', 'replace']);
    assert.equal(replaced.code, 1);
    assert.match(replaced.stderr, /holds 1 value whose stub a model was sent .* so it is not replaced/);
    assert.equal(
      retained(['peek', /\[retained #(\S+)\]/.exec(run.stdout)![1]!, '--store', store, '--lines', '1:1']).stdout,
      '1: 1\n',
    );
  });
});
