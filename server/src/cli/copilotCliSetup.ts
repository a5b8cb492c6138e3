/** GitHub Copilot CLI's setup: its MCP server, and a hooks file of setup's own. */
import { commandLine, type Launcher } from '../../../shared/launcher';
import type { FileChange } from '../../../shared/setupAnswer';
import { editedFile, ownFile, type Read, serverOf, withServer } from './setupEdits';

/**
 * GitHub Copilot CLI, for the user: `mcp-config.json` in its home gets the MCP server, and
 * `hooks/retained-outputs.json` (a file of its own, which removal deletes) a postToolUse hook
 * (`retained hook copilot-cli`: the output Copilot CLI saved retained, the model gets the stub).
 */
export function copilotCliSetup(home: string, launcher: Launcher, read: Read, remove: boolean): FileChange[] {
  const mcpPath = `${home}/mcp-config.json`;
  const server = { type: 'local', ...serverOf(launcher), tools: ['*'] };
  const command = commandLine(launcher, ['hook', 'copilot-cli']);
  const hook = { version: 1, hooks: { postToolUse: [{ type: 'command', bash: command, timeoutSec: 60 }] } };
  return [
    editedFile(mcpPath, read, remove, [['mcpServers']], (text) =>
      withServer(text, mcpPath, remove ? undefined : server),
    ),
    ownFile(
      `${home}/hooks/retained-outputs.json`,
      read,
      (t) => /\bhook copilot(-cli)?(\s|")/.test(t),
      remove,
      () => `${JSON.stringify(hook, null, 2)}\n`,
    ),
  ];
}
