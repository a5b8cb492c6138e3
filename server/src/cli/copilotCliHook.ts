/**
 * `retained hook copilot-cli`: a GitHub Copilot CLI `postToolUse` hook. Past about 20 KB Copilot CLI
 * gives the model a notice with a 500-character preview, and saves the whole output to a file in
 * the temp folder for the session's length; the hook is handed that notice. The hook streams the
 * saved file into a value of the session's run (Copilot CLI names no call: the value gets a
 * fresh id, and its stub names it) and answers `modifiedResult`, which Copilot CLI sends the
 * model in place of the notice. A result it was given whole is retained when over the threshold.
 * Copilot CLI ends a shell result with its own line for how the command ended
 * (`<shellId: 0 completed with exit code 2>`): the stub says the exit too, and that line stays
 * after it, as the model would have seen it. The command is never rewritten, so Copilot CLI's own
 * permission rules see it as it is. It never breaks the agent: on any failure it prints nothing and exits 0.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, resolve } from 'node:path';
import * as z from 'zod';
import { AGENTS } from '../../../shared/agents';
import { check } from '../../../shared/check';
import type { Exit } from '../../../shared/events';
import { ID_MAX } from '../../../shared/ids';
import { fileChunks } from '../core/retain/fileSource';
import type { RetentionService } from '../core/service';
import { utf8Bytes } from '../core/text/bytes';

/** What Copilot CLI sends a postToolUse hook (its own camelCase form); loose, as releases add fields. */
const CopilotHookInput = z.looseObject({
  sessionId: z.string().min(1).max(ID_MAX),
  timestamp: z.number().optional(),
  toolName: z.string().min(1).max(ID_MAX),
  toolArgs: z.unknown().optional(),
  toolResult: z.looseObject({ resultType: z.string().max(100), textResultForLlm: z.string() }),
});

/** Copilot CLI's notice for an output it saved: it opens the result, and names the file. */
const SAVED = /^Output too large to read at once \([^)]{1,40}\)\. Saved to: (\S+)\n/;
/** The names Copilot CLI gives the files it saves outputs to. */
const SAVED_NAME = /^\d+-copilot-tool-output-[\w-]{1,200}\.txt$/;

/** Copilot CLI's last line of a shell result: how the command ended (its own pattern, from the binary). */
const ENDED = /\n\n(<(?:detached command with )?shellId: [^\r\n]{1,200} completed with exit code (-?\d{1,10})>[ \t]*)$/;

/** The result without Copilot CLI's closing line, that line, and the exit it names. */
function endOf(text: string): { body: string; line?: string; exit?: Exit } {
  const ended = ENDED.exec(text.slice(-400));
  if (!ended) return { body: text };
  return { body: text.slice(0, text.length - ended[0].length), line: ended[1]!, exit: { code: Number(ended[2]) } };
}

/** Where Copilot CLI's notice shows the output's start. */
const PREVIEW = '\n\nPreview (first 500 chars):\n';
/** How far from the hook's call a saved file may have been written. */
const SAVED_WITHIN_MS = 10 * 60_000;

/**
 * The saved file a notice names, when it is one Copilot CLI wrote for this call. A command's
 * output opens a small result, so it could print a notice of its own: the file must also be
 * in the temp folder under Copilot CLI's naming, a regular file (a link is not followed) of
 * this user, written about when the call ran, and start with the preview the notice shows.
 */
async function savedOutput(text: string, at: number | undefined): Promise<string | undefined> {
  const path = SAVED.exec(text)?.[1];
  const preview = text.indexOf(PREVIEW);
  if (!path || preview < 0) return undefined;
  const file = resolve(path);
  if (dirname(file) !== resolve(tmpdir()) || !SAVED_NAME.test(basename(file))) return undefined;
  const stat = await lstat(file).catch(() => undefined);
  if (!stat?.isFile()) return undefined;
  if (process.getuid && stat.uid !== process.getuid()) return undefined;
  if (at !== undefined && Math.abs(stat.mtimeMs - at) > SAVED_WITHIN_MS) return undefined;
  const shown = text.slice(preview + PREVIEW.length, preview + PREVIEW.length + 200);
  const head = await readHead(file, Buffer.byteLength(shown));
  const n = Math.min(shown.length, head.length);
  return n > 0 && head.slice(0, n) === shown.slice(0, n) ? file : undefined;
}

async function readHead(file: string, bytes: number): Promise<string> {
  // Never through a link, even one put in its place since it was looked at.
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

export async function copilotCliHook(service: RetentionService, raw: unknown): Promise<unknown> {
  const input = check(CopilotHookInput, raw, 'the hook input');
  const { textResultForLlm: whole, resultType } = input.toolResult;
  if (resultType !== 'success') return undefined;
  const { body: text, line, exit } = endOf(whole);
  const file = await savedOutput(text, input.timestamp);
  const small = !file && utf8Bytes(text) <= service.getSettings().thresholdBytes;
  if (small && !service.withholder.guard()?.find(text)) return undefined;
  const call = {
    runId: input.sessionId,
    // An id of plain characters whatever the tool is called.
    callId: `${input.toolName.replace(/[^\w-]/g, '_').slice(0, 64)}-${input.timestamp ?? Date.now()}-${randomBytes(3).toString('hex')}`,
    tool: input.toolName,
    ...(input.toolArgs !== undefined ? { arguments: input.toolArgs } : {}),
    ...(exit ? { exit } : {}),
  };
  const door = { peekTool: AGENTS['copilot-cli'].peekTool };
  const result = file
    ? await service.retainer.retainStream(call, fileChunks(file), () => ({}), door)
    : await service.retainer.retain({ ...call, text }, door);
  if (!result.retained && !result.withheld) return undefined;
  const content = line === undefined ? result.content : `${result.content}\n\n${line}`;
  return { modifiedResult: { textResultForLlm: content, resultType: 'success' } };
}
