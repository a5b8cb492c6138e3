/**
 * What the command line knows of each agent, one row each: its setup (what `retained setup
 * <agent>` writes in the agent's own files) and its hook (how `retained hook <agent>` answers
 * what those files have the agent send). The agent table (shared/agents.ts) names the agent;
 * its converter (core/import/importer.ts) reads its sessions.
 */
import { AGENT_IDS, type AgentId } from '../../../shared/agents';
import { claudeCodeHook } from './claudeCodeHook';
import { claudeCodeSetup } from './claudeCodeSetup';
import { clineSetup } from './clineSetup';
import { codexSetup } from './codexSetup';
import { codexHook } from './commandHooks';
import { copilotCliHook } from './copilotCliHook';
import { copilotCliSetup } from './copilotCliSetup';
import { geminiHook } from './geminiHook';
import { geminiSetup } from './geminiSetup';
import type { HookAnswer } from './hook';
import { opencodeHook } from './opencodeHook';
import { opencodeSetup } from './opencodeSetup';
import { qwenHook } from './qwenHook';
import { qwenSetup } from './qwenSetup';
import type { Setup } from './setupEdits';

export interface AgentAdapter {
  setup: Setup;
  /** Its `retained hook <agent>`: its input (unchecked JSON) to its answer, or undefined to leave it alone. None: a plugin that runs commands through `retained run`. */
  hook?: HookAnswer;
}

export const ADAPTERS: Readonly<Record<AgentId, AgentAdapter>> = {
  'claude-code': { setup: claudeCodeSetup, hook: claudeCodeHook },
  cline: { setup: clineSetup },
  codex: { setup: codexSetup, hook: codexHook },
  'copilot-cli': { setup: copilotCliSetup, hook: copilotCliHook },
  gemini: { setup: geminiSetup, hook: geminiHook },
  opencode: { setup: opencodeSetup, hook: opencodeHook },
  qwen: { setup: qwenSetup, hook: qwenHook },
};

/** The agents with a `retained hook <agent>`. */
export const HOOK_AGENTS = AGENT_IDS.filter((id) => ADAPTERS[id].hook);
