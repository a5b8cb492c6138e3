/** Cline's setup: its MCP server, and the plugin that runs its commands through `retained run`. */
import type { Launcher } from '../../../shared/launcher';
import { REWRITE_MAX_BYTES, REWRITE_TAG, rewrite } from '../../../shared/rewrite';
import type { FileChange } from '../../../shared/setupAnswer';
import { STORE_DIR } from '../../../shared/storeDir';
import { editedFile, ownFile, type Read, serverOf, withServer } from './setupEdits';

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
export function clineSetup(home: string, launcher: Launcher, read: Read, remove: boolean): FileChange[] {
  const mcpPath = `${home}/data/settings/cline_mcp_settings.json`;
  const server = { ...serverOf(launcher), disabled: false };
  return [
    editedFile(mcpPath, read, remove, [['mcpServers']], (text) =>
      withServer(text, mcpPath, remove ? undefined : server),
    ),
    ownFile(
      `${home}/plugins/retained-outputs.js`,
      read,
      (t) => t.startsWith(CLINE_PLUGIN_MARK),
      remove,
      () => clinePlugin(launcher),
    ),
  ];
}
