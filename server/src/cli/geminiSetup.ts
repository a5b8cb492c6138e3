/** Gemini CLI's setup: its MCP server and hooks in its settings (and the hooks its extension ships). */
import { GEMINI_SHELL_TOOL } from '../../../shared/agents';
import { commandLine, type Launcher } from '../../../shared/launcher';
import type { FileChange } from '../../../shared/setupAnswer';
import { type HookEntry, type Read, serverAndHooks } from './setupEdits';

/** Gemini CLI's hooks, by event: what setup merges into its settings and its extension ships. */
export function geminiHooks(launcher: Launcher): Record<'BeforeTool' | 'AfterTool', HookEntry> {
  const hook: HookEntry = {
    matcher: `^${GEMINI_SHELL_TOOL}$`,
    hooks: [{ type: 'command', name: 'retained', command: commandLine(launcher, ['hook', 'gemini']), timeout: 30_000 }],
  };
  return { BeforeTool: hook, AfterTool: hook };
}

/**
 * Gemini CLI, for the user: `settings.json` in its home gets the MCP server, and BeforeTool and
 * AfterTool hooks on the shell tool (`retained hook gemini`: a command rewritten to run through
 * `retained run` where Gemini CLI's rules allow it whatever it is, else its big output retained after).
 */
export function geminiSetup(home: string, launcher: Launcher, read: Read, remove: boolean): FileChange[] {
  return [
    serverAndHooks(`${home}/settings.json`, read, launcher, remove, geminiHooks(launcher), /\bhook gemini(\s|$)/),
  ];
}
