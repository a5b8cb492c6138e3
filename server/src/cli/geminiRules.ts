/**
 * Whether Gemini CLI would run a shell command without asking, by its own rules, decided before
 * our BeforeTool hook rewrites it: Gemini CLI runs its policy engine on the command the hook
 * hands back, so a rule on `rm` (or `run_shell_command(git)` in tools.allowed) would see our
 * rewrite instead. The test is conservative: a command is rewritten only in YOLO mode (read from
 * the Gemini CLI process that started the hook) and only when no policy file and no tools
 * setting could decide on shell commands. Elsewhere the command runs as it is, and the AfterTool
 * hook keeps its output.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse } from 'jsonc-parser';

/** Why Gemini CLI might decide otherwise on the rewritten command, or undefined when it would run both. */
export function geminiWouldAsk(
  { cwd, geminiHome }: { cwd: string | undefined; geminiHome: string },
  argv: readonly string[] | undefined = geminiArgv(),
): string | undefined {
  if (!argv) return 'no Gemini CLI process found above the hook to read its approval mode from';
  if (approvalMode(argv) !== 'yolo') return `Gemini CLI may ask here (approval mode ${approvalMode(argv)})`;
  if (argv.some((a) => a === '--allowed-tools' || a.startsWith('--allowed-tools=')))
    return 'Gemini CLI was given --allowed-tools';
  const folders = [geminiHome, '/etc/gemini-cli'];
  for (let dir = cwd; dir; dir = dirname(dir) === dir ? undefined : dirname(dir)) folders.push(join(dir, '.gemini'));
  for (const folder of folders) {
    const policies = join(folder, 'policies');
    const toml = list(policies).filter((name) => name.endsWith('.toml'));
    if (toml.length) return `a policy in ${join(policies, toml[0]!)}`;
    const settings = read(join(folder, 'settings.json'));
    const tools = (settings as { tools?: Record<string, unknown> } | undefined)?.tools;
    for (const key of ['allowed', 'core', 'exclude', 'confirmationRequired'])
      if (Array.isArray(tools?.[key]) && (tools[key] as unknown[]).length)
        return `tools.${key} in ${join(folder, 'settings.json')}`;
  }
  return undefined;
}

/** The approval mode Gemini CLI was started in, from its flags. */
function approvalMode(argv: readonly string[]): string {
  let mode = 'default';
  argv.forEach((arg, i) => {
    if (arg === '--yolo' || arg === '-y') mode = 'yolo';
    else if (arg === '--approval-mode') mode = argv[i + 1] ?? mode;
    else if (arg.startsWith('--approval-mode=')) mode = arg.slice('--approval-mode='.length);
  });
  return mode;
}

/** The command line of the Gemini CLI process above this one (its hook runs under a shell it starts). */
function geminiArgv(): string[] | undefined {
  let pid = process.ppid;
  for (let depth = 0; depth < 6 && pid > 1; depth++) {
    const argv = readArgv(pid);
    if (argv?.some((a) => /gemini(\.js)?$|gemini-cli/.test(a))) return argv;
    pid = parentOf(pid) ?? 0;
  }
  return undefined;
}

function readArgv(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return undefined;
  }
}

function parentOf(pid: number): number | undefined {
  try {
    // The fourth field after the command's name, which is in parentheses and may hold spaces.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

function list(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch {
    return [];
  }
}

function read(file: string): unknown {
  try {
    return parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}
