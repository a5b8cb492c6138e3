/**
 * "As the agent sent it", whole, on every session recorded from a real agent against a scripted
 * model (test/fixtures/claude-code/*): each request body the agent sent equals the request the
 * import rebuilds from the session's own files (system prompt, tools, fields, cache marks and
 * messages), but for what `shared/fidelity.ts` says such files do not record.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { RetentionService } from '../../server/src/core/service';
import { assertEveryRequestRebuilt, loggedRequests, rebuiltBodies, sessionFile } from '../helpers/asSent';
import { removeTempDirs, tempDir } from '../helpers/tmp';

const RECORDED = resolve(__dirname, '../fixtures/claude-code');

describe('as the agent sent it: every logged request, whole', () => {
  after(removeTempDirs);
  for (const scenario of readdirSync(RECORDED).sort()) {
    it(`Claude Code, ${scenario}`, async () => {
      const dir = join(RECORDED, scenario);
      const s = new RetentionService(join(tempDir(), '.retained'));
      await s.init();
      const result = await s.importer.import({ path: sessionFile(dir) });
      assert.equal(result.fidelity, 'exact', result.notes.join('; '));
      for (const sub of result.subagents) assert.equal(sub.fidelity, 'exact', sub.notes.join('; '));
      assertEveryRequestRebuilt(loggedRequests(dir), await rebuiltBodies(s, result));
    });
  }
});
