/**
 * `retained hook opencode`: what OpenCode's plugin (opencodeSetup.ts `opencodePlugin`) hands over
 * from `tool.execute.after` of the bash tool, after the command ran as OpenCode runs it (its
 * shell, its permission rules judging the command as the model wrote it: nothing is rewritten).
 *
 * Past 50 KB or 2,000 lines OpenCode keeps only the output's tail for the model, and writes the
 * whole output to a file in its data folder (`tool-output/tool_…`), which it names in that text.
 * The hook streams that file into a value of the session's run (the call is OpenCode's call id)
 * and answers the stub, with OpenCode's own closing notes (`<shell_metadata>`: a timeout, an
 * abort) after it. An output OpenCode gave whole is retained when over the threshold. OpenCode
 * never tells the model a command's exit code; the stub says it.
 *
 * It never breaks the agent: on any failure it prints nothing, and the plugin leaves the result.
 */
import { constants } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import * as z from 'zod';
import { AGENTS, MCP_SERVER } from '../../../shared/agents';
import { check } from '../../../shared/check';
import type { Exit } from '../../../shared/events';
import { ID_MAX, PATH_MAX } from '../../../shared/ids';
import { isHandedIndex, retainedIndex } from '../../../shared/stubText';
import { fileChunks } from '../core/retain/fileSource';
import type { RetentionService } from '../core/service';
import { utf8Bytes } from '../core/text/bytes';
import type { HookAnswer } from './hook';

/** What the plugin sends: OpenCode's own fields for the call, as it has them. */
const OpencodeHookInput = z.strictObject({
  session_id: z.string().min(1).max(ID_MAX),
  call_id: z.string().min(1).max(ID_MAX),
  command: z.string().optional(),
  /** OpenCode's `metadata.exit`: the exit code, or null when it ended the command (timeout, abort). */
  exit: z.number().int().nullable().optional(),
  /** OpenCode's `metadata.outputPath`: the file holding the whole output, when it cut it. */
  output_path: z.string().min(1).max(PATH_MAX).optional(),
  /** The text OpenCode made for the model. */
  output: z.string(),
});

/** What the plugin sends when a request after a compaction is made: the compaction's message. */
const OpencodeCompacted = z.strictObject({
  hook_event_name: z.literal('compacted'),
  session_id: z.string().min(1).max(ID_MAX),
  compaction_id: z.string().min(1).max(ID_MAX),
  auto: z.boolean().optional(),
});

const isCompacted = (raw: unknown) =>
  typeof raw === 'object' && raw !== null && (raw as Record<string, unknown>).hook_event_name === 'compacted';

/**
 * The index of what was retained before a compaction, for the plugin to add to the compaction's
 * message in every request after it (OpenCode sends that message, then its summary). Recorded once
 * per compaction, under OpenCode's id of it: asked again (each request, a new process, a resumed
 * session), the same text. No value retained: an empty index.
 */
async function compacted(service: RetentionService, raw: unknown): Promise<{ index: string }> {
  const input = check(OpencodeCompacted, raw, 'the hook input');
  const runId = input.session_id;
  if (!(await service.store.runExists(runId))) return { index: '' };
  const { events } = await service.transcript({ runId });
  const at = events.findIndex((e) => e.type === 'compaction' && e.ref === input.compaction_id);
  if (at >= 0) {
    const handed = events.slice(at + 1).find((e) => e.type === 'compaction' || isHandedIndex(e));
    return { index: handed?.type === 'user' ? handed.text : '' };
  }
  const index = retainedIndex(
    await service.values.indexed(runId),
    runId,
    AGENTS.opencode.peekTool,
    `${MCP_SERVER}_list_retained`,
  );
  const reason = input.auto === undefined ? {} : { reason: input.auto ? ('auto' as const) : ('manual' as const) };
  await service.retainer.append({ runId, event: { type: 'compaction', ref: input.compaction_id, ...reason } });
  if (index) await service.retainer.append({ runId, event: { type: 'user', text: index, injected: true } });
  return { index };
}

/** OpenCode's notes after the output: how its shell tool ended the command. */
const METADATA = /\n\n<shell_metadata>\n[\s\S]*\n<\/shell_metadata>$/;
/** The start OpenCode gives a cut output. */
const CUT = '...output truncated...\n\nFull output saved to: ';
/** How far from the hook's call a saved file may have been written. */
const SAVED_WITHIN_MS = 10 * 60_000;

/** OpenCode's data folder, where it keeps the outputs it cut. */
function opencodeData(): string {
  return join(process.env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'opencode');
}

/**
 * The file holding the whole output, when it is one OpenCode wrote for this call: named at the
 * start of the text it made, in its `tool-output` folder under its own naming, a regular file
 * (a link is not followed) of this user, written about now.
 */
async function savedOutput(path: string | undefined, text: string): Promise<string | undefined> {
  if (!path || !text.startsWith(`${CUT}${path}\n\n`)) return undefined;
  const file = resolve(path);
  if (dirname(file) !== join(opencodeData(), 'tool-output') || !/^tool_[\w-]{1,200}$/.test(basename(file)))
    return undefined;
  const stat = await lstat(file).catch(() => undefined);
  if (!stat?.isFile()) return undefined;
  if (process.getuid && stat.uid !== process.getuid()) return undefined;
  if (Math.abs(stat.mtimeMs - Date.now()) > SAVED_WITHIN_MS) return undefined;
  return file;
}

/** How long the hook waits for OpenCode to finish writing the file it saved an output to. */
const WRITTEN_WITHIN_MS = 10_000;

/**
 * The saved file once OpenCode has written all of it: OpenCode appends to it through a stream that
 * may not be flushed when the tool returns, so the file must end with the tail OpenCode showed the
 * model. Undefined if it never does (the result is then left as OpenCode made it).
 */
async function written(file: string, tail: string): Promise<string | undefined> {
  const end = tail.trimEnd().slice(-1000);
  const deadline = Date.now() + WRITTEN_WITHIN_MS;
  for (;;) {
    const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const { size } = await handle.stat();
      const length = Math.min(size, Buffer.byteLength(end) + 4096);
      const buffer = Buffer.alloc(length);
      await handle.read(buffer, 0, length, size - length);
      if (buffer.toString('utf8').trimEnd().endsWith(end)) return file;
    } finally {
      await handle.close();
    }
    if (Date.now() > deadline) return undefined;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** `retained hook opencode` (its plugin's): a big bash output's stub, or the index after a compaction. */
export const opencodeHook: HookAnswer = async (service, raw) =>
  isCompacted(raw)
    ? compacted(service, raw)
    : toolAnswer(service, raw).then((output) => (output === undefined ? undefined : { output }));

/** The stub text for the model, or undefined to leave OpenCode's result as it is. */
async function toolAnswer(service: RetentionService, raw: unknown): Promise<string | undefined> {
  const input = check(OpencodeHookInput, raw, 'the hook input');
  const notes = METADATA.exec(input.output)?.[0] ?? '';
  const text = input.output.slice(0, input.output.length - notes.length);
  // OpenCode ends a command it gives up on with SIGTERM to its group (then SIGKILL); it says why in its notes.
  const exit: Exit =
    typeof input.exit === 'number'
      ? { code: input.exit }
      : { signal: 'SIGTERM', ...(notes.includes('exceeding timeout') ? { timedOut: true as const } : {}) };
  const saved = await savedOutput(input.output_path, text);
  const file = saved && (await written(saved, text.slice(CUT.length + (input.output_path?.length ?? 0) + 2)));
  const small = !file && utf8Bytes(text) <= service.getSettings().thresholdBytes;
  if (small && !service.withholder.guard()?.find(text)) return undefined;
  const call = {
    runId: input.session_id,
    callId: input.call_id,
    tool: 'bash',
    ...(input.command !== undefined ? { arguments: { command: input.command } } : {}),
    exit,
  };
  const isError = !('code' in exit) || exit.code !== 0;
  const door = { peekTool: AGENTS.opencode.peekTool };
  const result = file
    ? await service.retainer.retainStream(call, fileChunks(file), () => ({ isError }), door)
    : await service.retainer.retain({ ...call, text, isError }, door);
  if (!result.retained && !result.withheld) return undefined;
  return `${result.content}${notes}`;
}
