/**
 * The inspector page's requests come from one table (shared/messages.ts VIEW_REQUESTS): each
 * request message is checked against its own method's parameters, and each row names a protocol
 * request the language server serves.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseViewMessage, VIEW_REQUESTS, type ViewRequestMethod } from '../../shared/messages';

const SAMPLES: { [M in ViewRequestMethod]: Record<string, unknown> } = {
  inspect: { from: 0, limit: 100, view: 'retained' },
  search: { query: 'error', ignoreCase: true },
  usage: { baseline: true },
};

describe('the inspector page’s requests', () => {
  it('each method takes its own parameters and refuses another’s, naming the field', () => {
    for (const method of Object.keys(VIEW_REQUESTS) as ViewRequestMethod[]) {
      const params = SAMPLES[method];
      assert.deepEqual(parseViewMessage({ type: 'request', id: 1, method, params }), {
        type: 'request',
        id: 1,
        method,
        params,
      });
      const foreign = method === 'search' ? { limit: 5 } : { query: 'x' };
      assert.throws(
        () => parseViewMessage({ type: 'request', id: 1, method, params: { ...params, ...foreign } }),
        new RegExp(`${Object.keys(foreign)[0]} is not a known field`),
        method,
      );
    }
    assert.throws(() => parseViewMessage({ type: 'request', id: 1, method: 'export', params: {} }), /method/);
  });

  it('each row is a request the language server serves', () => {
    const server = readFileSync(resolve(__dirname, '../../server/src/lsp/server.ts'), 'utf8');
    const served = [...server.matchAll(/^serve\((\w+),/gm)].map((m) => m[1]);
    for (const [method, { request }] of Object.entries(VIEW_REQUESTS)) {
      const name = { inspect: 'InspectRequest', search: 'RunSearchRequest', usage: 'UsageRequest' }[method];
      assert.ok(request.method.startsWith('retained/'), method);
      assert.ok(served.includes(name), `${method}: ${name} is served`);
    }
  });
});
