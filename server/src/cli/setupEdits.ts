/**
 * How setup edits an agent's files: pure functions of their text, so what is shown first is
 * exactly what is written, a second run changes nothing, and a removal gives back the file as it
 * was. JSON files are edited in place (jsonc-parser, as VS Code edits its settings: comments and
 * the rest of the file kept); a file of setup's own is written whole and deleted by a removal.
 * Each agent's setup (`<agent>Setup.ts`) is built of these.
 */
import { applyEdits, type JSONPath, modify, type ParseError, parse, printParseErrorCode } from 'jsonc-parser';
import { MCP_SERVER } from '../../../shared/agents';
import type { Launcher } from '../../../shared/launcher';
import type { FileChange } from '../../../shared/setupAnswer';

export type Read = (path: string) => string | undefined;
/** SHA-256 of a text's UTF-8 bytes, in hex. */
export type Sha256 = (text: string) => string;

/** An agent's setup: its folder (the project or its home) to the files it changes. */
export type Setup = (folder: string, launcher: Launcher, read: Read, remove: boolean, sha256: Sha256) => FileChange[];

// ─── JSON, edited in place ───────────────────────────────────────────────────────────────────

const FORMAT = { formattingOptions: { insertSpaces: true, tabSize: 2, eol: '\n' } };

export function parseObject(text: string | undefined, path: string): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {};
  const errors: ParseError[] = [];
  const value = parse(text, errors, { allowTrailingComma: true }) as unknown;
  if (errors.length > 0)
    throw new Error(`${path} is not JSON: ${printParseErrorCode(errors[0]!.error)} at offset ${errors[0]!.offset}`);
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error(`${path} does not hold a JSON object`);
  return value as Record<string, unknown>;
}

/**
 * One edit of a JSON file's text: a value set at a path, or (undefined) removed. Only the text of
 * that value changes: the rest keeps its own layout (jsonc-parser's formatter would re-indent the
 * lines an edit touches, a sibling written on one line among them), the new value written as the
 * agents write their files, two spaces a level. An array setup appends to is the one exception.
 */
export function edit(text: string, path: JSONPath, value: unknown, arrayInsertion = false): string {
  // A value under keys that are not there yet is one new property, the outermost missing one.
  const missing = value === undefined || arrayInsertion ? -1 : firstMissing(text, path);
  if (missing >= 0 && missing < path.length - 1) {
    const nested = path.slice(missing + 1).reduceRight<unknown>((inner, key) => ({ [key]: inner }), value);
    return edit(text, path.slice(0, missing + 1), nested);
  }
  const plain = modify(text, path, value, { isArrayInsertion: arrayInsertion });
  const [one] = plain;
  // A new file, an empty container, an array's new entry: nothing else of the text to keep as it was.
  if (arrayInsertion || plain.length !== 1 || !one || /^\s*\{?\s*\}?\s*$/.test(text) || emptyParent(text, path)) {
    const out = applyEdits(text, modify(text, path, value, { ...FORMAT, isArrayInsertion: arrayInsertion }));
    return text === '' && out !== '' && !out.endsWith('\n') ? `${out}\n` : out;
  }
  const indent = '  '.repeat(path.length);
  if (value === undefined) {
    // A removal that took the whitespace before what follows (the next entry, the closing bracket) leaves it to that.
    const removed = text.slice(one.offset, one.offset + one.length);
    const length = one.length - /\s*$/.exec(removed)![0].length;
    return text.slice(0, one.offset) + text.slice(one.offset + length);
  }
  const pretty = JSON.stringify(value, null, 2).replace(/\n/g, `\n${indent}`);
  const compact = JSON.stringify(value);
  const at = one.content.lastIndexOf(compact);
  if (at < 0) return applyEdits(text, [one]);
  const head = one.content.slice(0, at);
  const tail = one.content.slice(at + compact.length);
  // A new property: on a line of its own, after the comma; a changed value: in its place.
  const key = /^(,?)("(?:[^"\\]|\\.)*":\s*)$/.exec(head);
  const content = key ? `${key[1]}\n${indent}${key[2]}${pretty}${tail}` : `${head}${pretty}${tail}`;
  return applyEdits(text, [{ ...one, content }]);
}

/** The index of `path`'s first key that is not there, or -1. */
function firstMissing(text: string, path: JSONPath): number {
  let node: unknown = parse(text, [], { allowTrailingComma: true });
  for (const [i, key] of path.entries()) {
    node = (node as Record<string | number, unknown> | undefined)?.[key];
    if (node === undefined) return i;
  }
  return -1;
}

/** Whether the object or array that holds `path`'s last key is there and empty. */
function emptyParent(text: string, path: JSONPath): boolean {
  let node: unknown = parse(text, [], { allowTrailingComma: true });
  for (const key of path.slice(0, -1)) node = (node as Record<string | number, unknown> | undefined)?.[key];
  if (node === undefined) return true;
  return Array.isArray(node)
    ? node.length === 0
    : typeof node === 'object' && node !== null && !Object.keys(node).length;
}

/** After a removal: the containers on `path` (deepest first) go while empty, and a file left `{}` goes. */
export function prune(text: string, path: JSONPath, file: string): string | undefined {
  let out = text;
  for (let depth = path.length; depth > 0; depth--) {
    let node: unknown = parseObject(out, file);
    for (const key of path.slice(0, depth)) node = (node as Record<string | number, unknown> | undefined)?.[key];
    const empty = Array.isArray(node)
      ? node.length === 0
      : node && typeof node === 'object' && !Object.keys(node).length;
    if (!empty) break;
    out = edit(out, path.slice(0, depth), undefined);
  }
  return Object.keys(parseObject(out, file)).length === 0 ? undefined : out;
}

/** A hook entry as read from a file: anything may be missing. */
type ReadHook = { matcher?: string; hooks?: { type?: string; command?: string }[] };

/** The text with our hooks (their command matching `ours`, whatever paths they were written with) out of `hooks[event]`, then `entry` appended when given. */
export function withHook(text: string, file: string, event: string, ours: RegExp, entry?: HookEntry): string {
  let out = text;
  const entries = () => (parseObject(out, file).hooks as Record<string, ReadHook[] | undefined> | undefined)?.[event];
  for (let i = (entries()?.length ?? 0) - 1; i >= 0; i--) {
    const hooks = entries()![i]!.hooks ?? [];
    if (!hooks.some((h) => ours.test(h.command ?? ''))) continue;
    const others = hooks.filter((h) => !ours.test(h.command ?? ''));
    out =
      others.length > 0 ? edit(out, ['hooks', event, i, 'hooks'], others) : edit(out, ['hooks', event, i], undefined);
  }
  if (entry) out = entries() ? edit(out, ['hooks', event, -1], entry, true) : edit(out, ['hooks', event], [entry]);
  return out;
}

/** The text with our MCP server in `mcpServers` (or, without one, out of it). */
export function withServer(text: string, file: string, server?: Record<string, unknown>): string {
  return withOurs(text, file, ['mcpServers', MCP_SERVER], server);
}

/** An MCP server entry that starts `retained mcp` (`…/cli.js mcp`), whatever paths it names. */
const isOurs = (entry: unknown) => /cli\.js",\s*"mcp"/.test(JSON.stringify(entry ?? null));

/**
 * The text with `value` at `path`, or (undefined) out of it, when what is there is ours or
 * nothing: an entry of the user's own under our name is never taken (setup refuses, naming it;
 * a removal leaves it).
 */
export function withOurs(text: string, file: string, path: JSONPath, value?: unknown): string {
  let node: unknown = parseObject(text, file);
  for (const key of path) node = (node as Record<string | number, unknown> | undefined)?.[key];
  if (node !== undefined && !isOurs(node)) {
    if (value === undefined) return text;
    throw new Error(`${file} has a ${path.join('.')} that retained setup did not write: rename or remove it first`);
  }
  return edit(text, path, value);
}

/** The server entry that starts `retained mcp`. */
export const serverOf = (launcher: Launcher) => ({
  command: launcher.node,
  args: [launcher.cli, 'mcp'],
  ...(launcher.env ? { env: launcher.env } : {}),
});

/**
 * A file's text when done: after a setup, the text (or the file as it was, when only its
 * formatting would change); after a removal, the containers emptied along `paths` gone, and a
 * file left `{}` gone too (undefined), as one that was not there stays not there.
 */
export function finish(before: string | undefined, text: string, file: string, remove: boolean, paths: JSONPath[]) {
  if (!remove) return before !== undefined && sameJson(before, text) ? before : text;
  if (before === undefined) return undefined;
  let out: string | undefined = text;
  for (const path of paths) out = prune(out ?? '{}', path, file);
  return out;
}

/**
 * A JSON file edited in place: `change` applied to its text ('' when it is not there), then
 * finished as `finish` says, with `containers` the ones a removal may leave empty.
 */
export function editedFile(
  path: string,
  read: Read,
  remove: boolean,
  containers: JSONPath[],
  change: (text: string) => string,
): FileChange {
  const before = read(path);
  return { path, before, after: finish(before, change(before ?? ''), path, remove, containers) };
}

/** A settings file that holds our MCP server and our hooks by event (Gemini CLI's, Qwen Code's). */
export function serverAndHooks(
  path: string,
  read: Read,
  launcher: Launcher,
  remove: boolean,
  hooks: Record<string, HookEntry>,
  ours: RegExp,
): FileChange {
  const containers: JSONPath[] = [['mcpServers'], ...Object.keys(hooks).map((event) => ['hooks', event])];
  return editedFile(path, read, remove, containers, (text) => {
    let out = withServer(text, path, remove ? undefined : serverOf(launcher));
    for (const [event, hook] of Object.entries(hooks))
      out = withHook(out, path, event, ours, remove ? undefined : hook);
    return out;
  });
}

/**
 * A file of setup's own (a plugin, a hooks file): written whole, and deleted by a removal. A
 * file there that is not setup's (`ours` says) is never overwritten: setup refuses, naming it.
 */
export function ownFile(
  path: string,
  read: Read,
  ours: (text: string) => boolean,
  remove: boolean,
  text: () => string,
  executable = false,
): FileChange {
  const before = read(path);
  if (before !== undefined && !ours(before))
    throw new Error(`${path} was not written by retained setup: move it away first`);
  return { path, before, after: remove ? undefined : text(), ...(executable ? { executable } : {}) };
}

/** A hook entry as Claude Code, Gemini CLI and Qwen Code read it: a matcher and the commands it runs. */
export interface HookEntry {
  matcher: string;
  hooks: { type: 'command'; command: string; name?: string; timeout?: number }[];
}

export function sameJson(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return JSON.stringify(parse(a)) === JSON.stringify(parse(b));
}
