/**
 * package.json spells, for VS Code's Settings UI and its tool list, what shared/ declares: the
 * settings' defaults and bounds, and peek_value's description and input. Held equal here.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { PEEK_TOOL, PEEK_TOOL_DESCRIPTION, peekToolJsonSchema } from '../../shared/peekTool';
import { DEFAULT_SETTINGS, HISTORY_BOUNDS, SETTING_BOUNDS } from '../../shared/settings';

const ROOT = resolve(__dirname, '../..');
const manifest = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8'));
const settings: Record<string, { default: unknown; minimum?: number; maximum?: number }> =
  manifest.contributes.configuration.properties;

describe('package.json', () => {
  it('declares each setting with the default and bounds shared/settings.ts has', () => {
    for (const [key, bounds] of Object.entries(SETTING_BOUNDS)) {
      const declared = settings[`retained.${key}`];
      assert.ok(declared, `retained.${key} is declared`);
      assert.deepEqual(
        [declared.default, declared.minimum, declared.maximum],
        [DEFAULT_SETTINGS[key as keyof typeof SETTING_BOUNDS], bounds.min, bounds.max],
        `retained.${key}`,
      );
    }
    for (const [key, bounds] of Object.entries(HISTORY_BOUNDS)) {
      const declared = settings[`retained.history.${key}`];
      assert.ok(declared, `retained.history.${key} is declared`);
      assert.deepEqual(
        [declared.default, declared.minimum, declared.maximum],
        [DEFAULT_SETTINGS.history[key as keyof typeof HISTORY_BOUNDS], bounds.min, bounds.max],
        `retained.history.${key}`,
      );
    }
    assert.deepEqual(settings['retained.history.exemptTools']?.default, DEFAULT_SETTINGS.history.exemptTools);
    assert.deepEqual(settings['retained.landmarkPatterns']?.default, DEFAULT_SETTINGS.landmarkPatterns);
  });

  it('offers peek_value with the description and input schema shared/peekTool.ts has', () => {
    const tool = manifest.contributes.languageModelTools.find((t: { name: string }) => t.name === PEEK_TOOL);
    assert.equal(tool.modelDescription, PEEK_TOOL_DESCRIPTION);
    assert.deepEqual(tool.inputSchema, peekToolJsonSchema());
  });

  it('packages every image the README shows, so the Marketplace page has no broken images', () => {
    const images = [...readFileSync(resolve(ROOT, 'README.md'), 'utf8').matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)].map(
      (m) => m[1]!,
    );
    assert.ok(images.length > 0);
    const packaged = execFileSync(resolve(ROOT, 'node_modules/.bin/vsce'), ['ls', '--no-dependencies'], {
      cwd: ROOT,
      encoding: 'utf8',
    }).split('\n');
    for (const image of images) assert.ok(packaged.includes(image), `${image} is in the package`);
  });
});
