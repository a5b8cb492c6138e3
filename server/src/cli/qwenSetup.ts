/** Qwen Code's setup: its MCP server and hooks in its settings (and the hooks its extension ships). */
import { GEMINI_SHELL_TOOL } from '../../../shared/agents';
import { commandLine, type Launcher } from '../../../shared/launcher';
import type { FileChange } from '../../../shared/setupAnswer';
import { type HookEntry, type Read, serverAndHooks } from './setupEdits';

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
 * Qwen Code, for the user: `settings.json` in its home gets the MCP server and PostToolUse and
 * PostToolUseFailure hooks on the shell tool (`retained hook qwen`: its whole output retained,
 * the model gets the stub; after a failure, beside Qwen Code's own cut), and a SessionStart hook
 * on `compact` and `resume` that hands the model the index of what was retained before a compaction.
 */
export function qwenSetup(home: string, launcher: Launcher, read: Read, remove: boolean): FileChange[] {
  return [serverAndHooks(`${home}/settings.json`, read, launcher, remove, qwenHooks(launcher), /\bhook qwen(\s|$)/)];
}
