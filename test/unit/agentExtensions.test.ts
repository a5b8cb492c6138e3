import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXTENSION_AGENTS, EXTENSION_NAME, extensionFiles } from '../../server/src/cli/agentExtensions';
import { setupChanges } from '../../server/src/cli/setup';
import { sha256Hex } from '../../server/src/core/text/bytes';

const VERSION = JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8')).version as string;
const MANIFEST = { gemini: 'gemini-extension.json', qwen: 'qwen-extension.json' } as const;

describe('the agent extensions', () => {
  for (const agent of EXTENSION_AGENTS)
    it(`${agent}: the same hooks and MCP server setup writes, started from the extension's folder, at the package's version`, () => {
      const files = extensionFiles(agent, VERSION);
      const manifest = JSON.parse(files[MANIFEST[agent]]!);
      assert.equal(manifest.name, EXTENSION_NAME);
      assert.equal(manifest.version, VERSION);
      const hooks = agent === 'gemini' ? JSON.parse(files['hooks/hooks.json']!).hooks : manifest.hooks;
      const launcher = { node: 'node', cli: '/x/cli.js' };
      const [settings] = setupChanges(agent, { home: '/h' }, launcher, () => undefined, { sha256: sha256Hex });
      const setUp = JSON.parse(settings!.after!);
      // One definition: the extension's text is setup's, with the extension's folder for the command line's.
      const placeholder = ['$', '{extensionPath}', '$', '{/}cli.js'].join('');
      const inside = (value: unknown) =>
        JSON.parse(
          JSON.stringify(value).replaceAll(`'${placeholder}'`, '/x/cli.js').replaceAll(placeholder, '/x/cli.js'),
        );
      assert.deepEqual(inside(hooks), setUp.hooks);
      assert.deepEqual(inside(manifest.mcpServers), setUp.mcpServers);
    });
});
