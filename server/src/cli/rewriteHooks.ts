/**
 * `dist/rewriteHooks.js`: the hooks that rewrite a shell command before it runs, without the
 * server bundle: Codex's PreToolUse (`retained hook codex`) and Gemini CLI's BeforeTool
 * (`retained hook gemini`). They run before every shell command, and all they do is rewrite it,
 * which needs none of the store: cli.ts loads this file for them, and the bundle only when this
 * one declines (the input unreadable, a reason not to rewrite, which the bundle writes to the
 * store's hook log, or Gemini CLI's AfterTool). The answers are commandHooks.ts's and
 * geminiHook.ts's, as the bundle's are.
 */
import { homedir } from 'node:os';
import { agentHome } from '../../../shared/agents';
import { codexAnswer, selfLauncher } from './commandHooks';
import { geminiBeforeTool } from './geminiHook';
import { findStore } from './store';

/** Answers the hook for `input` (all of stdin); false when the bundle is to answer instead. */
export function answer(agent: 'codex' | 'gemini', input: Buffer): boolean {
  const notes: string[] = [];
  const why = (note: string) => notes.push(note);
  let out: { answer: unknown } | undefined;
  try {
    const raw = JSON.parse(input.toString('utf8')) as unknown;
    const store = findStore(process.cwd());
    out =
      agent === 'codex'
        ? { answer: codexAnswer(raw, selfLauncher(), store, false, why) }
        : geminiBeforeTool(raw, store, {
            launcher: selfLauncher(),
            guard: false,
            geminiHome: agentHome('gemini', homedir(), process.env),
            why,
          });
  } catch {
    return false;
  }
  if (!out || notes.length > 0) return false;
  if (out.answer !== undefined) process.stdout.write(`${JSON.stringify(out.answer)}\n`);
  return true;
}
