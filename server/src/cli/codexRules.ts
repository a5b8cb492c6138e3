/**
 * Whether Codex would run a command without asking, by its own rules, decided before our
 * PreToolUse hook rewrites it: Codex checks its rules and its dangerous-command test only on
 * the command it finally runs, so a rewritten `rm` would no longer match a rule on `rm`. The
 * test is conservative: a command is rewritten only when nothing Codex could decide on is in it.
 *
 * - Approvals: only `permission_mode: bypassPermissions` (approval `never`) runs commands
 *   without asking; under any other mode Codex may ask, and the question would show our rewrite.
 * - Rules (`prefix_rule(pattern=[…], decision=…)` in `rules/*.rules` of `$CODEX_HOME`, of each
 *   `.codex/` from the working folder up, and of `/etc/codex`): a rule of any decision matches a
 *   command that starts with its first word (an `allow` also lifts the sandbox), so a command
 *   holding the first word of any rule, anywhere, is left as it is. A rule whose pattern cannot
 *   be read leaves every command as it is.
 * - The dangerous-command test (a forced `rm`, also under `sudo`): any command with an `rm` word.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Why Codex might not run `command` as it is without asking, or undefined when it would. */
export function codexWouldAsk(
  command: string,
  {
    permissionMode,
    cwd,
    codexHome,
  }: { permissionMode: string | undefined; cwd: string | undefined; codexHome: string },
): string | undefined {
  if (permissionMode !== 'bypassPermissions') return `Codex asks approvals here (${permissionMode ?? 'no mode'})`;
  const words = new Set(wordsOf(command));
  if (words.has('rm')) return 'it holds an rm, which Codex tests for itself';
  for (const file of rulesFiles(codexHome, cwd)) {
    const firsts = firstWords(file.text);
    if (firsts === undefined) return `a rule in ${file.path} could not be read`;
    const hit = firsts.find((word) => words.has(word) || (!/^[\w./+-]+$/.test(word) && command.includes(word)));
    if (hit !== undefined) return `a rule in ${file.path} starts with ${JSON.stringify(hit)}`;
  }
  return undefined;
}

/** The words of a command line, split at anything that is not part of a word (a loose superset). */
function wordsOf(command: string): string[] {
  return command.split(/[^\w./+-]+/).flatMap((word) => [word, word.replace(/^.*\//, '')]);
}

/** The rules files Codex reads for a command run in `cwd`. */
function rulesFiles(codexHome: string, cwd: string | undefined): { path: string; text: string }[] {
  const folders = [join(codexHome, 'rules'), '/etc/codex/rules'];
  for (let dir = cwd; dir; dir = dirname(dir) === dir ? undefined : dirname(dir))
    folders.push(join(dir, '.codex', 'rules'));
  const files: { path: string; text: string }[] = [];
  for (const folder of folders) {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      continue;
    }
    for (const name of names.filter((n) => n.endsWith('.rules')).sort()) {
      const path = join(folder, name);
      try {
        files.push({ path, text: readFileSync(path, 'utf8') });
      } catch {
        files.push({ path, text: 'prefix_rule(' }); // unreadable: as a rule that cannot be read
      }
    }
  }
  return files;
}

const STRING = /"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'/g;

/** The first word of each rule's pattern (each alternative of it), or undefined when one cannot be read. */
export function firstWords(text: string): string[] | undefined {
  const words: string[] = [];
  const rules = text.split(/\bprefix_rule\s*\(/).slice(1);
  for (const rule of rules) {
    const pattern = /\bpattern\s*=\s*\[\s*(\[[^\]]*\]|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')/.exec(rule);
    if (!pattern) return undefined;
    const found = [...pattern[1]!.matchAll(STRING)].map((m) => m[1] ?? m[2] ?? '');
    if (found.length === 0) return undefined;
    words.push(...found.map((w) => w.replace(/^.*\//, '')));
  }
  return words;
}
