/**
 * The house rules of the import graph, checked on the tree: `shared/` imports nothing of ours
 * and nothing of Node or VS Code; the core imports no VS Code, no LSP and no front end; the
 * webview imports no `vscode` and no `node:`, and only types from the shared modules built on
 * zod or the LSP library (a browser page needs neither); the extension imports nothing of the
 * server. A rule is a folder, what it may not import, and why. Inside the core, every import
 * points down one stack (STACK); the tsconfig references allow no more than the rules do.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { removeTempDirs, tempDir } from '../helpers/tmp';

const ROOT = resolve(__dirname, '../..');

interface Rule {
  /** Files under this folder (relative to the root) follow the rule. */
  folder: string;
  /** A folder inside it that does not. */
  except?: string;
  /** Bare package names, or our files as root-relative paths, that may not be imported. */
  forbidden: RegExp;
  /** `import type` does not count: it leaves nothing in the bundle. */
  typesAllowed?: boolean;
  why: string;
}

/** The folder store's own files: what a team store may not build on. */
const FOLDER_FILES = [
  'audit',
  'blobs',
  'folderStore',
  'indexFiles',
  'jsonLines',
  'layout',
  'runLock',
  'safeFs',
  'transcript',
  'usage',
  'valueFiles',
  'watcher',
];
const LSP = /^(vscode|vscode-languageserver.*|vscode-languageclient.*|vscode-jsonrpc.*)$/;
const RULES: Rule[] = [
  {
    folder: 'shared',
    forbidden: /^(vscode|node:.*|(server|extension|webview|test|scripts)\/.*)$/,
    why: 'shared is imported by every side',
  },
  {
    folder: 'server/src/core',
    forbidden: new RegExp(`${LSP.source}|^(extension|webview|server/src/(lsp|mcp|cli|sdk))/.*$`),
    why: 'the core is plain TypeScript behind thin front ends',
  },
  {
    folder: 'webview',
    forbidden: /^(vscode|node:.*|(server|extension|shared\/node)\/.*)$/,
    why: 'the webview is a browser page',
  },
  {
    folder: 'webview',
    forbidden: /^(zod|vscode-.*|shared\/(check|events|messages|peekTool|protocol|settings))$/,
    typesAllowed: true,
    why: 'the page checks nothing itself: the extension does',
  },
  {
    folder: 'extension',
    forbidden: /^(server|webview)\/.*$/,
    why: 'the extension is a thin client of the language server',
  },
  {
    folder: 'server/src/core/store/runStore.ts',
    forbidden: /^(?!shared\/|server\/src\/core\/store\/(lineIndex|lineReader)$).*$/,
    why: 'the store interface is its own vocabulary: it imports no implementation',
  },
  {
    folder: 'server/src/core/store/postgres',
    except: 'server/src/core/store/postgres/transfer.ts',
    forbidden: new RegExp(`^server/src/core/store/(${FOLDER_FILES.join('|')})$`),
    why: 'the team store is no folder store: only push and pull (transfer.ts) read a folder',
  },
  {
    folder: 'server/src/sdk',
    forbidden: /^(?!node:).*$/,
    why: "the Agent SDK helper runs in the user's program: it starts the command line, and imports nothing else",
  },
];

/**
 * Entry points and what nothing they load may import (`import type` aside: it leaves nothing in
 * the bundle), however deep: each is a bundle of its own that must stay small.
 */
const ENTRIES: { entry: string; forbidden: RegExp; why: string }[] = [
  {
    entry: 'server/src/cli/rewriteHooks.ts',
    forbidden: /^(zod|shared\/settings|server\/src\/cli\/setupEdits)$/,
    why: 'the hooks that run before every shell command load zod/mini, not zod, and no settings',
  },
];

/**
 * The core's stack, top first: a part imports only the parts below it (and its own files).
 * Parts on one line are peers and import nothing of each other.
 */
const STACK: string[][] = [
  ['service.ts'],
  ['import', 'inspection'],
  ['history'],
  ['retain'],
  ['values'],
  ['withhold'],
  ['cleanup'],
  ['context.ts'],
  ['runs.ts'],
  ['store'],
  ['text'],
  ['kernel', 'yielder.ts'],
];
const CORE = 'server/src/core';

/** A core file's part (its folder, or its name at the top of the core) and that part's level. */
function partOf(file: string): { part: string; level: number } | undefined {
  const rel = relative(CORE, file.replace(/\.(ts|tsx)$/, ''));
  if (rel.startsWith('..')) return undefined;
  const part = rel.includes('/') ? rel.split('/')[0]! : `${rel}.ts`;
  const level = STACK.findIndex((parts) => parts.includes(part));
  return level < 0 ? undefined : { part, level };
}

/** Every import of a file: bare package names as they are, our own files as root-relative paths. */
function importsOf(root: string, file: string): { target: string; typeOnly: boolean }[] {
  const source = readFileSync(join(root, file), 'utf8');
  const found = [
    ...source.matchAll(
      /(?:^|\n)\s*(import|export)(\s+type)?\b[^'";]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g,
    ),
  ];
  return found.map((m) => {
    const spec = m[3] ?? m[4] ?? m[5] ?? m[6]!;
    return {
      target: spec.startsWith('.') ? relative(root, resolve(join(root, dirname(file)), spec)) : spec,
      typeOnly: m[2] !== undefined,
    };
  });
}

function sourceFiles(root: string, folder: string, except?: string): string[] {
  if (/\.(ts|tsx|mts)$/.test(folder)) return existsSync(join(root, folder)) ? [folder] : [];
  const out: string[] = [];
  const visit = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      if (entry.name === 'node_modules') continue;
      const path = join(dir, entry.name);
      if (path === except) continue;
      if (entry.isDirectory()) visit(path);
      else if (/\.(ts|tsx|mts)$/.test(entry.name)) out.push(path);
    }
  };
  visit(folder);
  return out;
}

/** The file an import of ours names (`target` is root-relative, without its extension). */
function fileOf(root: string, target: string): string | undefined {
  return [`${target}.ts`, `${target}.tsx`, `${target}/index.ts`].find((f) => existsSync(join(root, f)));
}

/** Every file `entry` loads, itself included: its imports that are not type-only, followed. */
function loadedBy(root: string, entry: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const { target, typeOnly } of importsOf(root, file)) {
      const next = typeOnly ? undefined : fileOf(root, target);
      if (next) visit(next);
    }
  };
  if (existsSync(join(root, entry))) visit(entry);
  return [...seen];
}

/** Each import that breaks a rule, as `file imports X (why)`. */
function violations(root: string): string[] {
  const found: string[] = [];
  for (const { entry, forbidden, why } of ENTRIES)
    for (const file of loadedBy(root, entry))
      for (const { target, typeOnly } of importsOf(root, file))
        if (!typeOnly && forbidden.test(target)) found.push(`${file} imports ${target}, loaded by ${entry} (${why})`);
  for (const rule of RULES) {
    for (const file of sourceFiles(root, rule.folder, rule.except)) {
      for (const { target, typeOnly } of importsOf(root, file)) {
        if (rule.forbidden.test(target) && !(typeOnly && rule.typesAllowed))
          found.push(`${file} imports ${target} (${rule.why})`);
      }
    }
  }
  for (const file of sourceFiles(root, CORE)) {
    const from = partOf(file);
    if (!from) {
      found.push(`${file} is in no part of the core's stack`);
      continue;
    }
    for (const { target } of importsOf(root, file)) {
      const to = partOf(target);
      if (to && to.part !== from.part && to.level <= from.level)
        found.push(`${file} imports ${target} (${to.part} is not below ${from.part} in the core's stack)`);
    }
  }
  return found;
}

/** What a tsconfig's references name, as root-relative folders. */
function references(root: string, folder: string): string[] {
  const config = JSON.parse(readFileSync(join(root, folder, 'tsconfig.json'), 'utf8')) as {
    references?: { path: string }[];
  };
  return (config.references ?? []).map((r) => relative(root, resolve(root, folder, r.path))).sort();
}

describe('boundaries of the import graph', () => {
  after(removeTempDirs);

  it('hold on the tree', () => {
    assert.deepEqual(violations(ROOT), []);
  });

  it("the build's references allow what the rules allow and no more", () => {
    assert.deepEqual(references(ROOT, 'shared'), []);
    assert.deepEqual(references(ROOT, 'server'), ['shared']);
    assert.deepEqual(references(ROOT, 'webview'), ['shared']);
    assert.deepEqual(references(ROOT, 'extension'), ['shared']);
  });

  it('catch a deliberate violation of each rule', () => {
    const root = tempDir();
    const write = (file: string, text: string) => {
      mkdirSync(dirname(join(root, file)), { recursive: true });
      writeFileSync(join(root, file), text);
    };
    write('shared/a.ts', "import { Store } from '../server/src/core/store/folderStore';\n");
    write('server/src/core/b.ts', "import * as vscode from 'vscode';\nimport { x } from '../lsp/server';\n");
    write(
      'webview/src/c.tsx',
      "import { readFileSync } from 'node:fs';\nimport type { InspectResult } from '../../shared/protocol';\nimport { parseState } from '../../shared/messages';\n",
    );
    write(
      'extension/src/d.ts',
      "const core = require('../../server/src/core/service');\nimport '../../webview/src/e';\n",
    );
    write('server/src/core/text/f.ts', "import { Store } from '../store/folderStore';\n");
    write(
      'server/src/core/import/g.ts',
      "import type { Rows } from '../inspection/rows';\nimport { x } from '../history/h';\n",
    );
    write('server/src/core/stray.ts', '');
    write(
      'server/src/core/store/runStore.ts',
      "import type { FolderStore } from './folderStore';\nimport type { LineIndex } from './lineIndex';\n",
    );
    write(
      'server/src/core/store/postgres/k.ts',
      "import { checkedId } from '../naming';\nimport { tempPath } from '../layout';\n",
    );
    write('server/src/core/store/postgres/transfer.ts', "import type { FolderStore } from '../folderStore';\n");
    write('server/src/sdk/h.ts', "import { Store } from '../core/store/folderStore';\n");
    write(
      'shared/i.ts',
      "import { readFileSync } from 'node:fs';\nimport { applyChanges } from '../server/src/cli/setupFiles';\n",
    );
    write('server/src/cli/rewriteHooks.ts', "import { answer } from './commandHooks';\n");
    write(
      'server/src/cli/commandHooks.ts',
      "import * as z from 'zod/mini';\nimport type { Settings } from '../../../shared/settings';\nimport { rule } from './rules';\n",
    );
    write('server/src/cli/rules.ts', "import * as z from 'zod';\n");
    for (const folder of ['server/src/core', 'shared', 'webview', 'extension'])
      mkdirSync(join(root, folder), { recursive: true });
    assert.deepEqual(violations(root).sort(), [
      'extension/src/d.ts imports server/src/core/service (the extension is a thin client of the language server)',
      'extension/src/d.ts imports webview/src/e (the extension is a thin client of the language server)',
      'server/src/cli/rules.ts imports zod, loaded by server/src/cli/rewriteHooks.ts (the hooks that run before every shell command load zod/mini, not zod, and no settings)',
      'server/src/core/b.ts imports server/src/lsp/server (the core is plain TypeScript behind thin front ends)',
      'server/src/core/b.ts imports vscode (the core is plain TypeScript behind thin front ends)',
      "server/src/core/b.ts is in no part of the core's stack",
      "server/src/core/import/g.ts imports server/src/core/inspection/rows (inspection is not below import in the core's stack)",
      'server/src/core/store/postgres/k.ts imports server/src/core/store/layout (the team store is no folder store: only push and pull (transfer.ts) read a folder)',
      'server/src/core/store/runStore.ts imports server/src/core/store/folderStore (the store interface is its own vocabulary: it imports no implementation)',
      "server/src/core/stray.ts is in no part of the core's stack",
      "server/src/core/text/f.ts imports server/src/core/store/folderStore (store is not below text in the core's stack)",
      "server/src/sdk/h.ts imports server/src/core/store/folderStore (the Agent SDK helper runs in the user's program: it starts the command line, and imports nothing else)",
      'shared/a.ts imports server/src/core/store/folderStore (shared is imported by every side)',
      'shared/i.ts imports node:fs (shared is imported by every side)',
      'shared/i.ts imports server/src/cli/setupFiles (shared is imported by every side)',
      'webview/src/c.tsx imports node:fs (the webview is a browser page)',
      'webview/src/c.tsx imports shared/messages (the page checks nothing itself: the extension does)',
    ]);
  });
});
