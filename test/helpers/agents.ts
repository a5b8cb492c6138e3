/**
 * The real agents the agent tests drive: where scripts/setup-agents.sh installed them (it
 * installs what is missing, into a cache outside the clone), and a run of one as a process with
 * an environment of the test's own, so nothing of the machine's leaks in or out.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { setupScript } from './setupScript';

/** A file of an installed agent, by its path in the cache; installs the agents when missing. */
export function agentFile(path: string): string {
  const file = resolve(setupScript('setup-agents.sh'), path);
  if (!existsSync(file)) throw new Error(`no agent at ${file}: scripts/setup-agents.sh did not install it`);
  return file;
}

export interface AgentRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `command args` in `cwd` with `env` (and a PATH) and stdin closed; killed after `timeoutMs`. */
export function runAgent(
  command: string,
  args: string[],
  { cwd, env, timeoutMs = 240_000 }: { cwd: string; env: Record<string, string>; timeoutMs?: number },
): Promise<AgentRun> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, {
      cwd,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

/** The files under `dir` (by path inside it) whose text names `text`: what an uninstall left behind. */
export function filesNaming(dir: string, text: string): string[] {
  const found: string[] = [];
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      const stat = statSync(path);
      if (stat.isDirectory()) walk(path);
      else if (name.includes(text) || (stat.size < 8 << 20 && readFileSync(path, 'utf8').includes(text)))
        found.push(relative(dir, path));
    }
  };
  if (existsSync(dir)) walk(dir);
  return found;
}
