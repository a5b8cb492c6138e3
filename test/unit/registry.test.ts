/**
 * The MCP Registry entry (`server.json`): valid against the registry's published schema
 * (test/fixtures/mcp-registry), in step with the package it names (`mcpName`, the version),
 * and its command one the CLI has.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { VERSION } from '../../shared/version';

const ROOT = resolve(__dirname, '../..');
// biome-ignore lint/suspicious/noExplicitAny: JSON read to be checked; the schema is what types it.
const read = (path: string): any => JSON.parse(readFileSync(resolve(ROOT, path), 'utf8'));

function validator() {
  // strict: false: the schema is draft-07 as published; Ajv's strict mode refuses keywords it does not know.
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  return ajv.compile(read('test/fixtures/mcp-registry/server.schema.json'));
}

describe("the MCP Registry's server.json", () => {
  it('validates against the registry schema, names that schema, and is the package it lists', () => {
    const server = read('server.json');
    const valid = validator();
    const ok: boolean = valid(server); // not the type guard: it would narrow server to unknown
    assert.ok(ok, JSON.stringify(valid.errors, null, 2));
    assert.equal(server.$schema, read('test/fixtures/mcp-registry/server.schema.json').$id);
    const manifest = read('package.json');
    assert.equal(server.name, manifest.mcpName, 'the registry checks the package names the server');
    assert.equal(server.version, VERSION);
    for (const pkg of server.packages) {
      assert.equal(pkg.identifier, manifest.name);
      assert.equal(pkg.version, VERSION);
    }
    // The command it runs is the CLI's MCP server.
    assert.deepEqual(
      server.packages[0].packageArguments.map((a: { value: string }) => a.value),
      ['mcp'],
    );
  });

  it('the schema is a real check: it refuses what the registry refuses', () => {
    const valid = validator();
    const server = read('server.json');
    for (const [what, bad] of [
      ['a name without its namespace', { ...server, name: 'retained-outputs' }],
      ['a description over 100 characters', { ...server, description: 'x'.repeat(101) }],
      ['no version', { ...server, version: undefined }],
      ['a package at "latest"', { ...server, packages: [{ ...server.packages[0], version: 'latest' }] }],
      ['a package with no transport', { ...server, packages: [{ ...server.packages[0], transport: undefined }] }],
    ] as const)
      assert.equal(valid(JSON.parse(JSON.stringify(bad))), false, what);
  });
});
