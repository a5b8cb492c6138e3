/** OpenCode's setup: its MCP server, and the plugin that retains a big bash output after it ran. */
import { MCP_SERVER } from '../../../shared/agents';
import type { Launcher } from '../../../shared/launcher';
import { DEFAULT_SETTINGS } from '../../../shared/settings';
import type { FileChange } from '../../../shared/setupAnswer';
import { editedFile, ownFile, type Read, withOurs } from './setupEdits';

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
export function opencodeSetup(dir: string, launcher: Launcher, read: Read, remove: boolean): FileChange[] {
  const configPath = `${dir}/opencode.json`;
  const server = {
    type: 'local',
    command: [launcher.node, launcher.cli, 'mcp'],
    enabled: true,
    ...(launcher.env ? { environment: launcher.env } : {}),
  };
  return [
    editedFile(configPath, read, remove, [['mcp']], (text) =>
      withOurs(text, configPath, ['mcp', MCP_SERVER], remove ? undefined : server),
    ),
    ownFile(
      `${dir}/plugins/retained-outputs.js`,
      read,
      (t) => t.startsWith(PLUGIN_MARK),
      remove,
      () => opencodePlugin(launcher),
    ),
  ];
}
