/**
 * What the command line knows of each agent, one row each: its setup (what `retained setup
 * <agent>` writes in the agent's own files) and its hook (how `retained hook <agent>` answers
 * what those files have the agent send). The agent table (shared/agents.ts) names the agent;
 * its converter (core/import/importer.ts) reads its sessions.
 */
import { homedir } from 'node:os';
import { AGENT_IDS, type AgentId, agentHome } from '../../../shared/agents';
import { check } from '../../../shared/check';
import { claudeCodeAnswer } from './claudeCodeHook';
import { claudeCodeSetup } from './claudeCodeSetup';
import { clineSetup } from './clineSetup';
import { codexSetup } from './codexSetup';
import { codexAnswer, selfLauncher } from './commandHooks';
import { copilotAnswer } from './copilotCliHook';
import { copilotCliSetup } from './copilotCliSetup';
import { geminiAnswer } from './geminiHook';
import { geminiSetup } from './geminiSetup';
import { afterCompaction, type HookAnswer, isSessionStart, SessionStartInput } from './hook';
import { isOpencodeCompacted, opencodeAnswer, opencodeCompacted } from './opencodeHook';
import { opencodeSetup } from './opencodeSetup';
import { qwenAnswer } from './qwenHook';
import { qwenSetup } from './qwenSetup';
import type { Setup } from './setupEdits';

export interface AgentAdapter {
  setup: Setup;
  /** Its `retained hook <agent>`: its input (unchecked JSON) to its answer, or undefined to leave it alone. None: a plugin that runs commands through `retained run`. */
  hook?: HookAnswer;
}

export const ADAPTERS: Readonly<Record<AgentId, AgentAdapter>> = {
  'claude-code': { setup: claudeCodeSetup, hook: claudeCodeAnswer },
  cline: { setup: clineSetup },
  codex: {
    setup: codexSetup,
    hook: (service, raw, { guard, why }) => codexAnswer(raw, selfLauncher(), service.address, guard, why),
  },
  'copilot-cli': { setup: copilotCliSetup, hook: (service, raw) => copilotAnswer(service, raw) },
  gemini: {
    setup: geminiSetup,
    hook: (service, raw, { guard, why }) =>
      geminiAnswer(service, raw, {
        launcher: selfLauncher(),
        guard,
        geminiHome: agentHome('gemini', homedir(), process.env),
        why,
      }),
  },
  opencode: {
    setup: opencodeSetup,
    hook: async (service, raw) =>
      isOpencodeCompacted(raw)
        ? opencodeCompacted(service, raw)
        : opencodeAnswer(service, raw).then((output) => (output === undefined ? undefined : { output })),
  },
  qwen: {
    setup: qwenSetup,
    hook: (service, raw) =>
      isSessionStart(raw)
        ? afterCompaction(service, check(SessionStartInput, raw, 'the hook input'), 'qwen')
        : qwenAnswer(service, raw),
  },
};

/** The agents with a `retained hook <agent>`. */
export const HOOK_AGENTS = AGENT_IDS.filter((id) => ADAPTERS[id].hook);
