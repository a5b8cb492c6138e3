/**
 * Runs a real Claude Code (installed by scripts/setup-agents.sh) in print mode against a
 * scripted model, with its own HOME so nothing of the machine's leaks in or out.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { agentFile } from './agents';

export const CLAUDE_CODE_VERSION = '2.1.332';

/** The Claude Code binary, installed by scripts/setup-agents.sh when it is missing. */
export function claudeBinary(): string {
  return agentFile(`claude-code-${CLAUDE_CODE_VERSION}/node_modules/@anthropic-ai/claude-code-linux-x64/claude`);
}

export interface ClaudeRun {
  home: string;
  cwd: string;
  modelUrl: string;
  prompt: string;
  allowedTools: string[];
  resume?: string;
  /** `--continue`: the newest session of the folder. */
  continue?: boolean;
  settingsFile?: string;
  mcpConfigFile?: string;
  /** More arguments (`--permission-mode plan`) and environment (`CLAUDE_AUTOCOMPACT_PCT_OVERRIDE`). */
  args?: string[];
  env?: Record<string, string>;
  /** Sends SIGINT this long after the output first names this tool_use id (a user's Ctrl-C during it). */
  interrupt?: { onCall: string; afterMs: number };
  /** Gives the prompt on stdin as stream-json user messages (several turns in one process) instead of `-p <prompt>`. */
  turns?: string[];
  timeoutMs?: number;
}

export interface ClaudeResult {
  code: number | null;
  /** The stream-json lines Claude Code printed. */
  events: Record<string, unknown>[];
  stderr: string;
  sessionId: string | undefined;
}

export function runClaude(run: ClaudeRun, binary = claudeBinary()): Promise<ClaudeResult> {
  const args = [
    '-p',
    ...(run.turns ? ['--input-format', 'stream-json'] : [run.prompt]),
    '--output-format',
    'stream-json',
    '--verbose',
    '--allowedTools',
    run.allowedTools.join(','),
    ...(run.args ?? []),
  ];
  if (run.resume) args.push('--resume', run.resume);
  if (run.continue) args.push('--continue');
  if (run.settingsFile) args.push('--settings', run.settingsFile);
  if (run.mcpConfigFile) args.push('--mcp-config', run.mcpConfigFile);
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: run.home,
    ANTHROPIC_BASE_URL: run.modelUrl,
    ANTHROPIC_API_KEY: 'sk-test',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    ...run.env,
  };
  return new Promise((done, fail) => {
    const child = spawn(binary, args, { cwd: run.cwd, env, stdio: [run.turns ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
    if (run.turns) {
      for (const text of run.turns)
        child.stdin!.write(`${JSON.stringify({ type: 'user', message: { role: 'user', content: text } })}\n`);
      child.stdin!.end();
    }
    let stdout = '';
    let stderr = '';
    let interrupting = false;
    child.stdout!.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (run.interrupt && !interrupting && stdout.includes(`"${run.interrupt.onCall}"`)) {
        interrupting = true;
        setTimeout(() => child.kill('SIGINT'), run.interrupt.afterMs);
      }
    });
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), run.timeoutMs ?? 120_000);
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      const events = stdout
        .split('\n')
        .filter((line) => line.trim().startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      const sessionId = events.map((e) => e.session_id).find((id): id is string => typeof id === 'string');
      done({ code, events, stderr, sessionId });
    });
  });
}

/** Where Claude Code keeps a session of `cwd` under `home`: `/` (and `.`) become `-`. */
export function projectDir(home: string, cwd: string): string {
  return resolve(home, '.claude', 'projects', cwd.replace(/[/.]/g, '-'));
}
