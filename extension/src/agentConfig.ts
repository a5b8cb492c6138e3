/**
 * The configuration "Set Up Claude Code / Codex…" adds, computed from what is there: the MCP
 * server (`retained mcp`) for both, and for Claude Code the PostToolUse hook. Pure functions of
 * the files' text, so what the command shows is exactly what it writes, and a second run
 * changes nothing.
 */
import { MCP_SERVER } from '../../shared/agents';

/** How to start the `retained` command line: a Node and the bundled cli.js. */
export interface Launcher {
  node: string;
  cli: string;
  /** Set when `node` is the editor's own binary, which runs scripts only with ELECTRON_RUN_AS_NODE. */
  env?: Record<string, string>;
}

export interface FileChange {
  path: string;
  /** The file's text before (undefined: a new file) and after. */
  before: string | undefined;
  after: string;
}

const shellQuote = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

function hookCommand(launcher: Launcher): string {
  const env = Object.entries(launcher.env ?? {}).map(([k, v]) => `${k}=${shellQuote(v)} `);
  return `${env.join('')}${shellQuote(launcher.node)} ${shellQuote(launcher.cli)} hook claude-code`;
}

function parseObject(text: string | undefined, path: string): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {};
  const value = JSON.parse(text) as unknown;
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error(`${path} does not hold a JSON object`);
  return value as Record<string, unknown>;
}

/** Claude Code, for this project: `.mcp.json` gets the server, `.claude/settings.json` the hook and the server's approval. */
export function claudeCodeChanges(
  workspace: string,
  launcher: Launcher,
  read: (path: string) => string | undefined,
): FileChange[] {
  const mcpPath = `${workspace}/.mcp.json`;
  const mcpBefore = read(mcpPath);
  const mcp = parseObject(mcpBefore, mcpPath);
  const servers = { ...(mcp.mcpServers as Record<string, unknown> | undefined) };
  servers[MCP_SERVER] = {
    command: launcher.node,
    args: [launcher.cli, 'mcp'],
    ...(launcher.env ? { env: launcher.env } : {}),
  };
  const mcpAfter = `${JSON.stringify({ ...mcp, mcpServers: servers }, null, 2)}\n`;

  const settingsPath = `${workspace}/.claude/settings.json`;
  const settingsBefore = read(settingsPath);
  const settings = parseObject(settingsBefore, settingsPath);
  const hooks = { ...(settings.hooks as Record<string, unknown> | undefined) };
  const command = hookCommand(launcher);
  type Matcher = { matcher?: string; hooks?: { type: string; command?: string }[] };
  // Any earlier `retained … hook claude-code` (another install path) is replaced, not added to.
  const others = ((hooks.PostToolUse as Matcher[] | undefined) ?? [])
    .map((m) => ({ ...m, hooks: (m.hooks ?? []).filter((h) => !/\bhook claude-code$/.test(h.command ?? '')) }))
    .filter((m) => m.hooks.length > 0);
  hooks.PostToolUse = [...others, { matcher: '*', hooks: [{ type: 'command', command }] }];
  const enabled = new Set([...((settings.enabledMcpjsonServers as string[] | undefined) ?? []), MCP_SERVER]);
  const settingsAfter = `${JSON.stringify({ ...settings, hooks, enabledMcpjsonServers: [...enabled] }, null, 2)}\n`;

  return [
    { path: mcpPath, before: mcpBefore, after: mcpAfter },
    { path: settingsPath, before: settingsBefore, after: settingsAfter },
  ].filter((c) => c.before !== c.after);
}

/** Codex: `config.toml` (in CODEX_HOME) gets an `[mcp_servers.retained]` table, unless it has one. */
export function codexChanges(
  configPath: string,
  launcher: Launcher,
  read: (path: string) => string | undefined,
): FileChange[] {
  const before = read(configPath);
  if (before !== undefined && new RegExp(`^\\s*\\[mcp_servers\\.${MCP_SERVER}\\]\\s*$`, 'm').test(before)) return [];
  const toml = (s: string) => JSON.stringify(s); // a TOML basic string is a JSON string
  const lines = [
    `[mcp_servers.${MCP_SERVER}]`,
    `command = ${toml(launcher.node)}`,
    `args = [${[launcher.cli, 'mcp'].map(toml).join(', ')}]`,
  ];
  if (launcher.env)
    lines.push(
      `env = { ${Object.entries(launcher.env)
        .map(([k, v]) => `${k} = ${toml(v)}`)
        .join(', ')} }`,
    );
  const prefix = before === undefined || before === '' ? '' : before.endsWith('\n') ? `${before}\n` : `${before}\n\n`;
  return [{ path: configPath, before, after: `${prefix}${lines.join('\n')}\n` }];
}
