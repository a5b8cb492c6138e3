/**
 * package.json spells, for VS Code's Settings UI and its tool list, what shared/ declares: the
 * settings' defaults and bounds, and peek_value's description and input. Held equal here.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { FORMATS } from '../../shared/agents';
import { CLI_FILES } from '../../shared/cliFiles';
import { PEEK_TOOL, PEEK_TOOL_DESCRIPTION, peekToolJsonSchema } from '../../shared/peekTool';
import { CLEANUP_BOUNDS, DEFAULT_SETTINGS, HISTORY_BOUNDS, SETTING_BOUNDS } from '../../shared/settings';
import { VERSION } from '../../shared/version';

interface Bounds {
  min: number;
  max: number;
}

const ROOT = resolve(__dirname, '../..');
const manifest = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8'));
const settings: Record<string, { default: unknown; minimum?: number; maximum?: number }> =
  manifest.contributes.configuration.properties;

describe('package.json', () => {
  it('declares each setting with the default and bounds shared/settings.ts has, and no other', () => {
    const groups = { history: HISTORY_BOUNDS, cleanup: CLEANUP_BOUNDS } as Record<string, Record<string, Bounds>>;
    const expected = new Map<string, { value: unknown; bounds?: Bounds }>();
    for (const [key, value] of Object.entries(DEFAULT_SETTINGS)) {
      // A record-valued setting is one setting; a group's fields are settings of their own.
      if (key === 'landmarkPatterns' || key === 'pricing' || typeof value !== 'object' || value === null) {
        expected.set(`retained.${key}`, { value, bounds: (SETTING_BOUNDS as Record<string, Bounds>)[key] });
        continue;
      }
      for (const [field, fieldValue] of Object.entries(value))
        expected.set(`retained.${key}.${field}`, { value: fieldValue, bounds: groups[key]?.[field] });
    }
    for (const [name, { value, bounds }] of expected) {
      const declared = settings[name];
      assert.ok(declared, `${name} is declared`);
      assert.deepEqual(declared.default, value, `${name}'s default`);
      if (bounds) assert.deepEqual([declared.minimum, declared.maximum], [bounds.min, bounds.max], `${name}'s bounds`);
    }
    const extensionOnly = ['retained.storeRoot', 'retained.storeUrl', 'retained.pasteWithoutLineNumbers'];
    assert.deepEqual(
      Object.keys(settings)
        .filter((name) => !expected.has(name) && !extensionOnly.includes(name))
        .sort(),
      [],
      'every declared setting is one the server knows, or the extension reads itself',
    );
  });

  it('reports one version everywhere: the CLI, the MCP server and the language server say what package.json says', () => {
    assert.equal(VERSION, manifest.version);
  });

  it('offers peek_value with the description and input schema shared/peekTool.ts has', () => {
    const tool = manifest.contributes.languageModelTools.find((t: { name: string }) => t.name === PEEK_TOOL);
    assert.equal(tool.modelDescription, PEEK_TOOL_DESCRIPTION);
    assert.deepEqual(tool.inputSchema, peekToolJsonSchema());
  });

  // What `vsce ls` says ships: asked once (it takes a few seconds).
  let files: string[] | undefined;
  const packaged = () =>
    (files ??= execFileSync(resolve(ROOT, 'node_modules/.bin/vsce'), ['ls', '--no-dependencies'], {
      cwd: ROOT,
      encoding: 'utf8',
    }).split('\n'));

  it('shows every README image from the repository (vsce points the packaged README at it), and packages each for the offline guide', () => {
    const images = [...readFileSync(resolve(ROOT, 'README.md'), 'utf8').matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)].map(
      (m) => m[1]!,
    );
    assert.ok(images.length > 0);
    const files = packaged();
    for (const image of images) {
      assert.ok(!/^[a-z]+:/.test(image), `${image} is a path in the repository, not a URL`);
      assert.ok(existsSync(resolve(ROOT, image)), `${image} is in the repository`);
      assert.ok(files.includes(image), `${image} is in the package: the guide shows it offline (guide.ts)`);
    }
  });

  it('has what a published extension needs: a PNG icon of 128 × 128 or more, the repository, bugs, a changelog', () => {
    const png = readFileSync(resolve(ROOT, manifest.icon));
    assert.equal(png.subarray(1, 4).toString('latin1'), 'PNG');
    const [width, height] = [png.readUInt32BE(16), png.readUInt32BE(20)];
    assert.ok(width >= 128 && height >= 128, `${width} × ${height}`);
    for (const field of ['repository', 'bugs', 'homepage', 'galleryBanner']) assert.ok(manifest[field], field);
    const files = packaged();
    for (const file of [manifest.icon, 'CHANGELOG.md', 'README.md', 'LICENSE']) assert.ok(files.includes(file), file);
    // Packaged as published: no flag that lets a check pass.
    assert.doesNotMatch(manifest.scripts.package, /--allow|--no-/);
  });

  it('packages every file the extension starts or loads from its own folder (the server, the CLI)', () => {
    const source = readdirSync(resolve(ROOT, 'extension/src'))
      .map((name) => readFileSync(resolve(ROOT, 'extension/src', name), 'utf8'))
      .join('\n');
    // Named in the source, and the command line's files (shared/cliFiles.ts), which cliInstall.ts copies.
    const used = [
      ...[...source.matchAll(/asAbsolutePath\('([^']+)'\)/g)].map((m) => m[1]!),
      ...CLI_FILES.map((f) => `dist/${f}`),
    ];
    assert.match(source, /CLI_FILES\.map\(\(f\) => context\.asAbsolutePath\(`dist\/\$\{f\}`\)\)/);
    const files = packaged();
    // A folder (dist/vendor) is packaged when files in it are.
    for (const file of used)
      assert.ok(files.includes(file) || files.some((f) => f.startsWith(`${file}/`)), `${file} is in the package`);
    // And what those start beside themselves: each bundle esbuild writes to dist/ is packaged.
    const bundles = [
      ...readFileSync(resolve(ROOT, 'esbuild.mjs'), 'utf8').matchAll(/entryPoints: \{ (\w+): '(?:server|extension)\//g),
    ];
    assert.ok(bundles.length >= 3, JSON.stringify(bundles.map((b) => b[1])));
    for (const [, name] of bundles) assert.ok(files.includes(`dist/${name}.js`), `dist/${name}.js is in the package`);
    // And what the build copies beside them (the scan kernel).
    const copied = [
      ...readFileSync(resolve(ROOT, 'esbuild.mjs'), 'utf8').matchAll(/cpSync\([^,]+, '(dist\/[^']+)'\)/g),
    ];
    assert.ok(
      copied.some(([, file]) => file === 'dist/scanKernel.wasm'),
      JSON.stringify(copied.map((c) => c[1])),
    );
    for (const [, file] of copied) assert.ok(files.includes(file!), `${file} is in the package`);
    // And the libraries the command line loads from vendor/ on first use.
    const vendored = [
      ...readFileSync(resolve(ROOT, 'dist/server.js'), 'utf8').matchAll(/require\("\.\/(vendor\/\w+\.js)"\)/g),
    ];
    assert.ok(vendored.length >= 4, JSON.stringify(vendored.map((v) => v[1])));
    for (const [, file] of vendored) assert.ok(files.includes(`dist/${file}`), `dist/${file} is in the package`);
  });
});

/** The README, CONTRIBUTING.md and every page of docs/: what a reader of the project reads. */
function documents(): { file: string; text: string }[] {
  const files = ['README.md', 'CONTRIBUTING.md', ...readdirSync(resolve(ROOT, 'docs')).map((f) => `docs/${f}`)];
  return files
    .filter((f) => f.endsWith('.md'))
    .map((file) => ({ file, text: readFileSync(resolve(ROOT, file), 'utf8') }));
}

/** GitHub's anchors of a Markdown text's headings (outside code blocks), duplicates numbered. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6} (.*)$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]!
      .trim()
      .toLowerCase()
      .replace(/[`*]/g, '')
      .replace(/[^\p{L}\p{N}_\- ]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

describe('the README and docs/', () => {
  it('a newcomer reads the README in five minutes: under 250 lines, the rest in docs/ and CONTRIBUTING.md', () => {
    const lines = readFileSync(resolve(ROOT, 'README.md'), 'utf8').split('\n').length;
    assert.ok(lines < 250, `${lines} lines`);
    assert.ok(existsSync(resolve(ROOT, 'CONTRIBUTING.md')));
  });

  it('every relative link resolves: to a file of the repository, and its #anchor to a heading there', () => {
    let checked = 0;
    for (const { file, text } of documents()) {
      const prose = text.replace(/^\s*(```|~~~)[\s\S]*?^\s*\1/gm, '');
      for (const [, href] of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(href!)) continue;
        const [path, anchor] = href!.split('#') as [string, string | undefined];
        const target = path ? resolve(ROOT, dirname(file), path) : resolve(ROOT, file);
        assert.ok(existsSync(target), `${file}: ${href} names no file`);
        if (anchor !== undefined)
          assert.ok(
            anchorsOf(readFileSync(target, 'utf8')).has(anchor),
            `${file}: ${href} names no heading of ${relative(ROOT, target)}`,
          );
        checked++;
      }
    }
    assert.ok(checked >= 30, `checked ${checked} links`);
  });

  it("lists every part of a request a session file cannot know, as the formats' rows in shared/agents.ts say it", () => {
    const readme = documents()
      .map((d) => d.text)
      .join('\n')
      .replace(/\s+/g, ' ');
    for (const { notRecorded } of Object.values(FORMATS))
      for (const item of notRecorded) assert.ok(readme.includes(item), `README lists: ${item}`);
  });

  it("declares exactly the commands the extension's table has (commands.ts): none without a handler, none hidden", () => {
    const dir = resolve(ROOT, 'extension/src');
    const tabled = readdirSync(dir)
      .filter((f) => f.endsWith('.ts'))
      .flatMap((f) => {
        const text = readFileSync(resolve(dir, f), 'utf8');
        // Each `…Commands: Commands = { … };` block's own keys (two spaces in).
        return [...text.matchAll(/: Commands = \{\n([\s\S]*?)\n\};/g)].flatMap((block) =>
          [...block[1]!.matchAll(/^ {2}(\w+): \{/gm)].map((m) => `retained.${m[1]}`),
        );
      })
      .sort();
    const declared = (manifest.contributes.commands as { command: string }[]).map((c) => c.command).sort();
    assert.ok(tabled.length >= 20, `found ${tabled.length} in the table`);
    assert.deepEqual(tabled, declared);
  });

  it('names only commands there are, by their palette names (one prefix for all of them)', () => {
    const commands = manifest.contributes.commands as { command: string; title: string; category?: string }[];
    assert.deepEqual([...new Set(commands.map((c) => c.category))], ['Retained Outputs']);
    const titles = new Set(commands.map((c) => c.title));
    const texts = [
      ...documents().map((d) => d.text),
      ...['extension/src', 'server/src'].flatMap((dir) =>
        readdirSync(resolve(ROOT, dir), { recursive: true, encoding: 'utf8' })
          .filter((f) => f.endsWith('.ts'))
          .map((f) => readFileSync(resolve(ROOT, dir, f), 'utf8')),
      ),
    ];
    const named = texts.flatMap((t) =>
      // Not a comment line of a file setup writes (`# Retained Outputs: Claude Code`).
      [...t.matchAll(/(?<!# )Retained(?: Outputs)?: ([A-Z][\w /]*(?:…|\b))/g)].map((m) => m[1]!),
    );
    assert.ok(named.length >= 5, `found ${named.length}`);
    for (const name of named) assert.ok(titles.has(name.trim()), `a command is titled "${name}"`);
  });
});

describe('the fixtures', () => {
  it('are all in git: none of the files the tests read is ignored (a fresh clone has them all)', function () {
    let ignored: string;
    try {
      ignored = execFileSync('git', ['ls-files', '--others', '--ignored', '--exclude-standard', 'test/fixtures'], {
        cwd: resolve(__dirname, '../..'),
        encoding: 'utf8',
      });
    } catch {
      return this.skip(); // not a git checkout
    }
    assert.deepEqual(ignored.split('\n').filter(Boolean), []);
  });
});
