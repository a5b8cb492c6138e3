/**
 * `retained hook claude-code`: a Claude Code `PostToolUse` hook. Claude Code gives it the tool's
 * result on stdin; when the output is over the threshold (the whole of it: a Bash output Claude
 * Code saved to a file is read from that file, not from its 30,000-character cut), it is
 * retained under run = the session and call = the tool use, and the hook answers the stub in the
 * tool's own output shape, which is what the model then gets. Under the threshold it prints
 * nothing, and Claude Code goes on as if there were no hook. With `--guard`, an output holding a
 * secret (of any size) is withheld: the model gets the notice and where the original is.
 *
 * It must never break the agent: on any failure it prints nothing, exits 0, and says why in
 * the store's `hook.log`.
 */
import { lstat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import * as z from 'zod';
import { AGENTS } from '../../../shared/agents';
import { check } from '../../../shared/check';
import { ID_MAX, PATH_MAX } from '../../../shared/ids';
import { readContent } from '../../../shared/stubText';
import { fileChunks } from '../core/retain/fileSource';
import type { Door } from '../core/retain/retainer';
import type { RetentionService } from '../core/service';
import { utf8Bytes } from '../core/text/bytes';
import { afterCompaction, type HookAnswer, isObject, isSessionStart, log, SessionStartInput } from './hook';

/**
 * What Claude Code sends a PostToolUse hook, checked as every input is; loose, because each
 * release adds fields (cwd, permission_mode, hook_event_name) that the hook has no use for.
 */
const HookInput = z.looseObject({
  session_id: z.string().min(1).max(ID_MAX),
  transcript_path: z.string().max(PATH_MAX).optional(),
  tool_name: z.string().min(1).max(ID_MAX),
  tool_use_id: z.string().min(1).max(ID_MAX),
  tool_input: z.unknown().optional(),
  tool_response: z.unknown().optional(),
  duration_ms: z.number().min(0).optional(),
  /** Set when the call is a subagent's (its session_id is still the main session's). */
  agent_id: z.string().min(1).max(ID_MAX).optional(),
});
type HookInput = z.infer<typeof HookInput>;

/**
 * A tool's output, as text or as the file Claude Code saved it to (streamed, never read whole)
 * followed by `after`, and how to put a replacement back in the tool's own shape.
 */
interface Shaped {
  text?: string;
  file?: string;
  after?: string;
  /** How the stub is shaped for the tool's rendering (a Read is numbered by Claude Code). */
  door?: Omit<Door, 'peekTool'>;
  replace(stub: string): unknown;
}

/** `retained hook claude-code`: a tool's result, or a session restarted by a compaction. */
export const claudeCodeHook: HookAnswer = (service, raw) =>
  isSessionStart(raw)
    ? afterCompaction(service, check(SessionStartInput, raw, 'the hook input'), 'claude-code')
    : hook(service, check(HookInput, raw, 'the hook input'));

/** The hook's answer for one tool result, or undefined to leave it as it is. */
async function hook(service: RetentionService, input: HookInput): Promise<unknown> {
  const { session_id: session, tool_name: tool, tool_use_id: callId } = input;
  const shaped = shapeOf(tool, input.tool_response);
  if (!shaped) return undefined;
  // Claude Code's saved output is read only from its own folder for this session, and only a
  // regular file there: a path elsewhere (or a link) is not followed, and the output it sent is used.
  if (shaped.file) {
    const inside = await savedOutputOf(input.transcript_path, shaped.file);
    if (!inside) {
      await log(
        service,
        `${tool} ${callId}: the saved output ${JSON.stringify(shaped.file)} is not in this session's tool-results folder: not read`,
      );
      return undefined;
    }
    shaped.file = inside;
  }
  const size = shaped.file
    ? (await lstat(shaped.file)).size + utf8Bytes(shaped.after ?? '')
    : utf8Bytes(shaped.text ?? '');
  // Small outputs pass untouched and unrecorded, unless the guard finds a secret in one: that is
  // withheld whatever its size. (An output in a file is over the threshold anyway.)
  const small = size <= service.getSettings().thresholdBytes;
  if (small && !(shaped.text !== undefined && service.withholder.guard()?.find(shaped.text))) return undefined;
  const call = {
    // A subagent's calls go to the run its own transcript (subagents/agent-<id>.jsonl) imports into.
    runId: input.agent_id === undefined ? session : `${session}-agent-${input.agent_id}`,
    callId,
    tool,
    ...(input.tool_input !== undefined ? { arguments: input.tool_input } : {}),
    ...(input.duration_ms !== undefined ? { durationMs: input.duration_ms } : {}),
  };
  const door: Door = { peekTool: AGENTS['claude-code'].peekTool, ...shaped.door };
  const result = shaped.file
    ? await service.retainer.retainStream(call, fileChunks(shaped.file, shaped.after ?? ''), () => ({}), door)
    : await service.retainer.retain({ ...call, text: shaped.text ?? '' }, door);
  if (!result.retained && !result.withheld) {
    if (result.warning) await log(service, `${tool} ${callId}: kept as it was (${result.warning})`);
    return undefined;
  }
  return { hookSpecificOutput: { hookEventName: 'PostToolUse', updatedToolOutput: shaped.replace(result.content) } };
}

/** The output of the tools whose shapes are known; undefined for any other (left alone). */
function shapeOf(tool: string, response: unknown): Shaped | undefined {
  // MCP tools: a list of content blocks; their text is the output (an image is left alone).
  if (Array.isArray(response)) {
    if (!response.every((b) => isObject(b) && b.type === 'text' && typeof b.text === 'string')) return undefined;
    return {
      text: response.map((b) => (b as { text: string }).text).join('\n'),
      replace: (stub) => [{ type: 'text', text: stub }],
    };
  }
  if (!isObject(response)) return undefined;
  switch (tool) {
    case 'Bash': {
      if (typeof response.stdout !== 'string') return undefined;
      const stderr = typeof response.stderr === 'string' && response.stderr !== '' ? `\n${response.stderr}` : '';
      // Past about 50 K characters Claude Code keeps the whole output in a file; stdout is cut.
      const whole =
        typeof response.persistedOutputPath === 'string'
          ? { file: response.persistedOutputPath, after: stderr }
          : { text: response.stdout + stderr };
      return {
        ...whole,
        // The model gets stdout: the stub in its place, no stderr beside it, no file preview.
        replace: (stub) => ({
          ...response,
          stdout: stub,
          stderr: '',
          persistedOutputPath: undefined,
          persistedOutputSize: undefined,
        }),
      };
    }
    case 'Read': {
      // Claude Code numbers what it gets as a file (`N<tab>line` from startLine): the stub is
      // written in that numbering, and given back as the content and start line that make it.
      const file = response.file;
      if (!isObject(file) || typeof file.content !== 'string') return undefined;
      const first =
        Number.isInteger(file.startLine) && (file.startLine as number) >= 1 ? (file.startLine as number) : 1;
      return {
        text: file.content,
        door: { style: 'read', firstLine: first },
        replace: (stub) => {
          const { content, startLine } = readContent(stub);
          return { ...response, file: { ...file, content, startLine, numLines: content.split('\n').length } };
        },
      };
    }
    case 'Grep':
      if (typeof response.content === 'string')
        return { text: response.content, replace: (stub) => ({ ...response, content: stub }) };
      if (Array.isArray(response.filenames) && response.filenames.every((f) => typeof f === 'string')) {
        return { text: response.filenames.join('\n'), replace: (stub) => ({ ...response, filenames: [stub] }) };
      }
      return undefined;
    case 'Glob':
      // The model gets the names joined by newlines: the stub in their place.
      if (!Array.isArray(response.filenames) || !response.filenames.every((f) => typeof f === 'string'))
        return undefined;
      return { text: response.filenames.join('\n'), replace: (stub) => ({ ...response, filenames: [stub] }) };
    case 'WebFetch':
      if (typeof response.result !== 'string') return undefined;
      return { text: response.result, replace: (stub) => ({ ...response, result: stub }) };
    default:
      return undefined;
  }
}

/**
 * The saved output's path when it is a file of this session's own `tool-results/` folder (beside
 * its transcript: `<session>.jsonl` and `<session>/tool-results/`), the folders on the way real
 * ones; else undefined. The file itself is opened later without following a link.
 */
async function savedOutputOf(transcript: unknown, file: string): Promise<string | undefined> {
  if (typeof transcript !== 'string' || !transcript.endsWith('.jsonl') || !isAbsolute(transcript)) return undefined;
  const folder = join(transcript.slice(0, -'.jsonl'.length), 'tool-results');
  if (dirname(resolve(file)) !== folder) return undefined;
  // lstat: a folder that is a link is not this session's folder.
  if (!(await lstat(folder).catch(() => undefined))?.isDirectory()) return undefined;
  const saved = join(folder, basename(file));
  return (await lstat(saved).catch(() => undefined))?.isFile() ? saved : undefined;
}
