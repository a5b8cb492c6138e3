/**
 * What the extension adds for agents outside VS Code, without VS Code: the configuration "Set
 * Up Claude Code / Codex…" writes (merged into what is there, the same on a second run), and
 * finding a workspace's sessions where the agents keep them (real session files).
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readdirSync, utimesSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { claudeCodeChanges, codexChanges, type FileChange } from '../../extension/src/agentConfig';
import { claudeCodeDir, findSessions } from '../../extension/src/sessionFiles';
import { removeTempDirs, tempDir } from '../helpers/tmp';

const launcher = { node: '/usr/bin/node', cli: '/ext/dist/cli.js' };
const files = (changes: FileChange[]) => Object.fromEntries(changes.map((c) => [c.path, c.after]));

describe('agent setup', () => {
  it('Claude Code: the MCP server in .mcp.json and the hook in .claude/settings.json, beside what is there; a second run changes nothing', () => {
    const existing: Record<string, string> = {
      '/w/.mcp.json': JSON.stringify({ mcpServers: { other: { command: 'x' } } }),
      '/w/.claude/settings.json': JSON.stringify({
        model: 'opus',
        hooks: {
          PostToolUse: [
            { matcher: 'Edit', hooks: [{ type: 'command', command: 'fmt' }] },
            { matcher: '*', hooks: [{ type: 'command', command: '/old/node /old/cli.js hook claude-code' }] },
          ],
        },
      }),
    };
    const changes = claudeCodeChanges('/w', launcher, (p) => existing[p]);
    const after = files(changes);
    const mcp = JSON.parse(after['/w/.mcp.json']!);
    assert.deepEqual(mcp.mcpServers, {
      other: { command: 'x' },
      retained: { command: '/usr/bin/node', args: ['/ext/dist/cli.js', 'mcp'] },
    });
    const settings = JSON.parse(after['/w/.claude/settings.json']!);
    assert.equal(settings.model, 'opus');
    assert.deepEqual(settings.hooks.PostToolUse, [
      { matcher: 'Edit', hooks: [{ type: 'command', command: 'fmt' }] },
      { matcher: '*', hooks: [{ type: 'command', command: '/usr/bin/node /ext/dist/cli.js hook claude-code' }] },
    ]);
    assert.deepEqual(settings.enabledMcpjsonServers, ['retained']);
    assert.deepEqual(
      claudeCodeChanges('/w', launcher, (p) => after[p]),
      [],
      'set up already',
    );
  });

  it("Claude Code with the editor's own Node: run as Node through ELECTRON_RUN_AS_NODE, quoted for the shell", () => {
    const editor = { node: "/opt/Code Helper/code's", cli: '/e/cli.js', env: { ELECTRON_RUN_AS_NODE: '1' } };
    const after = files(claudeCodeChanges('/w', editor, () => undefined));
    assert.deepEqual(JSON.parse(after['/w/.mcp.json']!).mcpServers.retained.env, { ELECTRON_RUN_AS_NODE: '1' });
    assert.equal(
      JSON.parse(after['/w/.claude/settings.json']!).hooks.PostToolUse[0].hooks[0].command,
      `ELECTRON_RUN_AS_NODE=1 '/opt/Code Helper/code'\\''s' /e/cli.js hook claude-code`,
    );
  });

  it('Codex: an [mcp_servers.retained] table appended to config.toml, once; a settings file that is not JSON is refused', () => {
    const before = 'model = "gpt-5-codex"\n';
    const [change] = codexChanges('/c/config.toml', { node: 'C:\\node "x"', cli: '/e/cli.js' }, () => before);
    assert.equal(
      change!.after,
      'model = "gpt-5-codex"\n\n[mcp_servers.retained]\ncommand = "C:\\\\node \\"x\\""\nargs = ["/e/cli.js", "mcp"]\n',
    );
    assert.deepEqual(
      codexChanges('/c/config.toml', launcher, () => change!.after),
      [],
    );
    assert.throws(
      () => claudeCodeChanges('/w', launcher, (p) => (p.endsWith('.mcp.json') ? '[1]' : undefined)),
      /\.mcp\.json does not hold a JSON object/,
    );
  });
});

describe('finding agent sessions', () => {
  after(removeTempDirs);
  const FIXTURES = resolve(__dirname, '../fixtures');

  it("lists this workspace's Claude Code sessions and Codex rollouts, newest first, titled by the first prompt", () => {
    const home = tempDir();
    const env = { CLAUDE_CONFIG_DIR: join(home, '.claude'), CODEX_HOME: join(home, '.codex') };
    const workspace = '/home/user/projects/temp/chatbot-ui';
    const claude = claudeCodeDir(workspace, env);
    mkdirSync(claude, { recursive: true });
    const session = readdirSync(join(FIXTURES, 'claude-code/parallel-and-big/project')).find((f) =>
      f.endsWith('.jsonl'),
    )!;
    copyFileSync(join(FIXTURES, 'claude-code/parallel-and-big/project', session), join(claude, session));
    utimesSync(join(claude, session), new Date(2026, 0, 2), new Date(2026, 0, 2));
    const day = join(env.CODEX_HOME, 'sessions/2025/11/17');
    mkdirSync(day, { recursive: true });
    const rollout = 'rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl';
    copyFileSync(join(FIXTURES, 'transcripts', `codex_${rollout}`), join(day, rollout));
    utimesSync(join(day, rollout), new Date(2026, 0, 1), new Date(2026, 0, 1));
    // A rollout of another workspace is not listed.
    copyFileSync(
      join(FIXTURES, 'transcripts/codex_agent-sessions_schema_coverage_small.jsonl'),
      join(day, 'rollout-other.jsonl'),
    );

    const found = findSessions(workspace, env);
    assert.deepEqual(
      found.map((s) => [s.agent, s.title]),
      [
        ['claude-code', 'Scenario parallel-and-big: look around.'],
        ['codex', 'finish up the users work by rigging up the chatbot-ui to use lmstudio instead o…'],
      ],
    );
    assert.deepEqual(findSessions('/another/workspace', env), []);
    // Aged by its last record, not by when the file was copied here.
    const codex = found.find((s) => s.agent === 'codex')!;
    assert.equal(new Date(codex.lastAt).toISOString().slice(0, 10), '2025-11-17');
    assert.notEqual(codex.lastAt, codex.mtimeMs);
  });
});
