/**
 * The command line as its npm users get it: `npm run pack:cli`'s package published to a real
 * npm registry (Verdaccio 6.8, installed by scripts/setup-agents.sh) on loopback, installed
 * globally into a clean home and prefix, `retained setup claude-code` run from there, and a real
 * Claude Code session whose big Bash output becomes the stub through that installed command.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { packCli } from '../../scripts/packCli';
import { VERSION } from '../../shared/version';
import { agentFile } from '../helpers/agents';
import { runClaude } from '../helpers/claudeCode';
import { freePort } from '../helpers/freePort';
import { ScriptedModel } from '../helpers/scriptedModel';
import { removeTempDirs, tempDir } from '../helpers/tmp';

type Block = { type: string; tool_use_id?: string; content?: unknown };

const COMMAND = 'seq 1 80000; echo "error: linker failed at step 80001"; seq 80002 160000';

describe('the npm package of the command line', function () {
  this.timeout(600_000);
  let registry: ChildProcess | undefined;
  let url: string;
  let root: string;
  after(async () => {
    registry?.kill();
    removeTempDirs();
  });

  before(async () => {
    root = tempDir();
    const port = await freePort();
    url = `http://127.0.0.1:${port}/`;
    const config = join(root, 'verdaccio.yaml');
    writeFileSync(
      config,
      [
        `storage: ${join(root, 'storage')}`,
        'auth:',
        `  htpasswd: { file: ${join(root, 'htpasswd')}, max_users: 10 }`,
        'uplinks: {}',
        "packages: { '**': { access: $all, publish: $authenticated } }",
        'log: { type: stdout, format: pretty, level: warn }',
      ].join('\n'),
    );
    const verdaccio = agentFile('verdaccio-6.8.0/node_modules/verdaccio/bin/verdaccio');
    registry = spawn(process.execPath, [verdaccio, '--config', config, '--listen', `127.0.0.1:${port}`], {
      stdio: 'ignore',
    });
    for (let i = 0; ; i++) {
      const up = await fetch(`${url}-/ping`).then(
        (r) => r.ok,
        () => false,
      );
      if (up) break;
      if (i > 300) throw new Error('Verdaccio did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
  });

  it('publishes to a registry, installs on a clean home and PATH, and a real Claude Code gets the stub from the installed command', async () => {
    const tarball = packCli();
    // A publisher's account on the registry, and its token in an npmrc of its own.
    const added = await fetch(`${url}-/user/org.couchdb.user:ci`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'ci', password: 'ci-password-1', type: 'user' }),
    });
    const reply = await added.text();
    assert.ok(added.ok, reply);
    const { token } = JSON.parse(reply) as { token: string };
    const npmrc = join(root, 'npmrc');
    writeFileSync(npmrc, `registry=${url}\n//${new URL(url).host}/:_authToken=${token}\n`);
    const npm = (args: string[], env: Record<string, string> = {}) =>
      execFileSync(
        'npm',
        [...args, '--userconfig', npmrc, '--cache', join(root, 'npm-cache'), '--no-audit', '--no-fund'],
        {
          cwd: root,
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...process.env, ...env },
        },
      );
    npm(['publish', tarball]);
    // A new user: a clean home, the package from the registry, its bin first on a PATH with only node and the system.
    const home = join(root, 'home');
    const prefix = join(root, 'prefix');
    mkdirSync(home, { recursive: true });
    npm(['install', '--global', '--prefix', prefix, 'retained-outputs'], { HOME: home });
    const PATH = [join(prefix, 'bin'), dirname(process.execPath), '/usr/bin', '/bin'].join(':');
    const retained = (args: string[], cwd: string) =>
      execFileSync('retained', args, { cwd, encoding: 'utf8', env: { PATH, HOME: home } });
    assert.equal(retained(['--version'], root).trim(), VERSION);
    const installed = join(prefix, 'lib', 'node_modules', 'retained-outputs', 'cli.js');
    assert.equal(
      JSON.parse(readFileSync(join(prefix, 'lib/node_modules/retained-outputs/package.json'), 'utf8')).version,
      VERSION,
    );

    const project = join(root, 'project');
    mkdirSync(project);
    retained(['setup', 'claude-code', '--yes'], project);
    const mcp = JSON.parse(readFileSync(join(project, '.mcp.json'), 'utf8'));
    assert.deepEqual(mcp.mcpServers.retained.args, [installed, 'mcp'], 'setup names the installed command');
    assert.match(
      readFileSync(join(project, '.claude', 'settings.json'), 'utf8'),
      new RegExp(installed.replace(/[/.]/g, '\\$&')),
    );

    const model = new ScriptedModel([
      {
        prompt: 'Build it',
        reply: [
          { type: 'tool_use', id: 'toolu_build', name: 'Bash', input: { command: COMMAND, description: 'Build' } },
        ],
      },
      { after: 'toolu_build', reply: [{ type: 'text', text: 'Built.' }] },
    ]);
    const modelUrl = await model.start();
    try {
      const result = await runClaude({
        home,
        cwd: project,
        modelUrl,
        prompt: 'Build it.',
        allowedTools: ['Bash'],
        env: { PATH },
      });
      assert.equal(result.code, 0, result.stderr);
      const sent = model.requests
        .flatMap((r) => (r.body as { messages?: { content: string | Block[] }[] }).messages ?? [])
        .flatMap((m) => (typeof m.content === 'string' ? [] : m.content))
        .find((b) => b.type === 'tool_result' && b.tool_use_id === 'toolu_build');
      const text = JSON.stringify(sent?.content ?? '');
      assert.match(text, /\[retained #/, 'the stub, from the installed command');
      assert.match(text, /Landmarks: error at line 80001/, `the error line named: ${text}`);
      assert.ok(text.length < 3000, `${text.length} characters`);
    } finally {
      await model.stop();
    }
    // The value is where that command keeps it, and it reads it back whole.
    assert.match(retained(['ls'], project), /1 values/);
  });
});
