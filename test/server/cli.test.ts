/**
 * The `retained` command line and the Claude Code hook, as processes: the built `dist/cli.js`
 * run on a real store, as an agent or a person would run it.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { check } from '../../shared/check';
import { SetupAnswer } from '../../shared/setupAnswer';
import { lockFolder, unlockFolder } from '../helpers/lockFolder';
import { removeTempDirs, tempDir } from '../helpers/tmp';

const CLI = resolve(__dirname, '../../dist/cli.js');

function retained(cwd: string, args: string[], input?: string, env?: NodeJS.ProcessEnv) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, input, env, encoding: 'utf8', maxBuffer: 64 << 20 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the retained command line', function () {
  this.timeout(120_000);
  after(removeTempDirs);

  it('a store that refuses writes is said in words (which folder, why, the code last), not with a stack', () => {
    const cwd = tempDir();
    const session = (name: string) =>
      resolve(
        __dirname,
        '../fixtures/claude-code',
        name,
        'project',
        readdirSync(resolve(__dirname, '../fixtures/claude-code', name, 'project')).find((f) => f.endsWith('.jsonl'))!,
      );
    assert.equal(retained(cwd, ['import', session('read-code')]).code, 0);
    const runs = join(cwd, '.retained', 'runs');
    const why = lockFolder(runs);
    try {
      const refused = retained(cwd, ['import', session('failing')]);
      assert.equal(refused.code, 1);
      assert.equal(refused.stderr, `retained: Could not write to ${runs}: ${why}.\n`);
    } finally {
      unlockFolder(runs);
    }
  });

  it('a Claude Code hook on a small output answers nothing without loading the server bundle; any other input loads it', () => {
    // cli.js alone, without the bundle beside it: what needs the bundle fails to load it.
    const alone = join(tempDir(), 'cli.js');
    writeFileSync(alone, readFileSync(CLI));
    const cwd = tempDir();
    const input = (stdout: string, extra: Record<string, unknown> = {}) =>
      JSON.stringify({
        session_id: 's1',
        transcript_path: join(cwd, 's1.jsonl'),
        tool_name: 'Bash',
        tool_use_id: 'toolu_small',
        tool_input: { command: 'ls' },
        tool_response: { stdout, stderr: '', interrupted: false, isImage: false, ...extra },
      });
    const run = (file: string, args: string[], stdin: string) =>
      spawnSync(process.execPath, [file, ...args], { cwd, input: stdin, encoding: 'utf8' });
    const small = run(alone, ['hook', 'claude-code'], input('a\nb\n'));
    assert.equal(small.status, 0, small.stderr);
    assert.equal(small.stdout, '');
    assert.equal(small.stderr, '');
    // Nothing was opened or written for it.
    assert.equal(existsSync(join(cwd, '.retained')), false);
    // Qwen Code's hook on a small shell output: the same.
    const qwen = (event: string, more: Record<string, unknown> = {}) =>
      JSON.stringify({
        hook_event_name: event,
        session_id: 'q1',
        tool_name: 'run_shell_command',
        tool_call_id: 'call_1',
        tool_input: { command: 'ls' },
        ...more,
      });
    const quiet = run(alone, ['hook', 'qwen'], qwen('PostToolUse', { tool_response: { returnDisplay: 'a\nb\n' } }));
    assert.deepEqual([quiet.status, quiet.stdout, quiet.stderr], [0, '', '']);
    // Gemini CLI's AfterTool and Copilot CLI's postToolUse on a small output: the same.
    const gemini = (event: string) =>
      JSON.stringify({
        hook_event_name: event,
        session_id: 'g1',
        tool_name: 'run_shell_command',
        tool_input: { command: 'ls' },
        tool_response: { llmContent: 'a\nb\n' },
      });
    const copilot = (text: string) =>
      JSON.stringify({
        sessionId: 'c1',
        timestamp: 1,
        toolName: 'bash',
        toolArgs: { command: 'ls' },
        toolResult: { resultType: 'success', textResultForLlm: text },
      });
    for (const [agent, stdin] of [
      ['gemini', gemini('AfterTool')],
      ['copilot-cli', copilot('a\nb\n\n<shellId: 0 completed with exit code 0>')],
      // The name it had before: the hook files setup wrote then run `retained hook copilot`.
      ['copilot', copilot('a\nb\n\n<shellId: 0 completed with exit code 0>')],
    ]) {
      const r = run(alone, ['hook', agent!], stdin!);
      assert.deepEqual([r.status, r.stdout, r.stderr], [0, '', ''], agent);
    }
    // A big output, a saved one, the guard, a broken input, another event, another command: each needs the bundle
    // (Gemini CLI's BeforeTool needs the rewrite's: the next test).
    const big = `${'x'.repeat(100)}\n`.repeat(400);
    for (const [args, stdin] of [
      [['hook', 'claude-code'], input(big)],
      [['hook', 'claude-code'], input('cut', { persistedOutputPath: join(cwd, 'out.txt') })],
      [['hook', 'claude-code', '--guard'], input('a\n')],
      [['hook', 'claude-code'], '{"not": "a hook input"}'],
      [
        ['hook', 'claude-code'],
        JSON.stringify({ session_id: 's1', hook_event_name: 'SessionStart', source: 'compact' }),
      ],
      [['hook', 'qwen'], qwen('PostToolUseFailure', { error: 'Tool output was too large…' })],
      [['hook', 'copilot-cli'], copilot('Output too large to read at once (30 KB). Saved to: /tmp/x.txt\n')],
      [['hook', 'copilot-cli'], copilot(big)],
      [['--version'], ''],
    ] as const) {
      const r = run(alone, [...args], stdin);
      assert.match(r.stderr, /Cannot find module '\.\/server\.js'/, `${args.join(' ')}: ${r.stderr}`);
    }
    // An endless input is not read whole here: past the threshold it goes to the bundle, which bounds it.
    const endless = spawnSync('sh', ['-c', `yes | "${process.execPath}" "${alone}" hook claude-code`], {
      cwd,
      encoding: 'utf8',
    });
    assert.match(endless.stderr, /Cannot find module '\.\/server\.js'/);
    // With the bundle beside it, the same small output is still left alone, and the big one retained.
    assert.equal(run(CLI, ['hook', 'claude-code'], input('a\nb\n')).stdout, '');
    const kept = run(CLI, ['hook', 'claude-code'], input(big));
    assert.match(kept.stdout, /\[retained #toolu_small\]/, kept.stderr);
  });

  it("the hooks that rewrite a command (Codex's, Gemini CLI's BeforeTool) answer with cli.js and rewriteHooks.js alone, as the bundle does; what they would not rewrite, and the guard, load the bundle", () => {
    const dir = tempDir();
    const alone = join(dir, 'cli.js');
    writeFileSync(alone, readFileSync(CLI));
    writeFileSync(join(dir, 'rewriteHooks.js'), readFileSync(join(dirname(CLI), 'rewriteHooks.js')));
    const cwd = tempDir();
    const env = {
      ...process.env,
      CODEX_HOME: tempDir(),
      GEMINI_CLI_HOME: tempDir(),
      RETAINED_STORE: join(cwd, 'store'),
    };
    const codex = (command: string, more: Record<string, unknown> = {}) =>
      JSON.stringify({
        hook_event_name: 'PreToolUse',
        session_id: 'x1',
        tool_name: 'Bash',
        tool_use_id: 'call_1',
        permission_mode: 'bypassPermissions',
        cwd,
        tool_input: { command },
        ...more,
      });
    const gemini = (event: string, more: Record<string, unknown> = {}) =>
      JSON.stringify({
        hook_event_name: event,
        session_id: 'g1',
        cwd,
        tool_name: 'run_shell_command',
        tool_input: { command: 'make build' },
        ...more,
      });
    // Under a process whose command line is Gemini CLI's in YOLO mode, as its hooks run.
    const under = (file: string, args: readonly string[], stdin: string) =>
      spawnSync(
        'bash',
        ['-c', `"${process.execPath}" "$1" ${args.join(' ')}; exit $?`, '/usr/lib/gemini-cli/gemini', file, '--yolo'],
        {
          cwd,
          env,
          input: stdin,
          encoding: 'utf8',
        },
      );
    for (const [args, stdin] of [
      [['hook', 'codex'], codex('make build')],
      [['hook', 'gemini'], gemini('BeforeTool')],
    ] as const) {
      const light = under(alone, args, stdin);
      assert.equal(light.status, 0, light.stderr);
      assert.equal(light.stderr, '', args.join(' '));
      const full = under(CLI, args, stdin);
      assert.match(full.stdout, /retained run|run --store/, `${args.join(' ')}: ${full.stdout} ${full.stderr}`);
      assert.equal(light.stdout, full.stdout.replaceAll(realpathSync(CLI), realpathSync(alone)), args.join(' '));
    }
    // Another tool: left alone, here too, and nothing written.
    for (const [args, stdin] of [
      [['hook', 'codex'], codex('x', { tool_name: 'apply_patch' })],
      [['hook', 'gemini'], gemini('BeforeTool', { tool_name: 'read_file' })],
    ] as const)
      assert.deepEqual([under(alone, args, stdin).stdout, existsSync(env.RETAINED_STORE)], ['', false], args.join(' '));
    // Not rewritten (the bundle logs why), Gemini CLI's AfterTool of a shell command, the guard, a broken input: the bundle answers.
    for (const [args, stdin] of [
      [['hook', 'codex'], codex('make build', { permission_mode: 'default' })],
      [['hook', 'codex'], codex('rm -rf build')],
      [['hook', 'codex', '--guard'], codex('make build')],
      [['hook', 'codex'], '{"hook_event_name": 1}'],
      [['hook', 'gemini'], gemini('AfterTool', { tool_response: { llmContent: 'x'.repeat(30_000) } })],
    ] as const) {
      const r = under(alone, args, stdin);
      assert.match(
        r.stderr,
        /Cannot find module '\.\/server\.js'/,
        `${args.join(' ')} ${stdin.slice(0, 80)}: ${r.stderr}`,
      );
    }
    // Gemini CLI not in YOLO mode (its hook under a plain process): the bundle, which says why.
    const plain = spawnSync(process.execPath, [alone, 'hook', 'gemini'], {
      cwd,
      env,
      input: gemini('BeforeTool'),
      encoding: 'utf8',
    });
    assert.match(plain.stderr, /Cannot find module '\.\/server\.js'/);
  });

  it('OpenCode after a compaction: the index of what was retained before it, the same text each time it is asked, recorded once', () => {
    const cwd = tempDir();
    const ask = (input: object) => retained(cwd, ['hook', 'opencode'], JSON.stringify(input));
    const compacted = { hook_event_name: 'compacted', session_id: 'o1', compaction_id: 'msg_c1', auto: true };
    assert.equal(ask(compacted).stdout, '{"index":""}\n', 'no run yet: nothing to hand');
    const big = `${'line of the build\n'.repeat(3000)}error: the linker failed\n`;
    const kept = ask({ session_id: 'o1', call_id: 'call_1', command: 'make', exit: 2, output: big });
    assert.match(kept.stdout, /\[retained #call_1\]/, kept.stderr);
    const first = JSON.parse(ask(compacted).stdout) as { index: string };
    assert.match(
      first.index,
      /^Retained Outputs kept this output .*\n\[retained #call_1\] bash make error: \d+ bytes, 3001 lines; error at line 3001/,
    );
    // A later value, asked for the same compaction (a new process, a resumed session): the text handed then.
    ask({ session_id: 'o1', call_id: 'call_2', command: 'make again', exit: 0, output: big });
    assert.equal(JSON.parse(ask(compacted).stdout).index, first.index);
    const run = readFileSync(join(cwd, '.retained', 'runs', 'o1.jsonl'), 'utf8');
    assert.equal(run.split('"ref":"msg_c1"').length - 1, 1);
    assert.equal(run.split('Retained Outputs kept').length - 1, 1);
    // A second compaction: a fresh index, both values in it.
    assert.match(JSON.parse(ask({ ...compacted, compaction_id: 'msg_c2' }).stdout).index, /these 2 outputs/);
    // Unknown fields are named, and nothing is answered.
    const odd = ask({ ...compacted, extra: 1 });
    assert.equal(odd.stdout, '');
  });

  it("run streams a command into a value and prints the stub; peek finds a line in it; the exit status is the command's", () => {
    const cwd = tempDir();
    const run = retained(cwd, ['run', '--', 'seq', '1', '300000']);
    assert.equal(run.code, 0, run.stderr);
    const id = /^\[retained #(\S+)\]/.exec(run.stdout)?.[1];
    assert.ok(id, run.stdout);
    const expected = execFileSync('seq', ['1', '300000'], { maxBuffer: 64 << 20 });
    assert.match(run.stderr, new RegExp(`in run cli: ${expected.length} bytes, 300000 lines, exit 0`));
    assert.deepEqual(readFileSync(join(cwd, '.retained', 'runs', 'cli.values', `${id}.txt`)), expected);
    const peek = retained(cwd, ['peek', id, '--grep', '299999']);
    assert.equal(peek.stdout, '299999: 299999\n[peek: 1 matching line]\n');
    // From a subfolder, the same store is found.
    const sub = join(cwd, 'deep', 'er');
    execFileSync('mkdir', ['-p', sub]);
    assert.match(retained(sub, ['peek', id, '--lines', '5:6']).stdout, /^5: 5\n6: 6\n/);
    const failing = retained(cwd, ['run', '--', 'sh -c "echo oops >&2; exit 3"']);
    assert.equal(failing.code, 3);
    // A small output comes back as it came: stderr on stderr, then our status line.
    assert.equal(failing.stdout, '');
    assert.match(failing.stderr, /^oops\nretained: kept verbatim in run cli: 5 bytes, 1 lines, exit 3\n$/);
  });

  it("setup shows what it writes, writes it with --yes (not from a script without), in each agent's home as the agent finds it, and --remove gives every file back to the byte", () => {
    const project = tempDir();
    const home = tempDir();
    const codexHome = tempDir();
    const geminiHome = join(tempDir(), '.gemini');
    const xdg = tempDir();
    const opencodeConfig = join(xdg, 'opencode');
    const qwenHome = tempDir();
    const copilotHome = tempDir();
    const clineHome = tempDir();
    // Each agent's own variable names its home (Gemini CLI's the folder holding .gemini); Qwen Code's is given with --home.
    const env = {
      PATH: process.env.PATH,
      HOME: home,
      CODEX_HOME: codexHome,
      GEMINI_CLI_HOME: dirname(geminiHome),
      XDG_CONFIG_HOME: xdg,
      COPILOT_HOME: copilotHome,
      CLINE_DIR: clineHome,
    };
    const settings = `${JSON.stringify({ model: 'opus', permissions: { allow: ['Bash(ls:*)'] } }, null, 2)}\n`;
    mkdirSync(join(project, '.claude'));
    writeFileSync(join(project, '.claude', 'settings.json'), settings);
    writeFileSync(join(codexHome, 'config.toml'), 'model = "gpt-5-codex"\n');
    const snapshot = () =>
      Object.fromEntries(
        [
          join(project, '.mcp.json'),
          join(project, '.claude', 'settings.json'),
          join(codexHome, 'config.toml'),
          join(geminiHome, 'settings.json'),
          join(opencodeConfig, 'opencode.json'),
          join(opencodeConfig, 'plugins', 'retained-outputs.js'),
          join(qwenHome, 'settings.json'),
          join(copilotHome, 'mcp-config.json'),
          join(copilotHome, 'hooks', 'retained-outputs.json'),
          join(clineHome, 'data', 'settings', 'cline_mcp_settings.json'),
          join(clineHome, 'plugins', 'retained-outputs.js'),
        ].map((f) => [f, existsSync(f) ? readFileSync(f, 'utf8') : undefined]),
      );
    const where = ['--project', project];
    const setup = (agent: string, ...args: string[]) =>
      retained(
        project,
        ['setup', agent, ...args, ...where, ...(agent === 'qwen' ? ['--home', qwenHome] : [])],
        undefined,
        env,
      );
    // A Copilot CLI configuration of the user's own, beside which ours goes and from which it goes again.
    writeFileSync(
      join(copilotHome, 'mcp-config.json'),
      `${JSON.stringify({ mcpServers: { mine: { type: 'local', command: 'x', tools: ['*'] } } }, null, 2)}\n`,
    );
    const agents = ['claude-code', 'cline', 'codex', 'copilot-cli', 'gemini', 'opencode', 'qwen'];
    const before = snapshot();

    const dry = setup('claude-code', '--dry-run');
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /\.mcp\.json: a new file\n\+ \{/);
    assert.match(dry.stdout, /settings\.json: changed\n[\s\S]*\+ .*hook claude-code/);
    assert.deepEqual(snapshot(), before, 'a dry run writes nothing');
    const scripted = setup('claude-code');
    assert.deepEqual([scripted.code, snapshot()], [2, before], 'from a script, only with --yes');
    assert.match(scripted.stderr, /pass --yes/);

    for (const agent of agents) {
      const r = setup(agent, '--yes');
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /set up\. Start a new session/);
      assert.match(setup(agent, '--yes').stdout, /set up already/);
    }
    const set = snapshot();
    const hook = JSON.parse(set[join(project, '.claude', 'settings.json')]!).hooks.PostToolUse[0].hooks[0].command;
    assert.equal(hook, `${process.execPath} ${CLI} hook claude-code`, 'the hook runs this command line');
    assert.match(
      set[join(codexHome, 'config.toml')]!,
      /\[mcp_servers\.retained\]\ncommand = ".*"\nargs = \[".*cli\.js", "mcp"\]/,
    );

    assert.ok(
      Object.values(set).every((text) => text !== undefined),
      'every file written',
    );
    for (const agent of agents) {
      const r = setup(agent, '--remove', '--yes');
      assert.equal(r.code, 0, r.stderr);
    }
    assert.deepEqual(snapshot(), before, 'removed, to the byte');
    assert.match(setup('codex', '--remove').stdout, /nothing of Retained Outputs to remove/);
    assert.deepEqual(readdirSync(home), [], 'nothing written in the home folder the agents were moved out of');
    assert.equal(retained(project, ['setup', 'aider']).code, 2);
  });

  it('setup --json, as VS Code runs it: a dry run answers the changes and their digest, --expect writes only those, a file changed since is not written, a failure is an answer too', () => {
    const home = tempDir();
    const env = { PATH: process.env.PATH, HOME: tempDir() };
    const setup = (...args: string[]) => {
      const r = retained(home, ['setup', 'gemini', '--json', '--home', home, ...args], undefined, env);
      return { code: r.code, answer: check(SetupAnswer, JSON.parse(r.stdout), 'the answer'), stderr: r.stderr };
    };
    const shown = setup('--dry-run');
    assert.equal(shown.code, 0, shown.stderr);
    assert.ok('digest' in shown.answer && shown.answer.written === false);
    assert.deepEqual(
      shown.answer.changes.map((c) => [c.path, c.before]),
      [[join(home, 'settings.json'), undefined]],
    );
    assert.deepEqual(readdirSync(home), [], 'a dry run writes nothing');
    const unasked = setup();
    assert.equal(unasked.code, 2);
    assert.ok('error' in unasked.answer);
    assert.match(unasked.answer.error, /pass --dry-run, --expect DIGEST or --yes/);

    // The user edits the file between the preview and the write: nothing written, the new changes answered.
    writeFileSync(join(home, 'settings.json'), '{ "theme": "dark" }\n');
    const stale = setup('--expect', shown.answer.digest);
    assert.equal(stale.code, 1);
    assert.ok('written' in stale.answer && !stale.answer.written);
    assert.notEqual(stale.answer.digest, shown.answer.digest);
    assert.equal(
      readFileSync(join(home, 'settings.json'), 'utf8'),
      '{ "theme": "dark" }\n',
      'left as the user wrote it',
    );

    const written = setup('--expect', stale.answer.digest);
    assert.equal(written.code, 0, written.stderr);
    assert.ok('written' in written.answer && written.answer.written);
    assert.equal(readFileSync(join(home, 'settings.json'), 'utf8'), stale.answer.changes[0]!.after);
    const again = setup('--dry-run');
    assert.ok('changes' in again.answer && again.answer.changes.length === 0, 'set up already: nothing to change');

    writeFileSync(join(home, 'settings.json'), '{ not json');
    const broken = setup('--dry-run');
    assert.equal(broken.code, 1);
    assert.ok('error' in broken.answer);
    assert.match(broken.answer.error, /settings\.json is not JSON/);
  });

  it('setup names the Node it is given, else the node on PATH that is this one (a link outlives an upgrade), never a relative one', () => {
    const home = tempDir();
    // A version manager's link on PATH, as Homebrew's /opt/homebrew/bin/node is: this process's execPath is its target.
    const bin = tempDir();
    symlinkSync(process.execPath, join(bin, 'node'));
    const written = (env: NodeJS.ProcessEnv, ...args: string[]) => {
      const r = retained(home, ['setup', 'gemini', '--json', '--dry-run', '--home', home, ...args], undefined, env);
      const answer = check(SetupAnswer, JSON.parse(r.stdout), 'the answer');
      assert.ok('changes' in answer, r.stdout);
      const after = JSON.parse(answer.changes[0]!.after!) as {
        mcpServers: { retained: { command: string } };
        hooks: { AfterTool: { hooks: { command: string }[] }[] };
      };
      return { server: after.mcpServers.retained.command, hook: after.hooks.AfterTool[0]!.hooks[0]!.command };
    };
    const linked = written({ PATH: `${bin}:${process.env.PATH}`, HOME: tempDir() });
    assert.equal(linked.server, join(bin, 'node'));
    assert.ok(linked.hook.startsWith(`${join(bin, 'node')} `), linked.hook);
    // A node on PATH that is not this one, or a relative PATH entry (wherever the agent starts):
    // never written down; the binary this process runs is named.
    const other = tempDir();
    writeFileSync(join(other, 'node'), '#!/bin/sh\n', { mode: 0o755 });
    mkdirSync(join(home, 'rel'));
    symlinkSync(process.execPath, join(home, 'rel', 'node'));
    for (const PATH of [other, 'rel']) {
      const { server } = written({ PATH, HOME: tempDir() });
      assert.ok(server !== join(other, 'node') && server !== 'rel/node', server);
      assert.equal(realpathSync(server), realpathSync(process.execPath));
    }
    // Given: that one (VS Code's Set Up gives the node it found on PATH, a shim too).
    const shim = join(other, 'node');
    assert.equal(written({ PATH: process.env.PATH, HOME: tempDir() }, '--node', shim).server, shim);
    for (const bad of ['node', join(other, 'missing'), other]) {
      const r = retained(home, ['setup', 'gemini', '--json', '--dry-run', '--home', home, '--node', bad]);
      assert.equal(r.code, 2, bad);
      assert.match(r.stdout, /--node takes the full path of a Node binary/);
    }
    assert.deepEqual(readdirSync(home), ['rel'], 'nothing written');
  });

  it('setup --expect with a digest gone stale writes nothing and exits 1, also when nothing is left to do', () => {
    const home = tempDir();
    const env = { PATH: process.env.PATH, HOME: tempDir() };
    const setup = (...args: string[]) => retained(home, ['setup', 'qwen', '--home', home, ...args], undefined, env);
    const shown = check(SetupAnswer, JSON.parse(setup('--json', '--dry-run').stdout), 'the answer');
    assert.ok('digest' in shown);
    // Another setup lands first: the preview's changes are no longer the ones to make.
    assert.equal(setup('--yes').code, 0);
    const json = setup('--json', '--expect', shown.digest);
    assert.equal(json.code, 1);
    assert.deepEqual(JSON.parse(json.stdout), {
      changes: [],
      digest: JSON.parse(setup('--json', '--dry-run').stdout).digest,
      written: false,
    });
    const text = setup('--expect', shown.digest);
    assert.equal(text.code, 1);
    assert.match(text.stderr, /the files changed since they were shown/);
  });

  it("setup's faults: an object it never edited keeps its layout, a dangling link is written through, two setups at once both land, an immutable or huge file is refused in words, and --remove leaves no folder it made", async () => {
    const env = { PATH: process.env.PATH, HOME: tempDir() };
    const setup = (home: string, ...args: string[]) =>
      retained(tempDir(), ['setup', 'opencode', '--yes', '--home', home, ...args], undefined, env);
    // A one-line object of the user's stays on its line, through setup and removal.
    const oc = tempDir();
    const mine = '{\n  "permission": { "bash": "allow" }\n}\n';
    writeFileSync(join(oc, 'opencode.json'), mine);
    assert.equal(setup(oc).code, 0);
    assert.match(readFileSync(join(oc, 'opencode.json'), 'utf8'), /^\{\n {2}"permission": \{ "bash": "allow" \},\n/);
    assert.equal(setup(oc, '--remove').code, 0);
    assert.equal(readFileSync(join(oc, 'opencode.json'), 'utf8'), mine);
    assert.deepEqual(readdirSync(oc), ['opencode.json'], 'the plugins/ folder it made goes');
    // A link whose target is not there yet: the file is made where it points, the link stays.
    const linked = tempDir();
    const dotfiles = tempDir();
    symlinkSync(join(dotfiles, 'opencode.json'), join(linked, 'opencode.json'));
    assert.equal(setup(linked).code, 0);
    assert.ok(lstatSync(join(linked, 'opencode.json')).isSymbolicLink());
    assert.match(readFileSync(join(dotfiles, 'opencode.json'), 'utf8'), /"retained"/);
    // Two setups of one file at once (Gemini CLI's and Qwen Code's, given one home): both changes land.
    for (let round = 0; round < 6; round++) {
      const home = tempDir();
      const codes = await Promise.all(
        ['gemini', 'qwen'].map(
          (agent) =>
            new Promise<number | null>((done) =>
              spawn(process.execPath, [CLI, 'setup', agent, '--yes', '--home', home], { env, stdio: 'ignore' }).on(
                'close',
                done,
              ),
            ),
        ),
      );
      assert.deepEqual(codes, [0, 0]);
      const hooks = JSON.parse(readFileSync(join(home, 'settings.json'), 'utf8')).hooks;
      assert.deepEqual(
        Object.keys(hooks).sort(),
        ['AfterTool', 'BeforeTool', 'PostToolUse', 'PostToolUseFailure', 'SessionStart'],
        `round ${round}: neither write lost`,
      );
    }
    // A file over the size limit, or one that cannot be written: a sentence, not a stack trace.
    const big = tempDir();
    writeFileSync(join(big, 'opencode.json'), `{"x": "${'a'.repeat(5 << 20)}"}`);
    const huge = setup(big);
    assert.equal(huge.code, 1);
    assert.match(
      huge.stderr,
      /^retained: .*opencode\.json is \d+ bytes: setup edits files of at most \d+ bytes; edit it by hand\n$/,
    );
    const locked = tempDir();
    writeFileSync(join(locked, 'opencode.json'), '{}\n');
    execFileSync('chattr', ['+i', join(locked, 'opencode.json')]);
    try {
      const refused = setup(locked);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /^retained: could not write the set-up: E(PERM|ACCES)[^\n]*\n$/);
      assert.doesNotMatch(refused.stderr, /\n\s+at /, 'no stack trace');
    } finally {
      execFileSync('chattr', ['-i', join(locked, 'opencode.json')]);
    }
  });

  it('--guard withholds a secret in a command output; withhold takes a result from stdin; cleanup and pin', () => {
    const cwd = tempDir();
    const key = 'ghp_0123456789abcdefghijklmnopqrstuvwxyzAB';
    const guarded = retained(cwd, ['run', '--guard', '--run', 'g', '--', `echo token=${key}`]);
    assert.equal(guarded.code, 0);
    assert.match(guarded.stdout, /^\[withheld\] This tool result was withheld from the model by a guard\./);
    assert.ok(!guarded.stdout.includes(key), 'the model never sees the key');
    assert.match(guarded.stderr, /withheld \(written\) in run g/);
    const file = /at (withheld\/\S+\.txt)/.exec(guarded.stdout)![1]!;
    assert.equal(readFileSync(join(cwd, '.retained', file), 'utf8'), `token=${key}\n`);
    const plain = retained(cwd, ['run', '--run', 'g', '--', `echo token=${key}`]);
    assert.equal(plain.stdout, `token=${key}\n`, 'without --guard, the output is the output');

    const withheld = retained(
      cwd,
      ['withhold', 'g', '--call', 'c9', '--tool', 'deploy', '--reason', 'a receipt'],
      'the receipt\n',
    );
    assert.equal(withheld.code, 0);
    assert.match(withheld.stdout, /Its original is in the Retained Outputs store at withheld\/\S+-c9\.txt/);
    assert.ok(!withheld.stdout.includes('receipt'));

    assert.equal(retained(cwd, ['pin', 'g']).code, 0);
    const dry = JSON.parse(retained(cwd, ['cleanup', '--dry-run', '--quota', '1', '--json']).stdout) as {
      removed: unknown[];
      spared: { pinned: number };
    };
    assert.deepEqual([dry.removed.length, dry.spared.pinned], [0, 1], 'a pinned run is never removed');
    assert.equal(retained(cwd, ['cleanup', '--quota', 'lots']).code, 2);
  });

  it('ls, status and --json; a wrong command line exits 2 with a hint, a failure exits 1 naming the reason', () => {
    const cwd = tempDir();
    retained(cwd, ['run', '--run', 'build', '--', 'seq 1 100000']);
    const bytes = execFileSync('seq', ['1', '100000']).length;
    const runs = JSON.parse(retained(cwd, ['ls', '--json']).stdout) as { runId: string; valueCount: number }[];
    assert.deepEqual(
      runs.map((r) => [r.runId, r.valueCount]),
      [['build', 1]],
    );
    assert.match(retained(cwd, ['ls', 'build']).stdout, new RegExp(`\trun_command\t${bytes} bytes\t100000 lines\t`));
    const status = retained(cwd, ['status']).stdout;
    assert.match(status, /^1 run, 1 value, \d+(\.\d)? KiB \(/m);
    const du = Number(execFileSync('du', ['-sb', join(cwd, '.retained')], { encoding: 'utf8' }).split('\t')[0]);
    assert.equal(
      (JSON.parse(retained(cwd, ['status', '--json']).stdout) as { storeBytes: number; valueBytes: number }).storeBytes,
      du,
      'the store size is what du -sb counts',
    );
    const wrong = retained(cwd, ['peek']);
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /peek needs the value id from the stub[\s\S]*Try retained --help/);
    assert.equal(retained(cwd, ['peek', 'x', '--landmark', 'oops']).code, 2);
    const missing = retained(cwd, ['peek', 'nope']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no retained value "nope"; known ids: run-/);
    assert.equal(retained(cwd, ['--help']).code, 0);
  });

  describe('hook claude-code', () => {
    const bash = (stdout: string, more: Record<string, unknown> = {}) =>
      JSON.stringify({
        session_id: 'session-1',
        tool_name: 'Bash',
        tool_use_id: 'toolu_01',
        tool_input: { command: 'make' },
        hook_event_name: 'PostToolUse',
        duration_ms: 1200,
        tool_response: { stdout, stderr: '', interrupted: false, isImage: false, ...more },
      });

    it('after a compaction (SessionStart, source compact) hands the model the index of what was retained, each value one peek away', () => {
      const cwd = tempDir();
      const call = (id: string, command: string, stdout: string) =>
        JSON.stringify({ ...JSON.parse(bash(stdout)), tool_use_id: id, tool_input: { command } });
      const build = Array.from({ length: 30_000 }, (_, i) => (i === 20_000 ? 'error: link failed' : `cc -c f${i}.c`));
      const lock = Array.from({ length: 5000 }, (_, i) => `"pkg-${i}": "1.0.${i}"`);
      for (const [id, command, out] of [
        ['toolu_build', 'make all', build.join('\n')],
        ['toolu_lock', 'cat package-lock.json', lock.join('\n')],
      ] as const)
        assert.equal(retained(cwd, ['hook', 'claude-code'], call(id, command, out)).code, 0);
      const start = (source: string) =>
        retained(
          cwd,
          ['hook', 'claude-code'],
          JSON.stringify({ session_id: 'session-1', hook_event_name: 'SessionStart', source }),
        );
      // A session started or resumed gets nothing; one restarted by a compaction gets the index.
      assert.equal(start('startup').stdout, '');
      assert.equal(start('resume').stdout, '');
      const r = start('compact');
      assert.equal(r.code, 0, r.stderr);
      const answer = JSON.parse(r.stdout) as {
        hookSpecificOutput: { hookEventName: string; additionalContext: string };
      };
      assert.equal(answer.hookSpecificOutput.hookEventName, 'SessionStart');
      const index = answer.hookSpecificOutput.additionalContext;
      assert.ok(Buffer.byteLength(index) <= 1536, `${Buffer.byteLength(index)} bytes`);
      assert.match(
        index,
        /^\[retained #toolu_build\] Bash make all result: \d+ bytes, 30000 lines; error at line 20001/m,
      );
      assert.match(index, /^\[retained #toolu_lock\] Bash cat package-lock\.json result: \d+ bytes, 5000 lines$/m);
      assert.match(index, /mcp__retained__peek_value/);
      // The same values give the same index, and it is recorded as what the model was handed.
      assert.equal((JSON.parse(start('compact').stdout) as typeof answer).hookSpecificOutput.additionalContext, index);
      const events = readFileSync(join(cwd, '.retained', 'runs', 'session-1.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { type: string; text?: string; injected?: boolean });
      assert.equal(events.filter((e) => e.type === 'user' && e.injected && e.text === index).length, 2);
      // An id from it peeks the original bytes.
      const peek = retained(cwd, ['peek', 'toolu_build', '--run', 'session-1', '--lines', '20001:20001']);
      assert.equal(peek.stdout, '20001: error: link failed\n');
    });

    it("a subagent's big output goes to the subagent's run, which its transcript imports into, not the main session's", () => {
      const cwd = tempDir();
      const big = Array.from({ length: 3000 }, (_, i) => `line ${i} of the subagent's grep`).join('\n');
      const r = retained(cwd, ['hook', 'claude-code'], JSON.stringify({ ...JSON.parse(bash(big)), agent_id: 'a98' }));
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /\[retained #toolu_01\]/);
      const runs = readdirSync(join(cwd, '.retained', 'runs')).filter((f) => f.endsWith('.values'));
      assert.deepEqual(runs, ['session-1-agent-a98.values']);
    });

    it("answers a big output with the stub in the tool's own shape; the whole output comes from the file Claude Code saved", () => {
      const cwd = tempDir();
      const whole = Array.from({ length: 20_000 }, (_, i) =>
        i === 9000 ? 'error: boom at step 9000' : `step ${i} ok`,
      ).join('\n');
      // Where Claude Code keeps it: beside the session's transcript, in <session>/tool-results/.
      const projects = tempDir();
      mkdirSync(join(projects, 'session-1', 'tool-results'), { recursive: true });
      const saved = join(projects, 'session-1', 'tool-results', 'toolu_01.txt');
      writeFileSync(saved, whole);
      const input = JSON.parse(
        bash(whole.slice(0, 30_000), { persistedOutputPath: saved, persistedOutputSize: whole.length }),
      );
      const r = retained(
        cwd,
        ['hook', 'claude-code'],
        JSON.stringify({ ...input, transcript_path: join(projects, 'session-1.jsonl') }),
      );
      assert.equal(r.code, 0, r.stderr);
      const answer = JSON.parse(r.stdout) as {
        hookSpecificOutput: {
          hookEventName: string;
          updatedToolOutput: { stdout: string; stderr: string; persistedOutputPath?: string };
        };
      };
      assert.equal(answer.hookSpecificOutput.hookEventName, 'PostToolUse');
      const out = answer.hookSpecificOutput.updatedToolOutput;
      assert.match(out.stdout, /^\[retained #toolu_01\] Bash result: \d+ bytes, 20000 lines/);
      assert.match(out.stdout, /error at line 9001/);
      assert.match(out.stdout, /Read it with mcp__retained__peek_value/);
      assert.equal(out.persistedOutputPath, undefined);
      assert.equal(readFileSync(join(cwd, '.retained', 'runs', 'session-1.values', 'toolu_01.txt'), 'utf8'), whole);
    });

    it('prints nothing for a small output, a tool it does not know, or input that is not a hook call; it never fails the agent', () => {
      const cwd = tempDir();
      for (const input of [
        bash('small'),
        JSON.stringify({
          session_id: 's',
          tool_name: 'Edit',
          tool_use_id: 't',
          tool_response: { x: 'y'.repeat(50_000) },
        }),
        'not json',
        '{}',
      ]) {
        const r = retained(cwd, ['hook', 'claude-code'], input);
        assert.deepEqual([r.code, r.stdout], [0, ''], input.slice(0, 40));
      }
      // With --guard too, a small output without a secret passes untouched, and nothing is recorded.
      const guarded = retained(cwd, ['hook', 'claude-code', '--guard'], bash('small'));
      assert.deepEqual([guarded.code, guarded.stdout], [0, '']);
      assert.equal(existsSync(join(cwd, '.retained', 'runs')), false, 'no run written');
    });

    it('keeps the shapes of Read, Grep and MCP tools', () => {
      const cwd = tempDir();
      const big = 'x'.repeat(30_000);
      const call = (tool_name: string, tool_response: unknown, id: string) =>
        JSON.parse(
          retained(
            cwd,
            ['hook', 'claude-code'],
            JSON.stringify({ session_id: 's', tool_name, tool_use_id: id, tool_response }),
          ).stdout,
        ).hookSpecificOutput.updatedToolOutput;
      const read = call(
        'Read',
        { type: 'text', file: { filePath: '/a', content: big, numLines: 1, startLine: 1, totalLines: 1 } },
        'r1',
      );
      // Claude Code numbers a Read's content from startLine: the stub's header is line 0, the file's line 1 is 1.
      assert.match(read.file.content, /^\[retained #r1\] Read result: 30000 bytes, 1 lines[^\n]*\nx{100}/);
      assert.deepEqual(
        { ...read.file, content: '' },
        { filePath: '/a', content: '', numLines: read.file.content.split('\n').length, startLine: 0, totalLines: 1 },
      );
      assert.match(call('Grep', { mode: 'content', content: big, numLines: 1 }, 'g1').content, /^\[retained #g1\]/);
      const mcp = call('mcp__other__fetch', [{ type: 'text', text: big }], 'm1');
      assert.ok(Array.isArray(mcp) && mcp.length === 1 && /^\[retained #m1\]/.test(mcp[0].text));
    });
  });
});
