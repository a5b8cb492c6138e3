/** Claude Code's setup, for a project: its MCP server, its hooks, and the shell prefix its Bash tool runs commands through. */
import { MCP_SERVER } from '../../../shared/agents';
import { commandLine, type Launcher, shellQuote } from '../../../shared/launcher';
import type { FileChange } from '../../../shared/setupAnswer';
import { STORE_DIR } from '../../../shared/storeDir';
import {
  edit,
  editedFile,
  finish,
  type HookEntry,
  ownFile,
  parseObject,
  type Read,
  serverOf,
  withHook,
  withServer,
} from './setupEdits';

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
export function claudeCodeSetup(project: string, launcher: Launcher, read: Read, remove: boolean): FileChange[] {
  const mcpPath = `${project}/.mcp.json`;
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
    editedFile(mcpPath, read, remove, [['mcpServers']], (text) =>
      withServer(text, mcpPath, remove ? undefined : serverOf(launcher)),
    ),
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
