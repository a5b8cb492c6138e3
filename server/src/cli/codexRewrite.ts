/**
 * `dist/codexRewrite.js`: Codex's PreToolUse hook (`retained hook codex`) without the server
 * bundle. It runs before every shell command Codex runs, and all it does is rewrite one, which
 * needs none of the store: cli.ts loads this file for it, and the bundle only when this one
 * declines (the input unreadable, or a reason not to rewrite, which the bundle writes to the
 * store's hook log). The answer is commandHooks.ts's, as the bundle's is.
 */
import { codexAnswer, selfLauncher } from './commandHooks';
import { findStore } from './store';

/** Answers the hook for `input` (all of stdin); false when the bundle is to answer instead. */
export function answer(input: Buffer): boolean {
  const notes: string[] = [];
  let out: unknown;
  try {
    out = codexAnswer(JSON.parse(input.toString('utf8')), selfLauncher(), findStore(process.cwd()), false, (note) =>
      notes.push(note),
    );
  } catch {
    return false;
  }
  if (notes.length > 0) return false;
  if (out !== undefined) process.stdout.write(`${JSON.stringify(out)}\n`);
  return true;
}
