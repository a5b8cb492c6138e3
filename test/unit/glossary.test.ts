/**
 * One word per thing: docs/architecture.md's glossary says what "view" and "turn" mean, and the
 * product code holds to it. Every name in the code with "view" or "turn" in it is one this test
 * knows the meaning of (the history view, the agent's turn, or VS Code's and the agents' own
 * names); a new one fails here until it is one of those, so a fifth meaning of "view" cannot
 * creep in unseen.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { VIEWS } from '../../shared/history';

const ROOT = resolve(__dirname, '../..');
const PRODUCT = ['shared', 'server/src', 'extension/src', 'webview/src'];

/** Names with "view" in them, each the history view's (sent or retained) or VS Code's own. */
const VIEW_NAMES = new Set([
  // The history view.
  'view',
  'views',
  'View',
  'VIEWS',
  'INSPECT_VIEW',
  'REPLAY_VIEW',
  'viewKey',
  'viewLabel',
  'viewLabels',
  'viewNames',
  'otherView',
  'asSentView',
  'onView',
  'setView',
  'ViewSwitch',
  // VS Code's API.
  'ViewColumn',
  'viewColumn',
  'TreeView',
  'createTreeView',
  'onDidChangeViewState',
]);
/** Words that hold "view" and are other words (VS Code's webview, a value's preview, an SVG's viewBox). */
const OTHER_WORDS = /webview|preview|review|overview|viewport|viewbox/i;

/** Names with "turn" in them, each the agent's turn (and the agents' own event names). */
const TURN_NAMES = new Set([
  'turn',
  'turns',
  'turned',
  'Turn',
  'turn_ended',
  'TurnEndedEvent',
  'end_turn',
  // Codex's and Gemini CLI's records.
  'turn_context',
  'turn_start',
  'turn_aborted',
  'turn_end',
]);

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return files(path);
    return /\.(ts|tsx|css)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The names in a text with "view" or "turn" in them that the glossary does not account for, as `name (where)`. */
function strayNames(text: string, where: string): string[] {
  const stray = new Set<string>();
  // Letting the event loop run is yielding, whatever Node calls it: never a turn.
  for (const [, name] of text.matchAll(/setImmediate as (\w+)/g))
    if (/turn/i.test(name!)) stray.add(`${name} (${where})`);
  for (const [name] of text.matchAll(/[A-Za-z_$][\w$]*/g)) {
    if (/view/i.test(name) && !OTHER_WORDS.test(name) && !VIEW_NAMES.has(name)) stray.add(`${name} (${where})`);
    if (/turn/i.test(name) && !/return/i.test(name) && !TURN_NAMES.has(name)) stray.add(`${name} (${where})`);
  }
  return [...stray];
}

describe('the glossary', () => {
  const architecture = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const entry = (term: string) => {
    const match = architecture.match(new RegExp(`^- \\*\\*${term}\\*\\*: ([\\s\\S]*?)(?=\\n- \\*\\*|\\n\\n)`, 'm'));
    assert.ok(match, `docs/architecture.md has a glossary entry for ${term}`);
    return match[1]!;
  };

  it('names the views the code has, and says nothing else is one', () => {
    const view = entry('view');
    const named = [...view.split(';')[0]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    assert.deepEqual(named, [...VIEWS]);
    assert.match(view, /nothing else is called a view/);
    for (const word of ['page', 'trees', 'side']) assert.match(view, new RegExp(`\\*\\*${word}\\*\\*`));
  });

  it('says a model call is never a turn', () => {
    assert.match(entry('turn'), /never a turn/);
    assert.match(entry('model call'), /one call of the agent to its model/);
  });

  it('every name in the product code with "view" or "turn" in it means what the glossary says', () => {
    const stray = PRODUCT.flatMap(files).flatMap((path) =>
      strayNames(readFileSync(join(ROOT, path), 'utf8'), relative(ROOT, join(ROOT, path))),
    );
    assert.deepEqual(stray, [], 'each is a word of the glossary, or add its meaning there and here');
  });

  it('finds a name that means another thing (planted)', () => {
    assert.deepEqual(strayNames('export interface ModelView {}\nconst modelTurn = 1;\n', 'planted.ts'), [
      'ModelView (planted.ts)',
      'modelTurn (planted.ts)',
    ]);
    assert.deepEqual(strayNames("import { setImmediate as turn } from 'node:timers/promises';", 'loop.ts'), [
      'turn (loop.ts)',
    ]);
    assert.deepEqual(strayNames('const previewLines = 3; return view;', 'fine.ts'), []);
  });
});
