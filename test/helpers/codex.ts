/**
 * Runs a real Codex CLI (installed by scripts/setup-agents.sh) with `codex exec` against a
 * scripted Responses endpoint, with its own CODEX_HOME so nothing of the machine's leaks in or out.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { agentFile } from './agents';

export const CODEX_VERSION = '0.171.0';

export function codexScript(): string {
  return agentFile(`codex-${CODEX_VERSION}/node_modules/@openai/codex/bin/codex.js`);
}

export interface CodexRun {
  codexHome: string;
  cwd: string;
  modelUrl: string;
  prompt: string;
  /** `[mcp_servers.<name>]` tables: a command and its arguments. */
  mcpServers?: Record<string, { command: string; args: string[] }>;
  /** `codex exec resume --last`: the newest session goes on. */
  resume?: boolean;
  /** Set up as `retained setup codex` sets it up: its block appended to the config (MCP server, hook, trust). */
  setup?: (configPath: string, before: string) => string;
  /** More files of CODEX_HOME (its `rules/`), by path inside it. */
  files?: Record<string, string>;
}

export function runCodex(
  run: CodexRun,
  script = codexScript(),
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  mkdirSync(run.codexHome, { recursive: true });
  const toml = (s: string) => JSON.stringify(s);
  const lines = [
    'model = "gpt-5-codex"',
    'model_provider = "mock"',
    '[model_providers.mock]',
    'name = "mock"',
    `base_url = ${toml(run.modelUrl)}`,
    'wire_api = "responses"',
    'env_key = "OPENAI_API_KEY"',
  ];
  for (const [name, server] of Object.entries(run.mcpServers ?? {}))
    lines.push(
      `[mcp_servers.${name}]`,
      `command = ${toml(server.command)}`,
      `args = [${server.args.map(toml).join(', ')}]`,
      // Codex gives a server 10 s to list its tools; on a loaded machine a late list leaves the tool out of the request.
      'startup_timeout_sec = 60',
    );
  for (const [path, text] of Object.entries(run.files ?? {})) {
    mkdirSync(dirname(join(run.codexHome, path)), { recursive: true });
    writeFileSync(join(run.codexHome, path), text);
  }
  const configPath = join(run.codexHome, 'config.toml');
  const base = `${lines.join('\n')}\n`;
  writeFileSync(configPath, run.setup ? run.setup(configPath, base) : base);
  return new Promise((done, fail) => {
    // stdin closed: `codex exec` reads more input from a stdin that is open.
    const child = spawn(
      process.execPath,
      [
        script,
        'exec',
        '--skip-git-repo-check',
        '--dangerously-bypass-approvals-and-sandbox',
        ...(run.resume ? ['resume', '--last'] : []),
        run.prompt,
      ],
      {
        cwd: run.cwd,
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: run.codexHome,
          CODEX_HOME: run.codexHome,
          OPENAI_API_KEY: 'sk-test',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}
