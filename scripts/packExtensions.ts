/**
 * Retained Outputs as an agent extension (`npm run pack:extensions`, after `npm run build`):
 * dist/extensions/<agent>/ for each agent that installs extensions from a folder, holding the
 * command line (as the npm package does) and the manifest and hooks of server/src/cli/agentExtensions.ts.
 * Install one with `gemini extensions install dist/extensions/gemini --consent` or
 * `qwen extensions install dist/extensions/qwen --consent`.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { EXTENSION_AGENTS, type ExtensionAgent, extensionFiles } from '../server/src/cli/agentExtensions';
import { copyCommandLine } from './packCli';
import { ROOT } from './tools';

/** Writes the extension of `agent` into `out` (default dist/extensions/<agent>) and returns the folder. */
export function packExtension(agent: ExtensionAgent, out = join(ROOT, 'dist', 'extensions', agent)): string {
  const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  copyCommandLine(out);
  for (const [path, text] of Object.entries(extensionFiles(agent, version))) {
    mkdirSync(dirname(join(out, path)), { recursive: true });
    writeFileSync(join(out, path), text);
  }
  return out;
}

if (require.main === module) for (const agent of EXTENSION_AGENTS) console.log(packExtension(agent));
