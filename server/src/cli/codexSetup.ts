/** Codex's setup: one marked block of its `config.toml`, taken out by what it holds. */
import { MCP_SERVER } from '../../../shared/agents';
import { commandLine, type Launcher } from '../../../shared/launcher';
import type { FileChange } from '../../../shared/setupAnswer';
import type { Read, Sha256 } from './setupEdits';

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
export function codexSetup(
  home: string,
  launcher: Launcher,
  read: Read,
  remove: boolean,
  sha256: Sha256,
): FileChange[] {
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
