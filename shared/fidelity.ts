/**
 * What "as the agent sent it" covers, said once: for each agent whose session files an import
 * reads, the parts of a request its files do not record. A rebuilt request holds everything
 * else, exactly; the inspector, docs/protocol.md and the tests that compare rebuilt requests with the
 * bodies the real agents sent all read this list.
 */
import type { ImportFormat } from './agents';

export const NOT_IN_SESSION_FILES: Record<ImportFormat, readonly string[]> = {
  'claude-code': [
    'the first system block, `x-anthropic-billing-header: cc_version=…`, a value Claude Code makes for each request',
    '`metadata.user_id`: it holds the device id (the session id in it is known)',
    '`stream` (Claude Code streams every model call)',
    '`safeguards`: the context of its permission checks, sent in a permission mode or with a permission prompt tool (plan mode)',
    'HTTP headers other than `anthropic-beta` (its betas are recorded)',
    'whether a message of one text block went as a string or as a list (the same to the API)',
    "requests the file keeps no record of: a compaction's own summary request, titles and other side calls",
  ],
  codex: [
    "the first input item, Codex's base instructions: the rollout keeps them as written, before Codex takes out its planning passages",
    'the tool definitions (`tools`): a rollout records only those loaded through tool_search',
    '`reasoning`, `text`, `include`, `store`, `stream`, `tool_choice`, `parallel_tool_calls` (from the model catalog and constants, not the rollout)',
    '`client_metadata` beyond the turn ids',
  ],
  'copilot-chat': ['the tool definitions and request options (a chat replay logs messages only)'],
  'copilot-cli': [
    'the system message (its `system.message` event keeps it, but not per request) and the tool definitions',
    'the request options (`temperature`, `top_p`, penalties, `max_tokens`)',
  ],
  cline: [
    'the system prompt as sent, the tool definitions and the request options',
    "each result's text as sent: Cline cuts it to about 8,000 characters on the way (its head, a note, its tail)",
  ],
  'gemini-cli': [
    '`systemInstruction`, the tool definitions and `generationConfig`: a chat records messages only',
    "the thoughts' signatures (`thoughtSignature`), which Gemini CLI sends back in place of the thoughts",
    'how the parts were grouped into contents (Gemini CLI sends its session context and the first prompt as one)',
    "the call ids as sent (the chat's carry the tool's name before them)",
  ],
  'qwen-code': [
    'the system message, the tool definitions and the request options: a chat records messages only',
    'the reminders Qwen Code adds to user messages (`<system-reminder>`: skills, the date)',
    'how a result was cut to fit, beyond the text the model got',
  ],
};
