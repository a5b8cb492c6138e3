/**
 * The inspector page's requests come from one table (shared/protocol.ts PAGE_REQUESTS): each
 * request message is checked against its own method's parameters, and each row names a protocol
 * request the language server serves.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Inspection } from '../../server/src/core/inspection/inspection';
import { parsePageMessage } from '../../shared/messages';
import { PAGE_REQUESTS, type PageRequestMethod } from '../../shared/protocol';

const SAMPLES: { [M in PageRequestMethod]: Record<string, unknown> } = {
  inspect: { from: 0, limit: 100, view: 'retained' },
  search: { query: 'error', ignoreCase: true },
  usage: { baseline: true },
};

describe('the inspector page’s requests', () => {
  it('each method takes its own parameters and refuses another’s, naming the field', () => {
    for (const method of Object.keys(PAGE_REQUESTS) as PageRequestMethod[]) {
      const params = SAMPLES[method];
      assert.deepEqual(parsePageMessage({ type: 'request', id: 1, method, params }), {
        type: 'request',
        id: 1,
        method,
        params,
      });
      const foreign = method === 'search' ? { limit: 5 } : { query: 'x' };
      assert.throws(
        () => parsePageMessage({ type: 'request', id: 1, method, params: { ...params, ...foreign } }),
        new RegExp(`${Object.keys(foreign)[0]} is not a known field`),
        method,
      );
    }
    assert.throws(() => parsePageMessage({ type: 'request', id: 1, method: 'export', params: {} }), /method/);
  });

  it('each row is a request the language server serves, answered by the inspection method of its name', () => {
    // The server serves the table, row by row (server/src/lsp/server.ts; a type there holds the methods' shapes).
    const server = readFileSync(resolve(__dirname, '../../server/src/lsp/server.ts'), 'utf8');
    assert.match(
      server,
      /for \(const method of Object\.keys\(PAGE_REQUESTS\)[^)]*\)\s*serve\(PAGE_REQUESTS\[method\]\.request/,
    );
    for (const [method, { request }] of Object.entries(PAGE_REQUESTS)) {
      assert.ok(request.method.startsWith('retained/'), method);
      assert.equal(typeof (Inspection.prototype as unknown as Record<string, unknown>)[method], 'function', method);
    }
  });
});
