/**
 * What the extension adds for agents outside VS Code, without VS Code: the configuration "Set
 * Up Claude Code / Codex…" writes (merged into what is there, the same on a second run), and
 * finding a workspace's sessions where the agents keep them (real session files).
 */
import assert from 'node:assert/strict';
import {
  copyFileSync,
  cpSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'jsonc-parser';
import { claudeCodeDir, findSessions } from '../../extension/src/sessionFiles';
import { claudeScriptCommand } from '../../server/src/cli/claudeCodeSetup';
import { codexAnswer } from '../../server/src/cli/commandHooks';
import { copilotCliHook } from '../../server/src/cli/copilotCliHook';
import { geminiWouldAsk } from '../../server/src/cli/geminiRules';
import { setupChanges } from '../../server/src/cli/setup';
import { RetentionService } from '../../server/src/core/service';
import { sha256Hex } from '../../server/src/core/text/bytes';
import { AGENT_IDS, AGENTS, type AgentId, agentIdOf, IMPORT_FORMATS } from '../../shared/agents';
import { rewrite } from '../../shared/rewrite';
import type { FileChange } from '../../shared/setupAnswer';
import { removeTempDirs, tempDir } from '../helpers/tmp';

const launcher = { node: '/usr/bin/node', cli: '/ext/cli/cli.js' };

describe('agent setup', () => {
  /** Applies changes to a map of files, as `retained setup` writes them. */
  const apply = (files: Record<string, string>, changes: FileChange[]) => {
    const out = { ...files };
    for (const c of changes) {
      if (c.after === undefined) delete out[c.path];
      else out[c.path] = c.after;
    }
    return out;
  };
  const run = (agent: AgentId, files: Record<string, string>, remove = false, with_ = launcher) =>
    setupChanges(agent, { project: '/w', home: '/c' }, with_, (p) => files[p], { remove, sha256: sha256Hex });

  it("the agent table: each import format is one agent's but Copilot Chat's, and a former name means today's agent", () => {
    const owners = IMPORT_FORMATS.map((format) => AGENT_IDS.filter((id) => AGENTS[id].formats.includes(format)));
    assert.deepEqual(
      IMPORT_FORMATS.filter((_, i) => owners[i]!.length !== 1),
      ['copilot-chat'],
      'VS Code Copilot Chat replays are an import format of no agent setup knows',
    );
    assert.equal(agentIdOf('copilot'), 'copilot-cli');
    assert.equal(agentIdOf('codex'), 'codex');
    assert.equal(agentIdOf('toString'), 'toString', 'not a name from the object prototype');
  });

  it('Claude Code: the MCP server in .mcp.json and the hook in .claude/settings.json, beside what is there; a second run changes nothing; --remove gives the files back to the byte', () => {
    const existing: Record<string, string> = {
      '/w/.mcp.json': `${JSON.stringify({ mcpServers: { other: { command: 'x' } } }, null, 2)}\n`,
      '/w/.claude/settings.json': `{
  // the user's own comment stays
  "model": "opus",
  "hooks": {
    "PostToolUse": [
      {
        "matcher": "Edit",
        "hooks": [
          {
            "type": "command",
            "command": "fmt"
          }
        ]
      }
    ]
  }
}
`,
    };
    const after = apply(existing, run('claude-code', existing));
    const mcp = parse(after['/w/.mcp.json']!);
    assert.deepEqual(mcp.mcpServers, {
      other: { command: 'x' },
      retained: { command: '/usr/bin/node', args: ['/ext/cli/cli.js', 'mcp'] },
    });
    const settings = parse(after['/w/.claude/settings.json']!);
    assert.equal(settings.model, 'opus');
    assert.match(after['/w/.claude/settings.json']!, /\/\/ the user's own comment stays/);
    assert.deepEqual(settings.hooks.PostToolUse, [
      { matcher: 'Edit', hooks: [{ type: 'command', command: 'fmt' }] },
      { matcher: '*', hooks: [{ type: 'command', command: '/usr/bin/node /ext/cli/cli.js hook claude-code' }] },
    ]);
    assert.deepEqual(settings.enabledMcpjsonServers, ['retained']);
    assert.deepEqual(run('claude-code', after), [], 'set up already');
    assert.deepEqual(apply(after, run('claude-code', after, true)), existing, 'removed, to the byte');
  });

  it('Claude Code: files it made are removed whole; a hook of an older install path is replaced, not added to', () => {
    const made = apply({}, run('claude-code', {}));
    assert.deepEqual(Object.keys(made).sort(), [
      '/w/.claude/retained-outputs-prefix.sh',
      '/w/.claude/settings.json',
      '/w/.mcp.json',
    ]);
    assert.equal(
      parse(made['/w/.claude/settings.json']!).env.CLAUDE_CODE_SHELL_PREFIX,
      '/w/.claude/retained-outputs-prefix.sh',
    );
    assert.deepEqual(apply(made, run('claude-code', made, true)), {});
    // A shell prefix of the user's own: Claude Code takes one, so setup refuses rather than replace it.
    const theirs = { '/w/.claude/settings.json': '{"env": {"CLAUDE_CODE_SHELL_PREFIX": "/usr/local/bin/audit"}}' };
    assert.throws(() => run('claude-code', theirs), /runs shell commands through "\/usr\/local\/bin\/audit"/);
    const old = apply({}, run('claude-code', {}, false, { node: '/old/node', cli: '/old/cli.js' }));
    const moved = parse(apply(old, run('claude-code', old))['/w/.claude/settings.json']!);
    assert.deepEqual(moved.hooks.PostToolUse, [
      { matcher: '*', hooks: [{ type: 'command', command: '/usr/bin/node /ext/cli/cli.js hook claude-code' }] },
    ]);
  });

  it("Claude Code with the editor's own Node: run as Node through ELECTRON_RUN_AS_NODE, quoted for the shell", () => {
    const editor = { node: "/opt/Code Helper/code's", cli: '/e/cli.js', env: { ELECTRON_RUN_AS_NODE: '1' } };
    const after = apply({}, run('claude-code', {}, false, editor));
    assert.deepEqual(parse(after['/w/.mcp.json']!).mcpServers.retained.env, { ELECTRON_RUN_AS_NODE: '1' });
    assert.equal(
      parse(after['/w/.claude/settings.json']!).hooks.PostToolUse[0].hooks[0].command,
      `ELECTRON_RUN_AS_NODE=1 '/opt/Code Helper/code'\\''s' /e/cli.js hook claude-code`,
    );
    assert.match(
      after['/w/.claude/retained-outputs-prefix.sh']!,
      /\nELECTRON_RUN_AS_NODE=1 exec '\/opt\/Code Helper\/code'\\''s' \/e\/cli\.js run /,
    );
  });

  it('Codex: one marked block in config.toml, once; --remove takes it back out to the byte, whatever the file ended with', () => {
    for (const before of ['model = "gpt-5-codex"\n', 'model = "gpt-5-codex"', '# only a comment\n\n']) {
      const files = { '/c/config.toml': before };
      const after = apply(files, run('codex', files, false, { node: 'C:\\node "x"', cli: '/e/cli.js' }));
      assert.match(
        after['/c/config.toml']!,
        /\[mcp_servers\.retained\]\ncommand = "C:\\\\node \\"x\\""\nargs = \["\/e\/cli\.js", "mcp"\]\n/,
      );
      assert.deepEqual(run('codex', after, false, { node: 'C:\\node "x"', cli: '/e/cli.js' }), [], 'set up already');
      assert.deepEqual(apply(after, run('codex', after, true)), files, JSON.stringify(before));
    }
    const made = apply({}, run('codex', {}));
    assert.deepEqual(apply(made, run('codex', made, true)), {}, 'a file it made goes');
    // What follows the block stays on a line of its own; lines written into the block since stay too.
    const later = apply({ '/c/config.toml': 'a = 1' }, run('codex', { '/c/config.toml': 'a = 1' }));
    later['/c/config.toml'] = `${later['/c/config.toml']}[projects."/x"]\ntrust_level = "trusted"\n`;
    assert.equal(
      apply(later, run('codex', later, true))['/c/config.toml'],
      'a = 1\n[projects."/x"]\ntrust_level = "trusted"\n',
    );
    const inside = {
      '/c/config.toml': made['/c/config.toml']!.replace(
        '# <<< Retained Outputs',
        'model = "mine"\n# <<< Retained Outputs',
      ),
    };
    assert.equal(apply(inside, run('codex', inside, true))['/c/config.toml'], 'model = "mine"\n');
    const byHand = { '/c/config.toml': '[mcp_servers.retained]\ncommand = "mine"\n' };
    assert.throws(() => run('codex', byHand), /has an mcp_servers\.retained that retained setup did not write/);
    assert.deepEqual(run('codex', byHand, true), [], 'a removal leaves it');
  });

  it("Codex: after Codex's own `codex mcp add` rewrote config.toml (its marks dropped or its server moved), --remove still takes out setup's tables and nothing of the user's", () => {
    // config.toml as the real Codex 0.171 left it: `codex mcp add foo -- echo hi` on setup's block.
    const setUp = run('codex', {
      '/c/config.toml': 'model = "gpt-5.5"\n\n[mcp_servers.existing]\ncommand = "foo"\n',
    })[0]!.after!;
    const marksDropped = setUp
      .replace(/# >>> Retained Outputs.*\n/, '')
      .replace(
        '# <<< Retained Outputs\n',
        '\n[mcp_servers.foo]\ncommand = "echo"\nargs = ["hi"]\n# <<< Retained Outputs\n',
      );
    const removed = apply({ '/c/config.toml': marksDropped }, run('codex', { '/c/config.toml': marksDropped }, true));
    assert.equal(
      removed['/c/config.toml'],
      'model = "gpt-5.5"\n\n[mcp_servers.existing]\ncommand = "foo"\n\n[mcp_servers.foo]\ncommand = "echo"\nargs = ["hi"]\n',
    );
    // Its server's env split into a table, and the user's server written inside the marks.
    const exploded =
      'model = "gpt-5.5"\n\n# >>> Retained Outputs (`retained setup codex --remove` takes this block out)\n[[hooks.PreToolUse]]\nmatcher = "^Bash$"\n[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "node /e/cli.js hook codex"\ntimeout = 30\n[hooks.state."/c/config.toml:pre_tool_use:0:0"]\ntrusted_hash = "sha256:00"\n\n[mcp_servers.retained]\ncommand = "node"\nargs = ["/e/cli.js", "mcp"]\n\n[mcp_servers.retained.env]\nELECTRON_RUN_AS_NODE = "1"\n\n[mcp_servers.foo]\ncommand = "echo"\nargs = ["hi"]\n\n[mcp_servers.foo.env]\nK = "V"\n# <<< Retained Outputs\n';
    const out = apply({ '/c/config.toml': exploded }, run('codex', { '/c/config.toml': exploded }, true))[
      '/c/config.toml'
    ]!;
    assert.equal(
      out,
      'model = "gpt-5.5"\n\n[mcp_servers.foo]\ncommand = "echo"\nargs = ["hi"]\n\n[mcp_servers.foo.env]\nK = "V"\n',
    );
  });

  it("Gemini CLI, OpenCode and Qwen Code: the hook or plugin and the MCP server beside the user's settings; --remove gives them back to the byte, and a file it made goes", () => {
    const homes: Partial<Record<AgentId, string>> = { gemini: '/g', opencode: '/o', qwen: '/q' };
    const go = (agent: AgentId, files: Record<string, string>, remove = false) =>
      apply(
        files,
        setupChanges(agent, { home: homes[agent] }, launcher, (p) => files[p], { remove, sha256: sha256Hex }),
      );
    const gemini = {
      '/g/settings.json': `${JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }, null, 2)}\n`,
    };
    const set = go('gemini', gemini);
    const settings = parse(set['/g/settings.json']!);
    assert.equal(settings.security.auth.selectedType, 'gemini-api-key');
    assert.deepEqual(settings.mcpServers.retained, { command: '/usr/bin/node', args: ['/ext/cli/cli.js', 'mcp'] });
    assert.deepEqual(settings.hooks.BeforeTool[0].matcher, '^run_shell_command$');
    assert.equal(settings.hooks.BeforeTool[0].hooks[0].command, '/usr/bin/node /ext/cli/cli.js hook gemini');
    assert.deepEqual(go('gemini', set), set, 'a second run changes nothing');
    assert.deepEqual(go('gemini', set, true), gemini, 'removed, to the byte');

    const opencode = { '/o/opencode.json': `${JSON.stringify({ model: 'x/y' }, null, 2)}\n` };
    const withPlugin = go('opencode', opencode);
    assert.deepEqual(parse(withPlugin['/o/opencode.json']!).mcp.retained, {
      type: 'local',
      command: ['/usr/bin/node', '/ext/cli/cli.js', 'mcp'],
      enabled: true,
    });
    assert.match(withPlugin['/o/plugins/retained-outputs.js']!, /^\/\/ Retained Outputs for OpenCode/);
    assert.match(
      withPlugin['/o/plugins/retained-outputs.js']!,
      /const NODE = "\/usr\/bin\/node";\nconst ARGS = \["\/ext\/cli\/cli\.js","hook","opencode"\];/,
    );
    // Nothing is rewritten before OpenCode's permission rules judge the command: the plugin only acts after.
    assert.doesNotMatch(withPlugin['/o/plugins/retained-outputs.js']!, /tool\.execute\.before/);
    assert.deepEqual(go('opencode', withPlugin, true), opencode, 'the config as it was, the plugin gone');
    assert.throws(
      () => go('opencode', { '/o/plugins/retained-outputs.js': 'mine' }),
      /was not written by retained setup/,
    );

    // The user's own SessionStart hook stays beside ours (on `compact` and `resume` only), and stays after --remove.
    const mine = { matcher: 'startup', hooks: [{ type: 'command', command: 'echo hi' }] };
    const qwen = {
      '/q/settings.json': `${JSON.stringify({ security: { auth: { selectedType: 'openai' } }, hooks: { SessionStart: [mine] } }, null, 2)}\n`,
    };
    const hooked = go('qwen', qwen);
    const qwenSettings = parse(hooked['/q/settings.json']!);
    assert.equal(qwenSettings.hooks.PostToolUse[0].hooks[0].command, '/usr/bin/node /ext/cli/cli.js hook qwen');
    assert.deepEqual(qwenSettings.hooks.SessionStart, [
      mine,
      { matcher: 'compact|resume', hooks: [{ type: 'command', command: '/usr/bin/node /ext/cli/cli.js hook qwen' }] },
    ]);
    assert.deepEqual(go('qwen', hooked, true), qwen);
  });

  it("Cline: the MCP server in its settings beside the user's, a plugin of its own that wraps each command and gives the results back under the commands written; --remove deletes it", async () => {
    const places = { home: '/k' };
    const go = (files: Record<string, string>, remove = false) =>
      apply(
        files,
        setupChanges('cline', places, launcher, (p) => files[p], { remove, sha256: sha256Hex }),
      );
    const mine = {
      '/k/data/settings/cline_mcp_settings.json': `${JSON.stringify({ mcpServers: { mine: { command: 'x' } } }, null, 2)}\n`,
    };
    const set = go(mine);
    assert.deepEqual(parse(set['/k/data/settings/cline_mcp_settings.json']!).mcpServers.retained, {
      command: '/usr/bin/node',
      args: ['/ext/cli/cli.js', 'mcp'],
      disabled: false,
    });
    assert.deepEqual(go(set), set, 'a second run changes nothing');
    assert.deepEqual(go(set, true), mine, 'removed, to the byte, the plugin gone');
    assert.throws(() => go({ '/k/plugins/retained-outputs.js': 'mine' }), /was not written by retained setup/);

    // The plugin itself, loaded as Cline loads it (CommonJS), with a command line that exists.
    const dir = tempDir();
    const cli = join(dir, 'cli.js');
    writeFileSync(cli, '');
    const [, plugin] = setupChanges('cline', places, { node: process.execPath, cli }, () => undefined, {
      sha256: sha256Hex,
    });
    writeFileSync(join(dir, 'plugin.cjs'), plugin!.after!);
    type Hook = (
      ctx: unknown,
    ) => Promise<{ input?: { commands: string[] }; result?: { output: { query: string }[] } } | undefined>;
    const { hooks } = createRequire(__filename)(join(dir, 'plugin.cjs')) as {
      hooks: { beforeTool: Hook; afterTool: Hook };
    };
    const toolCall = { toolName: 'run_commands', toolCallId: 'call_1', input: { commands: ["echo 'a b'", 'ls'] } };
    const before = await hooks.beforeTool({ snapshot: { conversationId: 'conv_1' }, toolCall });
    // The plugin's rewrite is every rewriting agent's (shared/rewrite.ts), the store named.
    const as = (run: string, call: string, command: string) =>
      rewrite(
        { node: process.execPath, cli },
        { store: join(process.cwd(), '.retained'), run, call, tool: 'run_commands' },
        command,
      );
    assert.deepEqual(before?.input?.commands, [as('conv_1', 'call_1-1', "echo 'a b'"), as('conv_1', 'call_1-2', 'ls')]);
    const quoted = await hooks.beforeTool({ snapshot: { conversationId: "it's" }, toolCall });
    assert.equal(quoted?.input?.commands[0], as("it's", 'call_1-1', "echo 'a b'"), 'an id with a quote, quoted');
    assert.equal(
      await hooks.beforeTool({
        snapshot: { conversationId: 'conv_1' },
        toolCall: { ...toolCall, input: before?.input },
      }),
      undefined,
      'never wrapped twice',
    );
    const after = await hooks.afterTool({
      toolCall,
      result: {
        output: [
          { query: before?.input?.commands[0], result: 'a b', success: true },
          { query: 'x', result: '' },
        ],
      },
    });
    assert.deepEqual(
      after?.result?.output.map((r) => r.query),
      ["echo 'a b'", 'ls'],
      'the results under the commands the model wrote',
    );
    assert.equal(await hooks.beforeTool({ snapshot: {}, toolCall }), undefined, 'no conversation, no wrapping');
  });

  it("GitHub Copilot CLI: the MCP server beside the user's, and a hooks file of its own that --remove deletes", () => {
    const places = { home: '/h' };
    const go = (files: Record<string, string>, remove = false) =>
      apply(
        files,
        setupChanges('copilot-cli', places, launcher, (p) => files[p], { remove, sha256: sha256Hex }),
      );
    const mine = {
      '/h/mcp-config.json': `${JSON.stringify({ mcpServers: { mine: { type: 'local', command: 'x' } } }, null, 2)}\n`,
    };
    const set = go(mine);
    assert.deepEqual(parse(set['/h/mcp-config.json']!).mcpServers, {
      mine: { type: 'local', command: 'x' },
      retained: { type: 'local', command: '/usr/bin/node', args: ['/ext/cli/cli.js', 'mcp'], tools: ['*'] },
    });
    assert.deepEqual(JSON.parse(set['/h/hooks/retained-outputs.json']!), {
      version: 1,
      hooks: {
        postToolUse: [{ type: 'command', bash: '/usr/bin/node /ext/cli/cli.js hook copilot-cli', timeoutSec: 60 }],
      },
    });
    assert.deepEqual(go(set), set, 'a second run changes nothing');
    assert.deepEqual(go(set, true), mine, 'removed, to the byte, the hooks file gone');
    assert.throws(() => go({ '/h/hooks/retained-outputs.json': '{}' }), /was not written by retained setup/);
    // A hooks file written when the hook was `retained hook copilot` is setup's own: set up again, it is today's.
    const former = set['/h/hooks/retained-outputs.json']!.replace('hook copilot-cli', 'hook copilot');
    assert.deepEqual(go({ ...set, '/h/hooks/retained-outputs.json': former }), set);
  });

  it('refuses a settings file that is not a JSON object, naming it', () => {
    assert.throws(() => run('claude-code', { '/w/.mcp.json': '[1]' }), /\.mcp\.json does not hold a JSON object/);
    assert.throws(() => run('claude-code', { '/w/.mcp.json': '{"a":' }), /\.mcp\.json is not JSON/);
  });

  it('never takes an MCP server of the user\'s own named "retained": setup refuses naming it, a removal leaves it', () => {
    const mine = { '/w/.mcp.json': `${JSON.stringify({ mcpServers: { retained: { command: 'my-retained' } } })}\n` };
    assert.throws(
      () => run('claude-code', mine),
      /\.mcp\.json has a mcpServers\.retained that retained setup did not write/,
    );
    assert.deepEqual(
      run('claude-code', mine, true).filter((c) => c.path === '/w/.mcp.json'),
      [],
      'a removal leaves it as it is',
    );
    const opencode = {
      '/o/opencode.json': `${JSON.stringify({ mcp: { retained: { type: 'local', command: ['x'] } } })}\n`,
    };
    assert.throws(
      () =>
        setupChanges('opencode', { home: '/o' }, launcher, (p) => opencode[p as keyof typeof opencode], {
          sha256: sha256Hex,
        }),
      /opencode\.json has a mcp\.retained/,
    );
  });
});

describe("Gemini CLI's rules, read before a rewrite", () => {
  after(removeTempDirs);
  const yolo = ['node', '/x/bundle/gemini.js', '--yolo', '-p', 'go'];

  it('rewrites only in YOLO mode with no policy file and no tools setting that could decide on a shell command', () => {
    const home = tempDir();
    const project = tempDir();
    const ask = (argv?: string[], cwd = project) => geminiWouldAsk({ cwd, geminiHome: home }, argv);
    assert.equal(ask(yolo), undefined);
    assert.equal(ask(['node', '/x/gemini.js', '--approval-mode=yolo']), undefined);
    assert.match(ask(['node', '/x/gemini.js', '-p', 'go'])!, /may ask here \(approval mode default\)/);
    assert.match(ask(['node', '/x/gemini.js', '--approval-mode', 'auto_edit'])!, /auto_edit/);
    assert.match(ask(undefined)!, /no Gemini CLI process found/);
    assert.match(ask([...yolo, '--allowed-tools', 'run_shell_command(git)'])!, /--allowed-tools/);
    writeFileSync(join(home, 'settings.json'), '{ "tools": { "exclude": ["run_shell_command(rm)"] } }');
    assert.match(ask(yolo)!, /tools\.exclude in .*settings\.json/);
    rmSync(join(home, 'settings.json'));
    mkdirSync(join(project, '.gemini', 'policies'), { recursive: true });
    writeFileSync(join(project, '.gemini', 'policies', 'p.toml'), '[[rule]]\ntoolName = "run_shell_command"\n');
    assert.match(ask(yolo, join(project, 'deeper'))!, /a policy in .*p\.toml/);
  });
});

describe("Codex's hook", () => {
  const input = (over: Record<string, unknown> = {}) => ({
    hook_event_name: 'PreToolUse',
    session_id: 's1',
    tool_name: 'Bash',
    tool_use_id: 'call_1',
    permission_mode: 'bypassPermissions',
    tool_input: { command: 'make test', workdir: '/w' },
    cwd: '/w',
    ...over,
  });

  it('rewrites a shell command to run through `retained run` for the session and call, the command in a here-document as written, the other fields kept', () => {
    const answer = codexAnswer(input(), launcher, '/w/.retained', false, undefined, tempDir()) as {
      hookSpecificOutput: { permissionDecision: string; updatedInput: { command: string; workdir: string } };
    };
    assert.equal(answer.hookSpecificOutput.permissionDecision, 'allow');
    const { command, workdir } = answer.hookSpecificOutput.updatedInput;
    assert.equal(workdir, '/w');
    assert.match(
      command,
      /^exec \/usr\/bin\/node \/ext\/cli\/cli\.js run --store=\/w\/\.retained --run=s1 --call=call_1 --tool=Bash --quiet --command-fd=3 --shell="\$0" .* 3<<'RETAINED_OUTPUTS_EOF'\nmake test\nRETAINED_OUTPUTS_EOF$/,
    );
    const again = codexAnswer(input({ tool_input: answer.hookSpecificOutput.updatedInput }), launcher, '/s', false);
    assert.equal(again, undefined, 'never rewritten twice');
  });

  it('leaves the command alone where Codex asks approvals (allowing it would approve it), and other tools', () => {
    const said: string[] = [];
    assert.equal(
      codexAnswer(input({ permission_mode: 'default' }), launcher, '/s', false, (w) => said.push(w)),
      undefined,
    );
    assert.match(said[0]!, /not rewritten: Codex asks approvals here \(default\)/);
    assert.equal(codexAnswer(input({ tool_name: 'mcp__x__y' }), launcher, '/s', false), undefined);
    assert.equal(codexAnswer(input({ hook_event_name: 'PostToolUse' }), launcher, '/s', false), undefined);
  });

  it("leaves a command alone that Codex's own rules or its rm test could decide on, so they see it as written", () => {
    const home = tempDir();
    const project = tempDir();
    mkdirSync(join(home, 'rules'));
    writeFileSync(
      join(home, 'rules', 'default.rules'),
      'prefix_rule(pattern=["git", "push"], decision="prompt")\nprefix_rule(pattern=[["curl", "wget"]], decision="forbidden", justification="no network")\n',
    );
    mkdirSync(join(project, '.codex', 'rules'), { recursive: true });
    writeFileSync(
      join(project, '.codex', 'rules', 'project.rules'),
      "prefix_rule(pattern=['docker'], decision='allow')\n",
    );
    const said: string[] = [];
    const answer = (command: string, cwd = '/w') =>
      codexAnswer(input({ tool_input: { command }, cwd }), launcher, '/s', false, (w) => said.push(w), home);
    assert.equal(answer('cd app && git push origin main'), undefined);
    assert.match(said.at(-1)!, /a rule in .*default\.rules starts with "git"/);
    assert.equal(answer('echo x | wget -qO- http://h'), undefined, 'an alternative of the first word');
    assert.equal(answer('/usr/bin/curl http://h'), undefined, 'a path to it');
    assert.equal(
      answer('docker ps', join(project, 'sub')),
      undefined,
      'a rule of a .codex folder above the working folder',
    );
    assert.equal(answer('rm -f build.log && make'), undefined);
    assert.match(said.at(-1)!, /holds an rm/);
    assert.ok(answer('make test'), 'a command no rule names is rewritten');
    assert.ok(answer('docker ps', '/w'), 'a project rule holds only below its project');
    writeFileSync(join(home, 'rules', 'odd.rules'), 'prefix_rule(pattern=PATTERNS, decision="forbidden")\n');
    assert.equal(answer('make test'), undefined, 'a rule that cannot be read: nothing is rewritten');
    assert.match(said.at(-1)!, /could not be read/);
  });

  it('names a wrong field of its input', () => {
    assert.throws(() => codexAnswer(input({ session_id: 3 }), launcher, '/s', false), /the hook input\.session_id/);
  });
});

describe('finding agent sessions', () => {
  after(removeTempDirs);
  const FIXTURES = resolve(__dirname, '../fixtures');

  it("lists this workspace's Claude Code sessions and Codex rollouts, newest first, titled by the first prompt", () => {
    const home = tempDir();
    const env = {
      CLAUDE_CONFIG_DIR: join(home, '.claude'),
      CODEX_HOME: join(home, '.codex'),
      GEMINI_CLI_HOME: home,
      QWEN_HOME: join(home, '.qwen'),
      COPILOT_HOME: join(home, '.copilot'),
      CLINE_DIR: join(home, '.cline'),
    };
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

    // Gemini CLI's and Qwen Code's chats, recorded in another folder: their workspace is that folder.
    const recorded = '/tmp/retained-record-chats/gemini-cli/build-resume/project';
    cpSync(join(FIXTURES, 'gemini-cli/build-resume/home/.gemini'), join(home, '.gemini'), { recursive: true });
    const qwenProject = '/tmp/retained-record-chats/qwen-code/build-resume/project';
    cpSync(join(FIXTURES, 'qwen-code/build-resume/home/.qwen'), join(home, '.qwen'), { recursive: true });

    const found = findSessions(workspace, env);
    assert.deepEqual(
      found.map((s) => [s.agent, s.title]),
      [
        ['claude-code', 'Scenario parallel-and-big: look around.'],
        ['codex', 'finish up the users work by rigging up the chatbot-ui to use lmstudio instead o…'],
      ],
    );
    const gemini = findSessions(recorded, env);
    assert.deepEqual(
      gemini.map((s) => [s.agent, s.title, s.run]),
      [['gemini-cli', 'Scenario build: build it.', '9cce1e24-ff92-4d18-b2e0-7201171f57f8']],
    );
    assert.deepEqual(
      findSessions(qwenProject, env).map((s) => [s.agent, s.title]),
      [['qwen-code', 'Scenario build: build it.']],
    );
    assert.equal(new Date(gemini[0]!.lastAt).toISOString(), '2026-12-01T17:14:10.124Z');
    cpSync(join(FIXTURES, 'copilot-cli/build-resume/home/.copilot'), join(home, '.copilot'), { recursive: true });
    cpSync(join(FIXTURES, 'cline/build-parallel/home/.cline'), join(home, '.cline'), { recursive: true });
    // A session folder with no events yet is passed over.
    mkdirSync(join(home, '.copilot/session-state/empty'), { recursive: true });
    assert.deepEqual(
      findSessions('/tmp/retained-record-chats/copilot-cli/build-resume/project', env).map((s) => [
        s.agent,
        s.title,
        s.run,
      ]),
      [['copilot-cli', 'Scenario build: build it.', '86c2532b-ad26-4885-9fc9-2b3858333d98']],
    );
    assert.deepEqual(
      findSessions('/tmp/retained-record-chats/cline/build-parallel/project', env).map((s) => [
        s.agent,
        s.title,
        s.run,
      ]),
      [['cline', 'Scenario build: build it, then two more looks.', '1796146811135_8qi1y']],
    );
    // Only the newest 500 session folders are looked at: behind 500 newer ones, the recorded one is not read.
    const sessions = join(home, '.copilot/session-state');
    utimesSync(join(sessions, '86c2532b-ad26-4885-9fc9-2b3858333d98'), new Date(2020, 0, 1), new Date(2020, 0, 1));
    for (let i = 0; i < 500; i++) mkdirSync(join(sessions, `newer-${i}`));
    assert.deepEqual(findSessions('/tmp/retained-record-chats/copilot-cli/build-resume/project', env), []);
    assert.deepEqual(findSessions('/another/workspace', env), []);
    // Aged by its last record, not by when the file was copied here.
    const codex = found.find((s) => s.agent === 'codex')!;
    assert.equal(new Date(codex.lastAt).toISOString().slice(0, 10), '2025-11-17');
    assert.notEqual(codex.lastAt, codex.mtimeMs);
  });
});

describe("Copilot CLI's hook", () => {
  after(removeTempDirs);
  const input = (text: string) => ({
    sessionId: 's1',
    timestamp: Date.now(),
    cwd: '/w',
    toolName: 'bash',
    toolArgs: { command: 'make' },
    toolResult: { resultType: 'success', textResultForLlm: text },
  });
  const notice = (path: string) =>
    `Output too large to read at once (164.9 KB). Saved to: ${path}\nConsider using tools like grep.\n\nPreview (first 500 chars):\n1\n2\n`;

  it('retains the file Copilot CLI saved, and answers the stub in place of its notice', async () => {
    const s = new RetentionService(join(tempDir(), '.retained'));
    await s.init();
    const file = join(tmpdir(), `${Date.now()}-copilot-tool-output-test-${process.pid}.txt`);
    const whole = `${Array.from({ length: 30000 }, (_, i) => i + 1).join('\n')}\n`;
    writeFileSync(file, whole);
    try {
      const answer = (await copilotCliHook(s, input(notice(file)))) as {
        modifiedResult: { textResultForLlm: string; resultType: string };
      };
      assert.equal(answer.modifiedResult.resultType, 'success');
      const id = /\[retained #(\S+)\] bash result: \d+ bytes, 30000 lines/.exec(
        answer.modifiedResult.textResultForLlm,
      )?.[1];
      assert.ok(id, answer.modifiedResult.textResultForLlm);
      assert.match(answer.modifiedResult.textResultForLlm, /retained-peek_value/, "peek_value by Copilot CLI's name");
      const value = await s.values.file({ valueId: id, runId: 's1' });
      assert.equal(readFileSync(new URL(value.uri), 'utf8'), whole, 'the whole output, from the file');
    } finally {
      rmSync(file, { force: true });
    }
  });

  it('never reads a path a command printed, a file outside the temp folder, one of another name, or a link', async () => {
    const s = new RetentionService(join(tempDir(), '.retained'));
    await s.init();
    const secret = join(tempDir(), 'secret.txt');
    writeFileSync(secret, 'x'.repeat(50_000));
    const link = join(tmpdir(), `${Date.now()}-copilot-tool-output-link-${process.pid}.txt`);
    const other = join(tmpdir(), `${Date.now()}-copilot-tool-output-other-${process.pid}.txt`);
    writeFileSync(other, `secret\n${'x'.repeat(50_000)}`);
    symlinkSync(secret, link);
    try {
      for (const text of [
        notice(secret),
        notice(join(tmpdir(), 'secret.txt')),
        notice(link),
        `ok\n${notice(join(tmpdir(), '1-copilot-tool-output-x.txt'))}`,
        // A notice a command printed, naming a saved file of another output: its preview is not that file's start.
        notice(other),
      ])
        assert.equal(await copilotCliHook(s, input(text)), undefined, text.slice(0, 120));
      assert.equal(await copilotCliHook(s, input('small')), undefined, 'a small result passes');
      await assert.rejects(copilotCliHook(s, { ...input('x'), toolResult: 'x' }), /toolResult/);
    } finally {
      rmSync(link, { force: true });
      rmSync(other, { force: true });
    }
  });
});

describe("the command in Claude Code's Bash script", () => {
  const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
  const script = (command: string) =>
    `source /home/u/.claude/shell-snapshots/snapshot-bash-1.sh 2>/dev/null || true && eval ${quote(command)} \\< /dev/null && pwd -P >| /tmp/claude-1-cwd`;

  it('is the model’s command, quotes and all; any other script has none', () => {
    for (const command of ['npm test', "echo 'it''s' && ls -la", 'printf "%s\\n" $HOME; a\\b', 'cat <<EOF\nx\nEOF'])
      assert.equal(claudeScriptCommand(script(command)), command);
    assert.equal(claudeScriptCommand('npm test'), undefined);
    assert.equal(claudeScriptCommand("eval 'npm test'"), undefined, 'not without the folder it ends in');
  });
});
