/**
 * What an import left out beside the conversation, in words for its summary. A record kind is an
 * agent's own name (Claude Code's `atis-latch`, Codex's `event_msg/task_started`): it says nothing
 * to a user, so only kinds with a plain word are named, the rest counted; the log lists them all.
 */
import { formatCount } from './format';

/** Plain words for the record kinds the agents write most, by a kind's whole name or its last part. */
const KIND_WORDS: Record<string, string> = {
  progress: 'progress',
  hook_progress: 'hook progress',
  agent_progress: 'subagent progress',
  'queue-operation': 'queued prompts',
  queued_command: 'queued prompts',
  'file-history-snapshot': 'file snapshots',
  ghost_snapshot: 'file snapshots',
  'cost-state': 'cost records',
  token_usage_record: 'token counts',
  token_count: 'token counts',
  'last-prompt': 'prompt markers',
  mode: 'mode changes',
  plan_mode: 'mode changes',
  plan_mode_exit: 'mode changes',
  'tools-used': 'tool lists',
  hook_success: 'hook results',
  stop_hook_summary: 'hook results',
  'hook.start': 'hook runs',
  'hook.end': 'hook runs',
  web_search_call: 'web searches',
  web_search_end: 'web searches',
  image_generation_call: 'image generations',
  image_generation_end: 'image generations',
  tool_search_call: 'tool searches',
  tool_search_output: 'tool searches',
  agent_reasoning: 'reasoning summaries',
  ui_telemetry: 'telemetry',
  task_started: 'turn markers',
  task_complete: 'turn markers',
  'assistant.turn_end': 'turn markers',
  'session.shutdown': 'session markers',
  'session.resume': 'session markers',
  local_command: 'local commands',
  entered_review_mode: 'review mode changes',
  exited_review_mode: 'review mode changes',
};

/** A kind's plain word, or undefined for a kind that has none. */
export function kindWord(kind: string): string | undefined {
  return KIND_WORDS[kind] ?? KIND_WORDS[kind.slice(kind.lastIndexOf('/') + 1)];
}

/**
 * "12 records beside the conversation were left out (hook progress, queued prompts, cost records
 * and 3 others)", the most frequent words first; undefined when nothing was.
 */
export function leftOutSentence(skipped: Readonly<Record<string, number>>): string | undefined {
  const byWord = new Map<string, number>();
  let total = 0;
  let unnamed = 0;
  for (const [kind, count] of Object.entries(skipped)) {
    if (!(count > 0)) continue;
    total += count;
    const word = kindWord(kind);
    if (word) byWord.set(word, (byWord.get(word) ?? 0) + count);
    else unnamed += count;
  }
  if (total === 0) return undefined;
  const words = [...byWord].sort((a, b) => b[1] - a[1]).map(([word]) => word);
  const shown = words.slice(0, 3);
  const others = unnamed + words.slice(3).reduce((n, word) => n + byWord.get(word)!, 0);
  const list =
    shown.length === 0
      ? `the agent’s own bookkeeping`
      : others > 0
        ? `${shown.join(', ')} and ${formatCount(others, 'other')}`
        : shown.length === 1
          ? shown[0]
          : `${shown.slice(0, -1).join(', ')} and ${shown[shown.length - 1]}`;
  return `${formatCount(total, 'record')} beside the conversation ${total === 1 ? 'was' : 'were'} left out (${list})`;
}
