/**
 * Retained Outputs as an extension of the agents that install extensions from a folder: Gemini
 * CLI (`gemini extensions install <folder>`) and Qwen Code (`qwen extensions install <folder>`).
 * An extension is a folder the agent copies into its home: the manifest, the hooks, and the
 * command line itself beside them, started as `node <the extension's folder>/cli.js`. The hooks
 * and the MCP server are the ones setup writes (geminiHooks, qwenHooks, serverOf): one
 * definition for both ways in.
 */
import { MCP_SERVER } from '../../../shared/agents';
import type { Launcher } from '../../../shared/launcher';
import { geminiHooks } from './geminiSetup';
import { qwenHooks } from './qwenSetup';
import { type HookEntry, serverOf } from './setupEdits';

export const EXTENSION_AGENTS = ['gemini', 'qwen'] as const;
export type ExtensionAgent = (typeof EXTENSION_AGENTS)[number];

/** The extension's name, as each agent lists it and uninstalls it. */
export const EXTENSION_NAME = 'retained-outputs';

/**
 * The command line inside the installed extension. The agents put the extension's folder in
 * place of `${extensionPath}` (and the separator in place of `${/}`) when they load it.
 */
// biome-ignore lint/suspicious/noTemplateCurlyInString: the agents' own placeholder, filled in when they load the extension.
const INSIDE: Launcher = { node: 'node', cli: '${extensionPath}${/}cli.js' };

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** Hooks by event as the agents' files hold them: each event a list of entries. */
const listed = (hooks: Record<string, HookEntry>) =>
  Object.fromEntries(Object.entries(hooks).map(([event, entry]) => [event, [entry]]));

/** The extension's own files (beside the command line's), by path inside its folder. */
export function extensionFiles(agent: ExtensionAgent, version: string): Record<string, string> {
  const description =
    'Keeps big tool outputs out of the model’s context without losing a byte: a stub, and peek_value to read it';
  const mcpServers = { [MCP_SERVER]: serverOf(INSIDE) };
  if (agent === 'gemini')
    return {
      // Gemini CLI reads an extension's hooks from hooks/hooks.json only.
      'gemini-extension.json': json({ name: EXTENSION_NAME, version, description, mcpServers }),
      'hooks/hooks.json': json({ hooks: listed(geminiHooks(INSIDE)) }),
    };
  // Qwen Code fills in ${extensionPath} in its manifest only (a hooks/ file gets another variable).
  return {
    'qwen-extension.json': json({
      name: EXTENSION_NAME,
      version,
      description,
      mcpServers,
      hooks: listed(qwenHooks(INSIDE)),
    }),
  };
}
