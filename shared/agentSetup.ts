/**
 * What `retained setup <agent>` (and "Set Up an Agent…" in VS Code) writes into an agent's own
 * configuration, and what `--remove` takes out: pure functions of the files' text, so what is
 * shown first is exactly what is written, a second run changes nothing, and a removal gives
 * back the file as it was. JSON files are edited in place (jsonc-parser, as VS Code edits its
 * settings: comments and the rest of the file kept); a TOML file gets one marked block.
 */
import { applyEdits, type JSONPath, modify, type ParseError, parse, printParseErrorCode } from 'jsonc-parser';
import { AGENT_IDS, AGENTS, type AgentId, GEMINI_SHELL_TOOL, MCP_SERVER } from './agents';
import { commandLine, type Launcher, shellQuote } from './launcher';
import { REWRITE_MAX_BYTES, REWRITE_TAG, rewrite } from './rewrite';
import { DEFAULT_SETTINGS } from './settings';
import type { FileChange } from './setupAnswer';
import { STORE_DIR } from './storeDir';

export type { FileChange };

/** The agents `setup` knows: every row of the agent table. */
export const SETUP_AGENTS = AGENT_IDS;
export type SetupAgent = AgentId;

/** Where setup writes: the project (Claude Code's `.mcp.json` and `.claude/settings.json`), and the agent's home folder. */
export interface SetupPlaces {
  project?: string | undefined;
  /** The agent's home folder (agentHome: as the agent finds it). */
  home?: string | undefined;
}

type Read = (path: string) => string | undefined;
/** SHA-256 of a text's UTF-8 bytes, in hex (the caller's: shared/ imports nothing of Node). */
export type Sha256 = (text: string) => string;

/** What setting up (or, with `remove`, taking out) an agent changes; nothing when there is nothing to do. */
export function setupChanges(
  agent: SetupAgent,
  places: SetupPlaces,
  launcher: Launcher,
  read: Read,
  { remove = false, sha256 }: { remove?: boolean | undefined; sha256: Sha256 },
): FileChange[] {
  // Claude Code's setup writes the project; every other agent's, its home.
  const folder =
    agent === 'claude-code'
      ? required(places.project, 'a project folder')
      : required(places.home, `${AGENTS[agent].name}'s home folder`);
  return SETUPS[agent](folder, launcher, read, remove, sha256).filter((c) => c.before !== c.after);
}

/** Each agent's setup: its folder (the project or its home) to the files it changes. */
type Setup = (folder: string, launcher: Launcher, read: Read, remove: boolean, sha256: Sha256) => FileChange[];
// Functions declared further down (hoisted), so the table may stand here.
const SETUPS: Record<SetupAgent, Setup> = {
  'claude-code': claudeCode,
  cline,
  codex,
  'copilot-cli': copilotCli,
  gemini,
  opencode,
  qwen,
};

function required(value: string | undefined, what: string): string {
  if (!value) throw new Error(`setting up this agent needs ${what}`);
  return value;
}

// ─── JSON, edited in place ───────────────────────────────────────────────────────────────────

const FORMAT = { formattingOptions: { insertSpaces: true, tabSize: 2, eol: '\n' } };

function parseObject(text: string | undefined, path: string): Record<string, unknown> {
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
function edit(text: string, path: JSONPath, value: unknown, arrayInsertion = false): string {
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
function prune(text: string, path: JSONPath, file: string): string | undefined {
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
function withHook(text: string, file: string, event: string, ours: RegExp, entry?: HookEntry): string {
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
function withServer(text: string, file: string, server?: Record<string, unknown>): string {
  return withOurs(text, file, ['mcpServers', MCP_SERVER], server);
}

/** An MCP server entry that starts `retained mcp` (`…/cli.js mcp`), whatever paths it names. */
const isOurs = (entry: unknown) => /cli\.js",\s*"mcp"/.test(JSON.stringify(entry ?? null));

/**
 * The text with `value` at `path`, or (undefined) out of it, when what is there is ours or
 * nothing: an entry of the user's own under our name is never taken (setup refuses, naming it;
 * a removal leaves it).
 */
function withOurs(text: string, file: string, path: JSONPath, value?: unknown): string {
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
function finish(before: string | undefined, text: string, file: string, remove: boolean, paths: JSONPath[]) {
  if (!remove) return before !== undefined && sameJson(before, text) ? before : text;
  if (before === undefined) return undefined;
  let out: string | undefined = text;
  for (const path of paths) out = prune(out ?? '{}', path, file);
  return out;
}

/**
 * A file of setup's own (a plugin, a hooks file): written whole, and deleted by a removal. A
 * file there that is not setup's (`ours` says) is never overwritten: setup refuses, naming it.
 */
function ownFile(
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

/**
 * The command the model wrote, from the script Claude Code's Bash tool hands its shell prefix
 * (`source <snapshot> … && eval '<command>' … && pwd -P >| <file>`): what the value's call is
 * said to have run. Undefined for any other script.
 */
export function claudeScriptCommand(script: string): string | undefined {
  if (!script.includes(' && pwd -P >| ')) return undefined;
  const start = script.indexOf(' && eval ');
  if (start === -1) return undefined;
  // One shell word: quoted parts ('…', with '\'' inside) and escaped characters, to the first blank.
  let word = '';
  let at = start + ' && eval '.length;
  while (at < script.length && !/\s/.test(script[at]!)) {
    const c = script[at]!;
    if (c === "'") {
      const end = script.indexOf("'", at + 1);
      if (end === -1) return undefined;
      word += script.slice(at + 1, end);
      at = end + 1;
    } else if (c === '\\' && at + 1 < script.length) {
      word += script[at + 1];
      at += 2;
    } else {
      word += c;
      at++;
    }
  }
  return word || undefined;
}

/** Claude Code's setting for a program it runs each shell command through (its Bash tool's, its hooks', its MCP servers'). */
const SHELL_PREFIX = 'CLAUDE_CODE_SHELL_PREFIX';
const PREFIX_FILE = 'retained-outputs-prefix.sh';
const PREFIX_MARK = '#!/bin/sh\n# Retained Outputs: Claude Code';

/**
 * The program Claude Code runs its shell commands through (`CLAUDE_CODE_SHELL_PREFIX`): Claude
 * Code hands it one argument, the script it would have run with its shell; its permission rules
 * have judged the command by then, as the model wrote it. A Bash tool script (it records the
 * folder it ends in: `pwd -P >| …`) runs through `retained run` in the same shell, so the whole
 * output, of a failing command too, is kept; anything else runs as it is.
 */
function claudePrefix(launcher: Launcher, store: string): string {
  const { env, ...program } = launcher;
  const run = commandLine(program, ['run', '--tool=Bash', '--quiet']);
  // Assignments before `exec` are the program's environment (after it, a word of the command).
  const assign = Object.entries(env ?? {}).map(([k, v]) => `${k}=${shellQuote(v)} `);
  return `${PREFIX_MARK} runs each shell command through this file (${SHELL_PREFIX} in
# .claude/settings.json; \`retained setup claude-code --remove\` takes both out). A command of its Bash
# tool runs through \`retained run\`: its whole output is kept, and the model gets it when small, else a
# stub naming its error lines. Anything else, or everything once Retained Outputs is gone, runs as it is.
shell=\${CLAUDE_CODE_SHELL:-$SHELL}
case "\${shell##*/}" in bash | zsh) ;; *) shell=$(command -v bash || echo /bin/sh) ;; esac
case "$1" in *' && pwd -P >| '*) ;; *) exec /bin/sh -c "$1" ;; esac
[ -n "$CLAUDE_CODE_SESSION_ID" ] && [ -f ${shellQuote(launcher.cli)} ] && [ -x ${shellQuote(launcher.node)} ] || exec "$shell" -c "$1"
# Claude Code starts a login shell only when it has no snapshot of the user's shell to source.
case "$1" in 'source '*shell-snapshots/*) options= ;; *) options=login_shell ;; esac
store=\${RETAINED_STORE:-${shellQuote(store)}}
${assign.join('')}exec ${run} --store="$store" --run="$CLAUDE_CODE_SESSION_ID" --shell="$shell" --shell-options="$options" -- "$1"
`;
}

/**
 * Claude Code, for a project: `.mcp.json` gets the server; `.claude/settings.json` the hook (on
 * each tool result, and on a session restarted by a compaction), the server's approval and the shell prefix (`.claude/retained-outputs-prefix.sh`: claudePrefix).
 */
function claudeCode(project: string, launcher: Launcher, read: Read, remove: boolean): FileChange[] {
  const mcpPath = `${project}/.mcp.json`;
  const mcpBefore = read(mcpPath);
  const mcp = withServer(mcpBefore ?? '', mcpPath, remove ? undefined : serverOf(launcher));

  const settingsPath = `${project}/.claude/settings.json`;
  const prefixPath = `${project}/.claude/${PREFIX_FILE}`;
  const settingsBefore = read(settingsPath);
  const hook: HookEntry = {
    matcher: '*',
    hooks: [{ type: 'command', command: commandLine(launcher, ['hook', 'claude-code']) }],
  };
  let settings = withHook(
    settingsBefore ?? '',
    settingsPath,
    'PostToolUse',
    /\bhook claude-code(\s|$)/,
    remove ? undefined : hook,
  );
  // After a compaction, the same hook hands the model the index of what was retained before it.
  const compacted = { matcher: 'compact', hooks: hook.hooks };
  settings = withHook(
    settings,
    settingsPath,
    'SessionStart',
    /\bhook claude-code(\s|$)/,
    remove ? undefined : compacted,
  );
  const parsed = parseObject(settings, settingsPath);
  const enabled = (parsed.enabledMcpjsonServers as string[] | undefined) ?? [];
  const at = enabled.indexOf(MCP_SERVER);
  if (remove && at >= 0) settings = edit(settings, ['enabledMcpjsonServers', at], undefined);
  if (!remove && at < 0)
    settings =
      enabled.length > 0
        ? edit(settings, ['enabledMcpjsonServers', -1], MCP_SERVER, true)
        : edit(settings, ['enabledMcpjsonServers'], [MCP_SERVER]);
  const prefix = (parsed.env as Record<string, unknown> | undefined)?.[SHELL_PREFIX];
  if (prefix !== undefined && prefix !== prefixPath && !remove)
    throw new Error(
      `${settingsPath} runs shell commands through ${JSON.stringify(prefix)} (env.${SHELL_PREFIX}): Claude Code takes one; remove it first`,
    );
  if (prefix === prefixPath && remove) settings = edit(settings, ['env', SHELL_PREFIX], undefined);
  if (prefix === undefined && !remove) settings = edit(settings, ['env', SHELL_PREFIX], prefixPath);
  return [
    { path: mcpPath, before: mcpBefore, after: finish(mcpBefore, mcp, mcpPath, remove, [['mcpServers']]) },
    {
      path: settingsPath,
      before: settingsBefore,
      after: finish(settingsBefore, settings, settingsPath, remove, [
        ['hooks', 'PostToolUse'],
        ['hooks', 'SessionStart'],
        ['enabledMcpjsonServers'],
        ['env'],
      ]),
    },
    ownFile(
      prefixPath,
      read,
      (t) => t.startsWith(PREFIX_MARK),
      remove,
      () => claudePrefix(launcher, `${project}/${STORE_DIR}`),
      true,
    ),
  ];
}

/** A hook entry as Claude Code, Gemini CLI and Qwen Code read it: a matcher and the commands it runs. */
export interface HookEntry {
  matcher: string;
  hooks: { type: 'command'; command: string; name?: string; timeout?: number }[];
}

/** Gemini CLI's hooks, by event: what setup merges into its settings and its extension ships. */
export function geminiHooks(launcher: Launcher): Record<'BeforeTool' | 'AfterTool', HookEntry> {
  const hook: HookEntry = {
    matcher: `^${GEMINI_SHELL_TOOL}$`,
    hooks: [{ type: 'command', name: 'retained', command: commandLine(launcher, ['hook', 'gemini']), timeout: 30_000 }],
  };
  return { BeforeTool: hook, AfterTool: hook };
}

/** Qwen Code's hooks, by event: what setup merges into its settings and its extension ships. */
export function qwenHooks(
  launcher: Launcher,
): Record<'PostToolUse' | 'PostToolUseFailure' | 'SessionStart', HookEntry> {
  const hooks: HookEntry['hooks'] = [{ type: 'command', command: commandLine(launcher, ['hook', 'qwen']) }];
  const shell = { matcher: `^${GEMINI_SHELL_TOOL}$`, hooks };
  // After a compaction, the same hook hands the model the index of what was retained before it;
  // Qwen Code keeps it in the system instruction, which a resumed session rebuilds: again then.
  return { PostToolUse: shell, PostToolUseFailure: shell, SessionStart: { matcher: 'compact|resume', hooks } };
}

/**
 * Gemini CLI, for the user: `settings.json` in its home gets the MCP server, and BeforeTool and
 * AfterTool hooks on the shell tool (`retained hook gemini`: a command rewritten to run through
 * `retained run` where Gemini CLI's rules allow it whatever it is, else its big output retained after).
 */
function gemini(home: string, launcher: Launcher, read: Read, remove: boolean): FileChange[] {
  const path = `${home}/settings.json`;
  const before = read(path);
  let text = withServer(before ?? '', path, remove ? undefined : serverOf(launcher));
  for (const [event, hook] of Object.entries(geminiHooks(launcher)))
    text = withHook(text, path, event, /\bhook gemini(\s|$)/, remove ? undefined : hook);
  return [
    {
      path,
      before,
      after: finish(before, text, path, remove, [['mcpServers'], ['hooks', 'BeforeTool'], ['hooks', 'AfterTool']]),
    },
  ];
}

function sameJson(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return JSON.stringify(parse(a)) === JSON.stringify(parse(b));
}

/**
 * Qwen Code, for the user: `settings.json` in its home gets the MCP server and PostToolUse and
 * PostToolUseFailure hooks on the shell tool (`retained hook qwen`: its whole output retained,
 * the model gets the stub; after a failure, beside Qwen Code's own cut), and a SessionStart hook
 * on `compact` and `resume` that hands the model the index of what was retained before a compaction.
 */
function qwen(home: string, launcher: Launcher, read: Read, remove: boolean): FileChange[] {
  const path = `${home}/settings.json`;
  const before = read(path);
  let text = withServer(before ?? '', path, remove ? undefined : serverOf(launcher));
  for (const [event, hook] of Object.entries(qwenHooks(launcher)))
    text = withHook(text, path, event, /\bhook qwen(\s|$)/, remove ? undefined : hook);
  return [
    {
      path,
      before,
      after: finish(before, text, path, remove, [
        ['mcpServers'],
        ['hooks', 'PostToolUse'],
        ['hooks', 'PostToolUseFailure'],
        ['hooks', 'SessionStart'],
      ]),
    },
  ];
}

/**
 * GitHub Copilot CLI, for the user: `mcp-config.json` in its home gets the MCP server, and
 * `hooks/retained-outputs.json` (a file of its own, which removal deletes) a postToolUse hook
 * (`retained hook copilot-cli`: the output Copilot CLI saved retained, the model gets the stub).
 */
function copilotCli(home: string, launcher: Launcher, read: Read, remove: boolean): FileChange[] {
  const mcpPath = `${home}/mcp-config.json`;
  const mcpBefore = read(mcpPath);
  const server = { type: 'local', ...serverOf(launcher), tools: ['*'] };
  const mcp = withServer(mcpBefore ?? '', mcpPath, remove ? undefined : server);
  const command = commandLine(launcher, ['hook', 'copilot-cli']);
  const hook = { version: 1, hooks: { postToolUse: [{ type: 'command', bash: command, timeoutSec: 60 }] } };
  return [
    { path: mcpPath, before: mcpBefore, after: finish(mcpBefore, mcp, mcpPath, remove, [['mcpServers']]) },
    ownFile(
      `${home}/hooks/retained-outputs.json`,
      read,
      (t) => /\bhook copilot(-cli)?(\s|")/.test(t),
      remove,
      () => `${JSON.stringify(hook, null, 2)}\n`,
    ),
  ];
}

/** The first line of the plugin file setup writes for Cline: a file without it is not ours. */
const CLINE_PLUGIN_MARK =
  '// Retained Outputs for Cline, written by `retained setup cline` (`--remove` deletes this file).';

/**
 * Cline's plugin: each command of `run_commands` runs through `retained run` in the
 * conversation's run (its `afterTool` sees only Cline's own cut of a big output), and the
 * results go back under the commands the model wrote.
 */
/** Cline's shell tool. */
const CLINE_SHELL_TOOL = 'run_commands';

/** Stand-ins in the rewrite the Cline plugin fills in for each command (never in a real one: NUL). */
const HOLE = { store: '\u0000S', run: '\u0000R', call: '\u0000C', command: '\u0000X' } as const;

function clinePlugin(launcher: Launcher): string {
  // The rewrite, as every rewriting agent's (shared/rewrite.ts), with stand-ins the plugin fills.
  const template = rewrite(
    launcher,
    { store: HOLE.store, run: HOLE.run, call: HOLE.call, tool: CLINE_SHELL_TOOL },
    HOLE.command,
  );
  return `${CLINE_PLUGIN_MARK}
// Each command of run_commands runs through \`retained run\`, in the shell Cline starts (bash -c),
// the command line handed over whole in a here-document: its whole output is kept as a value, and
// the model gets the output when small, else a stub naming its error lines (read on with
// retained__peek_value). The results are given back under the commands the model wrote.
// (Cline CLI has no rules per command: its approval, when on, asks about the command it is given.)
const FS = 'node:fs';
const PATH = 'node:path';
const { existsSync } = require(FS);
const { join } = require(PATH);
const TEMPLATE = ${JSON.stringify(template)};
const HOLE = ${JSON.stringify(HOLE)};
const FILES = ${JSON.stringify([launcher.node, launcher.cli])};
const MAX_BYTES = ${REWRITE_MAX_BYTES};
const quote = (word) => (/^[\\w@%+=:,./-]+$/.test(word) ? word : \`'\${word.replace(/'/g, "'\\\\''")}'\`);
/** The commands as the model wrote them, by call, while they run. */
const written = new Map();

/** The rewrite of one command, or the command as it is when it cannot be rewritten whole. */
function rewritten(command, store, run, call) {
  if (command.includes(HOLE.store[0]) || command.split('\\n').includes('${REWRITE_TAG}')) return command;
  if (command.includes(' --command-fd=3 --shell="$0" ')) return command;
  // The store and the ids stand in words of the template ('--run=\\0R'): each word is quoted as the rewrite quotes it.
  const word = (flag, hole, value) => (text) => text.replace(\`'\${flag}\${hole}'\`, () => quote(flag + value));
  const text = [word('--store=', HOLE.store, store), word('--run=', HOLE.run, run), word('--call=', HOLE.call, call)]
    .reduce((t, fill) => fill(t), TEMPLATE)
    .replace(HOLE.command, () => command);
  return Buffer.byteLength(text) <= MAX_BYTES ? text : command;
}

const plugin = {
  name: 'retained-outputs',
  manifest: { capabilities: ['hooks'] },
  hooks: {
    beforeTool: async (ctx) => {
      const call = ctx.toolCall;
      const input = ctx.input ?? call?.input;
      const run = ctx.snapshot?.conversationId;
      if (call?.toolName !== '${CLINE_SHELL_TOOL}' || !Array.isArray(input?.commands)) return undefined;
      if (typeof run !== 'string' || typeof call.toolCallId !== 'string') return undefined;
      if (!input.commands.every((c) => typeof c === 'string')) return undefined;
      if (input.commands.every((c) => c.includes(' --command-fd=3 --shell="$0" '))) return undefined;
      // When the command line is gone (an uninstall, a moved Node), commands run as they are.
      if (!FILES.every((file) => existsSync(file))) return undefined;
      // The store is named: a command may cd anywhere.
      const store = process.env.RETAINED_STORE || join(process.cwd(), '${STORE_DIR}');
      written.set(call.toolCallId, input.commands);
      const several = input.commands.length > 1;
      const commands = input.commands.map((command, i) =>
        rewritten(command, store, run, several ? \`\${call.toolCallId}-\${i + 1}\` : call.toolCallId),
      );
      return { input: { ...input, commands } };
    },
    afterTool: async (ctx) => {
      const id = ctx.toolCall?.toolCallId;
      const commands = written.get(id);
      written.delete(id);
      const output = ctx.result?.output;
      if (!commands || !Array.isArray(output)) return undefined;
      const named = output.map((r, i) =>
        r && typeof r === 'object' && typeof commands[i] === 'string' ? { ...r, query: commands[i] } : r,
      );
      return { result: { ...ctx.result, output: named } };
    },
  },
};
module.exports = plugin;
module.exports.default = plugin;
`;
}

/**
 * Cline, for the user: its MCP settings (`data/settings/cline_mcp_settings.json` in its home)
 * get the server, and `plugins/retained-outputs.js` the plugin. Cline's hook scripts can only
 * add context to a result; a plugin can change a tool's input, so commands run through us.
 */
function cline(home: string, launcher: Launcher, read: Read, remove: boolean): FileChange[] {
  const mcpPath = `${home}/data/settings/cline_mcp_settings.json`;
  const mcpBefore = read(mcpPath);
  const mcp = withServer(mcpBefore ?? '', mcpPath, remove ? undefined : { ...serverOf(launcher), disabled: false });
  return [
    { path: mcpPath, before: mcpBefore, after: finish(mcpBefore, mcp, mcpPath, remove, [['mcpServers']]) },
    ownFile(
      `${home}/plugins/retained-outputs.js`,
      read,
      (t) => t.startsWith(CLINE_PLUGIN_MARK),
      remove,
      () => clinePlugin(launcher),
    ),
  ];
}

/** The first line of the plugin file setup writes for OpenCode: a file without it is not ours. */
const PLUGIN_MARK =
  '// Retained Outputs for OpenCode, written by `retained setup opencode` (`--remove` deletes this file).';

/** OpenCode's plugin: its bash commands run through `retained run`, named after the call, in the session's run. */
function opencodePlugin(launcher: Launcher): string {
  return `${PLUGIN_MARK}
// After OpenCode's bash tool has run a command (as OpenCode runs it: its shell, its permission
// rules judging the command as the model wrote it), a big output is handed to \`retained hook
// opencode\`: it keeps the whole output (from the file OpenCode saved it to) as a value, and the
// model gets a stub naming its error lines and its exit status instead of OpenCode's tail.
// A small output, or anything once Retained Outputs is gone, is left as it is.
// After a compaction, every request carries the index of what was retained before it, added to
// the compaction's own message (as OpenCode sends it, before its summary): the same text each time.
const NODE = ${JSON.stringify(launcher.node)};
const ARGS = ${JSON.stringify([launcher.cli, 'hook', 'opencode'])};
const ENV = ${JSON.stringify(launcher.env ?? {})};
const THRESHOLD = ${DEFAULT_SETTINGS.thresholdBytes};
const FS = 'node:fs';
const CHILD = 'node:child_process';

export const RetainedOutputs = async ({ directory }) => {
  const { existsSync } = await import(FS);
  const { spawn } = await import(CHILD);
  const ask = (input) =>
    new Promise((done) => {
      const child = spawn(NODE, ARGS, { cwd: directory, env: { ...process.env, ...ENV }, stdio: ['pipe', 'pipe', 'ignore'] });
      const out = [];
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.stdout.on('data', (d) => out.push(d));
      child.on('error', () => done(undefined));
      child.on('close', () => {
        clearTimeout(timer);
        try {
          done(JSON.parse(Buffer.concat(out).toString('utf8')));
        } catch {
          done(undefined);
        }
      });
      child.stdin.on('error', () => undefined);
      child.stdin.end(JSON.stringify(input));
    });
  const handed = new Map();
  return {
    'experimental.chat.messages.transform': async (_input, output) => {
      // The compaction's message, once its summary is written (the summary's own request leaves it alone).
      const messages = Array.isArray(output?.messages) ? output.messages : [];
      const summary = messages.findLastIndex((m) => m?.info?.role === 'assistant' && m.info.summary && m.info.finish && !m.info.error);
      const message = messages
        .slice(0, Math.max(0, summary))
        .findLast((m) => m?.info?.role === 'user' && Array.isArray(m.parts) && m.parts.some((p) => p?.type === 'compaction'));
      if (!message || typeof message.info.id !== 'string' || typeof message.info.sessionID !== 'string') return;
      if (!existsSync(NODE) || !existsSync(ARGS[0])) return;
      const compaction = message.parts.find((p) => p.type === 'compaction');
      if (!handed.has(message.info.id)) {
        const answer = await ask({
          hook_event_name: 'compacted',
          session_id: message.info.sessionID,
          compaction_id: message.info.id,
          ...(typeof compaction.auto === 'boolean' ? { auto: compaction.auto } : {}),
        });
        if (typeof answer?.index !== 'string') return;
        handed.set(message.info.id, answer.index);
      }
      const index = handed.get(message.info.id);
      if (!index) return;
      const id = \`\${compaction.id}-retained-index\`;
      if (message.parts.some((p) => p?.id === id)) return;
      message.parts.push({ id, sessionID: message.info.sessionID, messageID: message.info.id, type: 'text', text: index, synthetic: true });
    },
    'tool.execute.after': async (input, output) => {
      if (input.tool !== 'bash' || typeof output?.output !== 'string') return;
      if (typeof input.sessionID !== 'string' || typeof input.callID !== 'string') return;
      const metadata = output.metadata ?? {};
      const saved = typeof metadata.outputPath === 'string';
      if (!saved && Buffer.byteLength(output.output) <= THRESHOLD) return;
      if (!existsSync(NODE) || !existsSync(ARGS[0])) return;
      const answer = await ask({
        session_id: input.sessionID,
        call_id: input.callID,
        ...(typeof input.args?.command === 'string' ? { command: input.args.command } : {}),
        exit: typeof metadata.exit === 'number' ? metadata.exit : null,
        ...(saved ? { output_path: metadata.outputPath } : {}),
        output: output.output,
      });
      if (typeof answer?.output === 'string') output.output = answer.output;
    },
  };
};
`;
}

/**
 * OpenCode, for the user: `opencode.json` in its configuration folder gets the MCP server, and
 * `plugins/retained-outputs.js` the plugin that retains a big bash output after it ran.
 */
function opencode(dir: string, launcher: Launcher, read: Read, remove: boolean): FileChange[] {
  const configPath = `${dir}/opencode.json`;
  const configBefore = read(configPath);
  const server = {
    type: 'local',
    command: [launcher.node, launcher.cli, 'mcp'],
    enabled: true,
    ...(launcher.env ? { environment: launcher.env } : {}),
  };
  const config = withOurs(configBefore ?? '', configPath, ['mcp', MCP_SERVER], remove ? undefined : server);
  return [
    { path: configPath, before: configBefore, after: finish(configBefore, config, configPath, remove, [['mcp']]) },
    ownFile(
      `${dir}/plugins/retained-outputs.js`,
      read,
      (t) => t.startsWith(PLUGIN_MARK),
      remove,
      () => opencodePlugin(launcher),
    ),
  ];
}

// ─── TOML, one marked block, taken out by what it holds ──────────────────────────────────────

const BEGIN = '# >>> Retained Outputs (`retained setup codex --remove` takes this block out)';
const END = '# <<< Retained Outputs';

const toml = (s: string) => JSON.stringify(s); // a TOML basic string is a JSON string

/** Keys sorted at every level, no spaces: the JSON Codex hashes a hook by. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

const HOOK_TIMEOUT_SECONDS = 30;

/**
 * Codex, for the user: `config.toml` in its home gets, in one marked block, the PreToolUse hook
 * that runs shell commands through `retained run` (commandHooks.ts), the hook's trust (Codex runs
 * a hook from a config file only when the file records the hash of its definition as trusted,
 * as its own /hooks review would), and the MCP server. Codex rewrites the file itself (`codex mcp
 * add` re-emits every `[mcp_servers.*]` table and drops the comments around them), so a removal
 * finds setup's tables by what they hold, not by the marks: the server that starts `retained
 * mcp`, the hook group that runs `retained hook codex`, its trust entry, and the marks if still there.
 */
function codex(home: string, launcher: Launcher, read: Read, remove: boolean, sha256: Sha256): FileChange[] {
  const path = `${home}/config.toml`;
  const before = read(path);
  const without = withoutOurs(before);
  if (remove) return [{ path, before, after: without }];
  const serverAt = tables(without ?? '').find((t) => t.name === `mcp_servers.${MCP_SERVER}`);
  if (serverAt)
    throw new Error(
      `${path} has an mcp_servers.${MCP_SERVER} that retained setup did not write: rename or remove it first`,
    );
  const command = commandLine(launcher, ['hook', 'codex']);
  const matcher = '^Bash$';
  // Our group's place among the file's PreToolUse groups, which names its trust entry.
  const group = tables(without ?? '').filter((t) => t.name === 'hooks.PreToolUse' && t.array).length;
  const identity = {
    event_name: 'pre_tool_use',
    matcher,
    hooks: [{ type: 'command', command, timeout: HOOK_TIMEOUT_SECONDS, async: false }],
  };
  const lines = [
    BEGIN,
    '[[hooks.PreToolUse]]',
    `matcher = ${toml(matcher)}`,
    '[[hooks.PreToolUse.hooks]]',
    'type = "command"',
    `command = ${toml(command)}`,
    `timeout = ${HOOK_TIMEOUT_SECONDS}`,
    `[hooks.state.${toml(`${path}:pre_tool_use:${group}:0`)}]`,
    `trusted_hash = ${toml(`sha256:${sha256(canonical(identity))}`)}`,
    `[mcp_servers.${MCP_SERVER}]`,
    `command = ${toml(launcher.node)}`,
    `args = [${[launcher.cli, 'mcp'].map(toml).join(', ')}]`,
    ...(launcher.env
      ? [
          `env = { ${Object.entries(launcher.env)
            .map(([k, v]) => `${k} = ${toml(v)}`)
            .join(', ')} }`,
        ]
      : []),
    END,
  ];
  // One newline before the block (a blank line after a file that ends its last line): a removal takes it back.
  const base = without ?? '';
  const after = `${base}${base === '' ? '' : '\n'}${lines.join('\n')}\n`;
  // Set up already, as it would be written now: nothing changes.
  return before === after ? [] : [{ path, before, after }];
}

/** A table of a TOML file: its header's name, whether it is an array's (`[[…]]`), and its lines. */
interface Table {
  name: string;
  array: boolean;
  start: number;
  end: number;
}

const HEADER = /^\s*(\[\[?)\s*([^\][#]+?)\s*\]\]?\s*(?:#.*)?$/;

/** The tables of a TOML text, by line (what comes before the first is no table's). */
function tables(text: string): Table[] {
  const lines = text.split('\n');
  const out: Table[] = [];
  lines.forEach((line, i) => {
    const m = HEADER.exec(line);
    if (!m) return;
    if (out.length) out[out.length - 1]!.end = i;
    out.push({ name: m[2]!.replace(/\s*\.\s*/g, '.'), array: m[1] === '[[', start: i, end: lines.length });
  });
  return out;
}

/** The lines setup writes, whatever their values: a line of another kind in one of its tables is not setup's. */
const OUR_LINE =
  /^(\[mcp_servers\.[\w-]+(\.env)?\]|\[\[hooks\.PreToolUse(\.hooks)?\]\]|\[hooks\.state\."[^"]*"\]|(command|args|env|matcher|type|timeout|trusted_hash) = .*|[A-Z_][A-Z0-9_]* = ".*")$/;

/**
 * The file's text without what setup wrote: the marked block as it was written, when it still
 * holds only setup's tables (lines written into them since stay), then whatever of setup's
 * Codex moved out of it, found by what it holds.
 */
function withoutOurs(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const out = withoutScattered(withoutBlock(text));
  return out.trim() === '' ? undefined : out;
}

/** The line numbers of setup's tables (the lines setup writes in them) and of its marks. */
function ourLines(text: string): Set<number> {
  const lines = text.split('\n');
  const all = tables(text);
  const body = (t: Table) => lines.slice(t.start, t.end).join('\n');
  const ours = new Set<number>();
  const take = (t: Table) => {
    for (let i = t.start; i < t.end; i++) if (OUR_LINE.test(lines[i]!.trim())) ours.add(i);
  };
  const server = all.find((t) => t.name === `mcp_servers.${MCP_SERVER}`);
  if (server && /cli\.js",\s*"mcp"/.test(body(server))) {
    take(server);
    for (const t of all) if (t.name.startsWith(`mcp_servers.${MCP_SERVER}.`)) take(t);
  }
  // The hook group: `[[hooks.PreToolUse]]` and its `[[hooks.PreToolUse.hooks]]`, one of which runs our hook.
  const groups: Table[][] = [];
  for (const t of all) {
    if (t.name === 'hooks.PreToolUse' && t.array) groups.push([t]);
    else if (t.name === 'hooks.PreToolUse.hooks' && groups.length) groups[groups.length - 1]!.push(t);
  }
  groups.forEach((group, index) => {
    if (!group.some((t) => /\bhook codex(\s|"|$)/.test(body(t)))) return;
    for (const t of group) take(t);
    for (const t of all) if (t.name.startsWith('hooks.state.') && t.name.endsWith(`:pre_tool_use:${index}:0"`)) take(t);
  });
  lines.forEach((line, i) => {
    if (line === BEGIN || line === END) ours.add(i);
  });
  return ours;
}

/**
 * The text without the marked block, and without the separator the block was added with, when
 * every table in the block is setup's; else the text as it is.
 */
function withoutBlock(text: string): string {
  const start = text.indexOf(`${BEGIN}\n`);
  const endAt = start < 0 ? -1 : text.indexOf(`${END}\n`, start);
  if (endAt < 0) return text;
  const ours = ourLines(text);
  const first = text.slice(0, start).split('\n').length - 1;
  const block = text.slice(start, endAt).split('\n');
  if (block.some((line, i) => HEADER.test(line) && !ours.has(first + i))) return text;
  const head = text.slice(0, start);
  const tail = text.slice(endAt + END.length + 1);
  // Lines written into the block since (by hand, or by Codex itself) are not setup's: they stay.
  const foreign = block.slice(1).filter((line, i) => line.trim() !== '' && !ours.has(first + 1 + i));
  const kept = foreign.length > 0 ? `${foreign.join('\n')}\n` : '';
  // The block came after one newline of its own (setup adds it to any file that is not empty):
  // taken back only when nothing follows, so what follows never joins the line before it.
  return (head.endsWith('\n') && tail === '' && kept === '' ? head.slice(0, -1) : head) + kept + tail;
}

/** The text without setup's lines wherever they are. */
function withoutScattered(text: string): string {
  const ours = ourLines(text);
  if (ours.size === 0) return text;
  const lines = text.split('\n');
  // A blank line that only separated what goes from what came before goes with it.
  for (const i of [...ours].sort((a, b) => a - b)) {
    let next = i;
    while (ours.has(next)) next++;
    if (
      i > 0 &&
      !ours.has(i - 1) &&
      lines[i - 1]!.trim() === '' &&
      (next >= lines.length || lines[next]!.trim() === '')
    )
      ours.add(i - 1);
  }
  return lines.filter((_, i) => !ours.has(i)).join('\n');
}
