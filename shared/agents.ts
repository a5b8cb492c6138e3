/**
 * The agents Retained Outputs knows, named once: their import formats and the names people
 * read. The core, the extension's views and the inspector all say an agent's name from here.
 */
import type { ImportFormat } from './protocol';

export const AGENT_NAMES: Record<ImportFormat, string> = {
  'claude-code': 'Claude Code',
  codex: 'Codex',
  copilot: 'Copilot',
};

/** The name of the agent that wrote a session of this format. */
export function agentName(format: ImportFormat): string {
  return AGENT_NAMES[format];
}
