/**
 * `retained hook qwen`: a Qwen Code `PostToolUse` hook on its shell tool. Qwen Code hands the hook
 * the whole output (`tool_response.returnDisplay`, where the model's copy is cut to its head and
 * tail); over the threshold it is retained under run = the session, call = the tool call, and the
 * hook answers `{"continue": false, "stopReason": <stub>}`, which Qwen Code sends the model as the
 * tool's result in place of its cut (the turn goes on). Under the threshold it prints nothing.
 * It never breaks the agent: on any failure it prints nothing and exits 0.
 */
import * as z from 'zod';
import { GEMINI_SHELL_TOOL } from '../../../shared/agentSetup';
import { AGENTS } from '../../../shared/agents';
import { check } from '../../../shared/check';
import { ID_MAX } from '../../../shared/protocol';
import type { RetentionService } from '../core/service';
import { utf8Bytes } from '../core/text/bytes';

const QwenHookInput = z.looseObject({
  hook_event_name: z.string().max(100),
  session_id: z.string().min(1).max(ID_MAX),
  tool_name: z.string().min(1).max(ID_MAX),
  tool_call_id: z.string().min(1).max(ID_MAX).optional(),
  tool_use_id: z.string().min(1).max(ID_MAX).optional(),
  tool_input: z.unknown().optional(),
  tool_response: z.looseObject({ returnDisplay: z.unknown().optional() }).optional(),
  duration_ms: z.number().min(0).optional(),
});

/** The line Qwen Code adds to a long output, naming the file it saved it to. */
const SAVED_NOTE = /\nOutput too long and was saved to: [^\n]*$/;

export async function qwenAnswer(service: RetentionService, raw: unknown): Promise<unknown> {
  const input = check(QwenHookInput, raw, 'the hook input');
  if (input.hook_event_name !== 'PostToolUse' || input.tool_name !== GEMINI_SHELL_TOOL) return undefined;
  const shown = input.tool_response?.returnDisplay;
  const callId = input.tool_call_id ?? input.tool_use_id;
  if (typeof shown !== 'string' || !callId) return undefined;
  const text = shown.replace(SAVED_NOTE, '');
  const small = utf8Bytes(text) <= service.getSettings().thresholdBytes;
  if (small && !service.withholder.guard()?.find(text)) return undefined;
  const result = await service.retainer.retain(
    {
      runId: input.session_id,
      callId,
      tool: input.tool_name,
      text,
      ...(input.tool_input !== undefined ? { arguments: input.tool_input } : {}),
      ...(input.duration_ms !== undefined ? { durationMs: input.duration_ms } : {}),
    },
    // Qwen Code names MCP tools as Claude Code does.
    { peekTool: AGENTS.qwen.peekTool },
  );
  if (!result.retained && !result.withheld) return undefined;
  return { continue: false, stopReason: result.content };
}
