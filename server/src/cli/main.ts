/**
 * `retained`, the command line: the same store and core as the language server, for agents
 * and people outside VS Code. Each command is a few lines over the service; `mcp` and `hook`
 * are the doors for agents (an MCP server over stdio, a Claude Code hook).
 *
 * Exit codes: 0 done; 1 it could not be done (the message says why); 2 the command line is
 * wrong. `run` exits with the command's own status.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { AGENT_IDS, AGENTS, type AgentId, agentIdOf, IMPORT_FORMATS, type ImportFormat } from '../../../shared/agents';
import { formatBytes, formatCount } from '../../../shared/format';
import { REPLAY_SHAPES, type ReplayShape, VIEWS, type View } from '../../../shared/history';
import { InvalidInput } from '../../../shared/invalidInput';
import { shellQuote } from '../../../shared/launcher';
import type { Price } from '../../../shared/pricing';
import { type ExportParams, IF_EXISTS, type IfExists, VALUES_PAGE_MAX } from '../../../shared/protocol';
import { LANDMARK_KINDS, type LandmarkKind } from '../../../shared/settings';
import { VERSION } from '../../../shared/version';
import { type CommandResult, defaultShell, exitOf, exitStatus, type Shell, startCommand } from '../core/retain/command';
import { RetentionService } from '../core/service';
import { inWords } from '../core/store/errorWords';
import { shownUrl } from '../core/store/open';
import { isStoreUrl } from '../core/store/storeUrl';
import { ADAPTERS, HOOK_AGENTS } from './agentAdapters';
import { claudeScriptCommand } from './claudeCodeSetup';
import { runHook } from './hook';
import { setup } from './setup';
import { findStore } from './store';

const HELP = `retained ${VERSION}: keeps big tool outputs out of coding agents' context, without losing a byte

Usage: retained <command> [options]

Commands:
  run [--run R] [--call ID] [--tool T] [--quiet] [--shell SH] -- <command…>
                               Run a command (with bash -c, or SH -c); its output
                               streams into a value. A small output is given back as it came
                               (stdout and stderr apart); a big one is the stub. Exits with the
                               command's status (128 + n for signal n). --command-fd N reads the
                               command line from descriptor N instead of after --.
  peek <id> [--run R] [--lines A:B | --grep Q [-i] [-E] [--context N] | --landmark KIND]
                               Read a retained value: numbered lines, at most 400 / 16 KiB.
  ls [run]                     The runs (newest first), or one run's values.
  import <file> [--format F] [--run R] [--if-exists error|replace|new]
                               Import an agent's session (Claude Code, Codex, Gemini CLI, Qwen Code, Copilot CLI, Cline).
  replay <run> [--shape S] [--view sent|retained] [--policy]
                               The history a model is sent next, rebuilt from the run.
  export <run> [--format markdown|html|json] [--model-call K]
                               The run (or what model call K was sent) as a report to attach to
                               a bug: Markdown, one self-contained HTML file, or JSON.
  usage <run> [--view sent|retained] [--policy | --full] [--prices FILE]
                               Each model call's tokens by part, its prompt-cache reads and
                               writes, and its cost; the run's totals: the provider's own counts
                               where the agent's file has them, else estimated (the basis column).
                               --full: every result in full (what it would have cost without
                               Retained Outputs). --prices: a JSON file of prices by model name
                               prefix, over the built-in table (as the setting retained.pricing).
  status                       Where the store is, what it holds, and its size against the quota.
  cleanup [--dry-run] [--quota BYTES] [--max-age DAYS]
                               Remove whole runs: those not written for 30 days (--max-age), then
                               the oldest while the store is over 2 GiB (--quota); never a pinned
                               run or one written in the last hour. --dry-run shows what would go.
  pin <run> [--off]            Keep a run from clean-ups (--off: let them remove it again).
  withhold <run> --call ID --tool T [--reason R]
                               Withhold the result on stdin from the model: its original goes to
                               withheld/ in the store; prints the notice the model gets.
  mcp [--run R]                An MCP server over stdio: peek_value, run_command, list_retained.
  hook claude-code             A Claude Code PostToolUse hook: big outputs become stubs.
  hook codex | hook gemini     A Codex PreToolUse / Gemini CLI BeforeTool hook: shell commands
                               run through \`retained run\`.
  hook qwen                    A Qwen Code PostToolUse hook: big shell outputs become stubs.
  hook copilot-cli             A GitHub Copilot CLI postToolUse hook: big outputs become stubs.
  hook opencode                What OpenCode's plugin hands over after a bash command: a big
                               output becomes a stub.
  lsp --stdio | --node-ipc     The language server (VS Code's extension starts it so).
  migrate --store postgres://…
                               Create or update a team store's schema in PostgreSQL, and its
                               roles retained_writer and retained_reader.
  push <run> --store postgres://… [--from DIR]
                               Upload a run of a folder store (values the team store holds are
                               not sent again).
  pull <run> --store postgres://… [--to DIR]
                               Bring a run of the team store down into a folder store.
  setup <agent> [--remove] [--dry-run] [--yes | --expect DIGEST] [--project DIR | --home DIR]
        [--node PATH]          Write the agent's own configuration, after showing what changes;
                               --remove takes it out again. --json answers the changes and their
                               digest; --expect DIGEST writes them only if they are still those.
                               The configuration starts this command line with --node, else the
                               node on PATH when it is this one, else this Node.
                               Each agent's files, in its home folder (--home, else the agent's
                               own variable, else ~/…):
${setupHelp()}

Options:
  --store DIR   The store (default: $RETAINED_STORE, else the nearest .retained above the current
                folder, else ./.retained); or a team store's postgres:// URL, which every
                command takes (the password from PGPASSWORD or ~/.pgpass, not the URL)
  --guard       Withhold outputs that hold secrets (keys, tokens) from the model (run, hook, mcp)
  --json        Answers as JSON
  -h, --help    This help
  --version     The version

Exit codes: 0 done, 1 could not be done (said why on stderr), 2 a wrong command line.
`;

/** The agents setup knows, from the agent table: an id, its files and where they go. */
function setupHelp(): string {
  return AGENT_IDS.map((id) => {
    const { config, home, setupIn } = AGENTS[id];
    const variable = `$${home.variable}${home.inside ? `/${home.inside}` : ''}`;
    const where = setupIn === 'project' ? 'the project (--project DIR)' : `${variable} or ~/${home.folder}`;
    return `${' '.repeat(31)}${id}: ${config.join(', ')} in ${where}`;
  }).join('\n');
}

class Usage extends Error {}

/** The commands only a team store has (teamStore.ts). */
const TEAM_COMMANDS = ['migrate', 'push', 'pull'] as const;
type TeamCommand = (typeof TEAM_COMMANDS)[number];

/** Standard input as dist/cli.js began to read it, for the hook that asked for it. */
let given: { head: Buffer; ended: boolean } | undefined;

export async function main(argv: readonly string[], stdin?: { head: Buffer; ended: boolean }): Promise<number> {
  given = stdin;
  const dash = argv.indexOf('--');
  const [before, after] = dash === -1 ? [argv, []] : [argv.slice(0, dash), argv.slice(dash + 1)];
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(before);
  } catch (err) {
    process.stderr.write(`retained: ${(err as Error).message}\nTry retained --help.\n`);
    return 2;
  }
  const { values: o, positionals } = parsed;
  if (o.version) {
    print(VERSION);
    return 0;
  }
  const [command, ...rest] = positionals;
  if (o.help || !command) {
    process.stdout.write(HELP);
    return command || o.help ? 0 : 2;
  }
  if (command === 'setup')
    return setup(
      rest[0] === undefined ? undefined : agentIdOf(rest[0]),
      {
        remove: o.remove,
        dryRun: o['dry-run'],
        yes: o.yes,
        project: o.project,
        home: o.home,
        expect: o.expect,
        json: o.json,
        node: o.node,
      },
      print,
      (text) => process.stderr.write(`${text}\n`),
    );
  const store = findStore(process.cwd(), o.store);
  if (isStoreUrl(store) && (TEAM_COMMANDS as readonly string[]).includes(command)) {
    const folder = findStore(process.cwd(), command === 'push' ? o.from : o.to, { folder: true });
    if (isStoreUrl(folder)) {
      process.stderr.write(`retained: --${command === 'push' ? 'from' : 'to'} takes a folder store\n`);
      return 2;
    }
    // node-postgres and the schema load only for these commands.
    const { teamCommand } = await import('./teamCommands');
    return teamCommand(command as TeamCommand, store, { run: rest[0], folder });
  }
  if (command === 'run' && isStoreUrl(store)) {
    const opened = await openTeamForRun(store);
    if (!opened.service)
      return runBeside(store, opened.why, o, after).catch((err: Error) => {
        process.stderr.write(`retained: ${err.message}${err instanceof Usage ? '\nTry retained --help.' : ''}\n`);
        return err instanceof Usage ? 2 : 1;
      });
    return runIn(opened.service, o, after, command, rest, store);
  }
  const service = new RetentionService(store, { workspace: process.cwd(), indexImports: false });
  return runIn(service, o, after, command, rest);
}

/** A team store `run` writes into, opened; or why it could not be (unreachable, a newer schema, no slot). */
async function openTeamForRun(store: string): Promise<{ service?: RetentionService; why: string }> {
  const service = new RetentionService(store, { workspace: process.cwd(), indexImports: false });
  try {
    await service.init();
    return { service, why: '' };
  } catch (err) {
    service.dispose();
    return { why: (err as Error).message.split('\n')[0]! };
  }
}

/**
 * The command of `run` when the team store cannot take it: it runs all the same (the team store's
 * trouble is never the command's), its output goes to the caller as it comes, and it is kept in
 * the folder store here, to push when the team store is back. The exit status is the command's.
 */
async function runBeside(team: string, why: string, o: Options, words: string[]): Promise<number> {
  const folder = findStore(process.cwd(), undefined, { folder: true });
  const service = new RetentionService(folder, { workspace: process.cwd(), indexImports: false });
  try {
    await service.init();
  } catch (err) {
    service.dispose();
    process.stderr.write(
      `retained: the team store could not take this command (${why}), nor ${folder} (${(err as Error).message})\n`,
    );
    // Nowhere to keep it: the command runs as it is, and only that.
    return runPlain(commandOf(o, words), o.shell ? shellOf(o.shell, o['shell-options']) : defaultShell());
  }
  try {
    const runId = o.run ?? 'cli';
    process.stderr.write(
      `retained: not recorded in ${shownUrl(team)}: ${why}; the output is given as it came, and kept in ${folder} (run ${runId}): \`retained push ${runId} --store …\` sends it later\n`,
    );
    return await run(service, { ...o, quiet: true }, words, { passThrough: true });
  } finally {
    service.dispose();
  }
}

async function runIn(
  service: RetentionService,
  o: Options,
  after: string[],
  command: string,
  rest: string[],
  /** The team store `service` is, opened already. */
  team?: string,
): Promise<number> {
  try {
    if (!team) await service.init();
    if (o.guard) service.updateSettings({ guard: { secrets: true } });
    switch (command) {
      case 'run':
        return await run(service, o, after, team ? { team } : {});
      case 'peek':
        return await peek(service, o, rest);
      case 'ls':
        return await ls(service, o, rest);
      case 'import':
        return await importFile(service, o, rest);
      case 'replay':
        return await replay(service, o, rest);
      case 'usage':
        return await usage(service, o, rest);
      case 'export': {
        if (!rest[0]) throw new Usage('export needs a run: retained export <run> [--format markdown|html|json]');
        const format = oneOf<ExportParams['format']>(o.format, ['json', 'markdown', 'html'], '--format') ?? 'markdown';
        const modelCall = whole(o['model-call'], '--model-call');
        const { text } = await service.inspection.export({
          runId: rest[0],
          format,
          ...(modelCall ? { modelCall } : {}),
        });
        process.stdout.write(text);
        return 0;
      }
      case 'status':
        return output(o, await service.status(), (s) =>
          [
            `store ${s.root}`,
            `${formatCount(s.runs, 'run')}, ${formatCount(s.values, 'value')}, ${formatBytes(s.valueBytes)} (${formatBytes(s.keptOutBytes)} kept out of context)`,
            `${formatBytes(s.storeBytes)} on disk${s.quotaBytes ? ` of a ${formatBytes(s.quotaBytes)} quota${s.overQuota ? ': over it, run retained cleanup --dry-run' : ''}` : ''}`,
            ...(s.withheld ? [`${formatCount(s.withheld, 'withheld original')} in withheld/`] : []),
            ...(s.tempFiles ? [`${formatCount(s.tempFiles, 'temp file')} of crashed writers`] : []),
          ].join('\n'),
        );
      case 'cleanup':
        return await cleanup(service, o);
      case 'withhold':
        return await withhold(service, o, rest);
      case 'pin': {
        if (!rest[0]) throw new Usage('pin takes a run: retained pin <run> [--off]');
        await service.cleaner.pin({ runId: rest[0], pinned: !o.off });
        print(o.off ? `run ${rest[0]} may be cleaned up again` : `run ${rest[0]} is kept from clean-ups`);
        return 0;
      }
      case 'mcp':
        // The MCP SDK loads only for this command.
        await (await import('../mcp/server')).serveMcp(service, {
          runId: o.run ?? `mcp-${timestamp()}`,
          workspace: process.cwd(),
        });
        return 0;
      case 'hook': {
        const agent = agentIdOf(rest[0] ?? '');
        const answer = Object.hasOwn(ADAPTERS, agent) ? ADAPTERS[agent as AgentId].hook : undefined;
        if (!answer) throw new Usage(`hook takes the agent: retained hook ${HOOK_AGENTS.join(', ')}`);
        return await runHook(service, agent, answer, o.guard === true, given ? handedOver(given) : undefined);
      }
      case 'migrate':
      case 'push':
      case 'pull':
        throw new Usage(`${command} works on a team store: retained ${command} … --store postgres://…`);
      default:
        throw new Usage(`unknown command ${JSON.stringify(command)}`);
    }
  } catch (err) {
    if (err instanceof Usage) {
      process.stderr.write(`retained: ${err.message}\nTry retained --help.\n`);
      return 2;
    }
    // A file system refusal is the user's to mend, so it is said in words; anything else is ours, with its stack.
    const words = inWords(err);
    const said = err instanceof InvalidInput || words !== (err as Error)?.message;
    process.stderr.write(`retained: ${said ? words : ((err as Error).stack ?? String(err))}\n`);
    return 1;
  } finally {
    if (command !== 'mcp') service.dispose();
  }
}

function parse(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      store: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean' },
      run: { type: 'string' },
      lines: { type: 'string' },
      grep: { type: 'string' },
      'ignore-case': { type: 'boolean', short: 'i' },
      regex: { type: 'boolean', short: 'E' },
      context: { type: 'string' },
      landmark: { type: 'string' },
      format: { type: 'string' },
      'if-exists': { type: 'string' },
      shape: { type: 'string' },
      view: { type: 'string' },
      'model-call': { type: 'string' },
      policy: { type: 'boolean' },
      full: { type: 'boolean' },
      prices: { type: 'string' },
      timeout: { type: 'string' },
      'dry-run': { type: 'boolean' },
      quota: { type: 'string' },
      quiet: { type: 'boolean' },
      'command-fd': { type: 'string' },
      shell: { type: 'string' },
      'shell-options': { type: 'string' },
      'max-age': { type: 'string' },
      off: { type: 'boolean' },
      guard: { type: 'boolean' },
      call: { type: 'string' },
      tool: { type: 'string' },
      reason: { type: 'string' },
      remove: { type: 'boolean' },
      yes: { type: 'boolean', short: 'y' },
      project: { type: 'string' },
      home: { type: 'string' },
      expect: { type: 'string' },
      node: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
    },
  });
}

type Options = ReturnType<typeof parse>['values'];

function print(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

/** Prints `value` as JSON with --json, else as `text(value)`. */
function output<T>(o: Options, value: T, text: (value: T) => string): number {
  print(o.json ? JSON.stringify(value, null, 2) : text(value));
  return 0;
}

function timestamp(): string {
  return new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
}

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], flag: string): T | undefined {
  if (value === undefined) return undefined;
  if (!allowed.includes(value as T))
    throw new Usage(`${flag} must be one of ${allowed.join(', ')} (got ${JSON.stringify(value)})`);
  return value as T;
}

function whole(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new Usage(`${flag} must be a whole number (got ${JSON.stringify(value)})`);
  return Number(value);
}

/** The signals `run` passes on to its command: every one a process may be sent to end or steer it. */
const PASSED_ON: readonly NodeJS.Signals[] = [
  'SIGINT',
  'SIGTERM',
  'SIGHUP',
  'SIGQUIT',
  'SIGUSR1',
  'SIGUSR2',
  'SIGWINCH',
];

/** A command run as it is, and nothing else: stdin, stdout and stderr the caller's, every signal passed on. */
function runPlain(line: string, shell: Shell): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(shell.file, [...shell.args, line], { stdio: 'inherit' });
    const pass = (signal: NodeJS.Signals) => child.kill(signal);
    for (const signal of PASSED_ON) process.on(signal, pass);
    const done = (status: number) => {
      for (const signal of PASSED_ON) process.off(signal, pass);
      resolve(status);
    };
    child.on('error', () => done(127));
    child.on('close', (code, signal) => done(exitStatus(code, signal)));
  });
}

/**
 * `retained run`: the command runs as it would without us (the shell it names, our stdin, our
 * signals passed on, its exit status ours), its output streamed into a value. A small output is
 * given back as it came, each byte on the stream it came on; a big one is the stub, on stdout.
 * With `passThrough` (the store is not the one asked for) every byte is given on as it comes.
 */
async function run(
  service: RetentionService,
  o: Options,
  words: string[],
  { passThrough = false, team }: { passThrough?: boolean; team?: string } = {},
): Promise<number> {
  const line = commandOf(o, words);
  const runId = o.run ?? 'cli';
  // An agent's hook names the call (its value then has the call's id); else a fresh one.
  const callId = o.call ?? `run-${timestamp()}-${randomBytes(3).toString('hex')}`;
  const timeoutSeconds = whole(o.timeout, '--timeout');
  const threshold = service.getSettings().thresholdBytes;
  // What the command printed, by stream, while it may still be small enough to give back as it came.
  let held: { stream: 1 | 2; chunk: Buffer }[] | undefined = [];
  let heldBytes = 0;
  // An output the team store could not take comes back whole in this file, to keep here instead.
  const keepTo = team ? join(tmpdir(), `retained-refused-${process.pid}-${randomBytes(6).toString('hex')}`) : undefined;
  const command = startCommand(
    service.retainer,
    {
      runId,
      callId,
      command: line,
      cwd: process.cwd(),
      stdin: 'inherit',
      ...(o.shell ? { shell: shellOf(o.shell, o['shell-options']) } : {}),
      ...(timeoutSeconds ? { timeoutMs: timeoutSeconds * 1000 } : {}),
      // Under Claude Code's shell prefix, the call ran the model's command inside Claude Code's script.
      arguments: { command: claudeScriptCommand(line) ?? line },
      ...(o.tool ? { tool: o.tool } : {}),
      onOutput: (stream, chunk) => {
        // Given on as it comes (the store is not the one asked for: the caller gets the output itself).
        if (passThrough) {
          (stream === 1 ? process.stdout : process.stderr).write(chunk);
          return;
        }
        if (!held) return;
        heldBytes += chunk.length;
        if (heldBytes > threshold) held = undefined;
        else held.push({ stream, chunk });
      },
    },
    keepTo ? { keepTo } : {},
  );
  const pass = (signal: NodeJS.Signals) => command.signal(signal);
  for (const signal of PASSED_ON) process.on(signal, pass);
  try {
    const result = await command.result;
    if (result.whole && team) {
      // The team store took the command but not its output: all of it to the caller, and kept here.
      await pipeline(createReadStream(result.whole), process.stdout, { end: false });
      await keepHere(team, { ...o, run: runId, call: callId, command: line }, result);
      return exitStatus(result.exitCode, result.signal);
    }
    if (passThrough) {
      // given already
    } else if (o.json) {
      print(JSON.stringify({ runId, ...result }, null, 2));
    } else if (held && !result.retained && !result.withheld) {
      for (const { stream, chunk } of held) await writeOut(stream === 1 ? process.stdout : process.stderr, chunk);
    } else {
      await writeOut(process.stdout, result.content.endsWith('\n') ? result.content : `${result.content}\n`);
    }
    const status = result.timedOut
      ? `killed after ${timeoutSeconds} s`
      : result.signal
        ? `killed by ${result.signal}`
        : `exit ${result.exitCode}`;
    if (!o.json && (!o.quiet || result.warning))
      process.stderr.write(
        `retained: ${result.retained ? `#${result.valueId}` : result.withheld ? `withheld (${result.withheld.outcome})` : 'kept verbatim'} in run ${runId}: ${result.bytes} bytes, ${result.lines} lines, ${status}${result.warning ? ` (${result.warning})` : ''}\n`,
      );
    return exitStatus(result.exitCode, result.signal);
  } finally {
    for (const signal of PASSED_ON) process.off(signal, pass);
    if (keepTo) await rm(keepTo, { force: true });
  }
}

/**
 * Keeps an output the team store did not take in the folder store here, as `run` would have
 * kept it there (its call, exit and value), and says where: `retained push` sends it later.
 */
async function keepHere(
  team: string,
  o: Options & { run: string; call: string; command: string },
  result: CommandResult,
): Promise<void> {
  const folder = findStore(process.cwd(), undefined, { folder: true });
  const why = result.warning ?? 'the team store did not take it';
  const service = new RetentionService(folder, { workspace: process.cwd(), indexImports: false });
  try {
    await service.init();
    await service.retainer.retainFile({
      runId: o.run,
      callId: o.call,
      tool: o.tool ?? 'run_command',
      arguments: { command: o.command },
      path: result.whole!,
      isError: result.exitCode !== 0,
      exit: exitOf(result.exitCode, result.signal, result.timedOut),
      durationMs: result.durationMs,
    });
    process.stderr.write(
      `retained: not recorded in ${shownUrl(team)} (${why}); the output is given as it came, on stdout, and kept in ${folder} (run ${o.run}): \`retained push ${o.run} --store …\` sends it later\n`,
    );
  } catch (err) {
    process.stderr.write(
      `retained: not recorded in ${shownUrl(team)} (${why}), nor in ${folder} (${(err as Error).message}); the output is given as it came, on stdout\n`,
    );
  } finally {
    service.dispose();
  }
}

/** Stdin as the hook reads it: what dist/cli.js read of it, then the rest. */
function handedOver({ head, ended }: { head: Buffer; ended: boolean }): NodeJS.ReadableStream {
  return Readable.from(
    (async function* () {
      yield head;
      if (!ended) yield* process.stdin;
    })(),
  );
}

/** The shell `run` starts: the one named, as a login shell when its options (bash's BASHOPTS) say it was one. */
function shellOf(file: string, options = ''): Shell {
  return { file, args: options.split(':').includes('login_shell') ? ['-l', '-c'] : ['-c'] };
}

/**
 * The command line `run` runs: read whole from a descriptor (`--command-fd 3`, a hook's rewrite
 * hands it over in a here-document: no quoting, no argument-size limit), or after `--`, where one
 * word is a command line for the shell and several are the words of one command, quoted for it.
 */
function commandOf(o: Options, words: string[]): string {
  const fd = whole(o['command-fd'], '--command-fd');
  if (fd !== undefined) {
    if (words.length > 0) throw new Usage('run takes its command from --command-fd or after --, not both');
    const text = readFileSync(fd, 'utf8');
    // A here-document ends with a newline the command line did not have.
    return text.endsWith('\n') ? text.slice(0, -1) : text;
  }
  if (words.length === 0) throw new Usage('run needs a command after --: retained run -- make test');
  return words.length === 1 ? words[0]! : words.map(shellQuote).join(' ');
}

/** Writes all of `data`, waiting while the reader is slow (a pipe to an agent). */
function writeOut(stream: NodeJS.WriteStream, data: Buffer | string): Promise<void> {
  return new Promise((resolve) => {
    if (stream.write(data)) resolve();
    else stream.once('drain', resolve);
  });
}

async function peek(service: RetentionService, o: Options, rest: string[]): Promise<number> {
  const [id] = rest;
  if (!id) throw new Usage('peek needs the value id from the stub: retained peek toolu_01ABC --grep error');
  const request: Parameters<RetentionService['values']['peek']>[0] = {
    valueId: id,
    ...(o.run ? { runId: o.run } : {}),
  };
  if (o.lines) {
    const match = /^(\d+)(?::(\d+))?$/.exec(o.lines);
    if (!match) throw new Usage(`--lines takes A:B (got ${JSON.stringify(o.lines)})`);
    request.start = Number(match[1]);
    if (match[2]) request.end = Number(match[2]);
  }
  if (o.grep !== undefined)
    Object.assign(request, {
      query: o.grep,
      ...(o['ignore-case'] ? { ignoreCase: true } : {}),
      ...(o.regex ? { regex: true } : {}),
    });
  const context = whole(o.context, '--context');
  if (context !== undefined) request.context = context;
  const landmark = oneOf<LandmarkKind>(o.landmark, LANDMARK_KINDS, '--landmark');
  if (landmark) request.landmark = landmark;
  return output(o, await service.values.peek(request), (answer) => answer.text);
}

async function withhold(service: RetentionService, o: Options, rest: string[]): Promise<number> {
  const [runId] = rest;
  if (!runId || !o.call || !o.tool)
    throw new Usage('withhold takes a run, --call and --tool: retained withhold <run> --call ID --tool T < output');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const result = await service.withholder.withhold({
    runId,
    results: [
      {
        callId: o.call,
        tool: o.tool,
        text: Buffer.concat(chunks).toString('utf8'),
        ...(o.reason ? { reason: o.reason } : {}),
      },
    ],
  });
  const [first] = result.results;
  return output(o, result, () => first!.content);
}

async function cleanup(service: RetentionService, o: Options): Promise<number> {
  const quotaBytes = whole(o.quota, '--quota');
  const maxAgeDays = whole(o['max-age'], '--max-age');
  if (quotaBytes !== undefined || maxAgeDays !== undefined)
    service.updateSettings({
      cleanup: {
        ...(quotaBytes !== undefined ? { quotaBytes } : {}),
        ...(maxAgeDays !== undefined ? { maxAgeDays } : {}),
      },
    });
  const result = await service.cleaner.cleanup({ dryRun: o['dry-run'] ?? false });
  return output(o, result, (r) =>
    [
      ...r.removed.map(
        (run) =>
          `${r.dryRun ? 'would remove' : 'removed'} ${run.name}\t${formatBytes(run.bytes)}\t${run.reason === 'age' ? `not written since ${run.lastWrite}` : 'oldest while over the quota'}`,
      ),
      `${r.dryRun ? 'would free' : 'freed'} ${formatBytes(r.freedBytes)}: ${formatBytes(r.storeBytesBefore)} → ${formatBytes(r.storeBytesAfter)}${r.quotaBytes ? ` (quota ${formatBytes(r.quotaBytes)})` : ''}`,
      ...(r.spared.pinned || r.spared.recent
        ? [
            `spared: ${formatCount(r.spared.pinned, 'pinned run')}, ${formatCount(r.spared.recent, 'run')} written in the last hour`,
          ]
        : []),
    ].join('\n'),
  );
}

async function ls(service: RetentionService, o: Options, rest: string[]): Promise<number> {
  const [runId] = rest;
  if (runId) {
    const { values } = await service.values.list({ runId, limit: VALUES_PAGE_MAX });
    return output(o, values, (list) =>
      list.length
        ? list.map((v) => `${v.valueId}\t${v.tool}\t${v.bytes} bytes\t${v.lines} lines\t${v.createdAt}`).join('\n')
        : `no values in run ${runId}`,
    );
  }
  const runs = await service.listRuns();
  return output(o, runs, (list) =>
    list.length
      ? list
          .map(
            (r) =>
              `${r.runId}\t${r.valueCount} values\t${r.keptOutBytes} bytes kept out\t${r.updatedAt}${r.name !== r.runId ? `\t${r.name}` : ''}`,
          )
          .join('\n')
      : `no runs in ${service.store.where}`,
  );
}

async function importFile(service: RetentionService, o: Options, rest: string[]): Promise<number> {
  const [path] = rest;
  if (!path) throw new Usage('import needs a file: retained import ~/.claude/projects/…/<session>.jsonl');
  const format = oneOf<ImportFormat>(o.format, IMPORT_FORMATS, '--format');
  const ifExists = oneOf<IfExists>(o['if-exists'], IF_EXISTS, '--if-exists');
  const result = await service.importer.import({
    path,
    ...(format ? { format } : {}),
    ...(o.run ? { runId: o.run } : {}),
    ...(ifExists ? { ifExists } : {}),
  });
  // No index is made here (its token counts take longer than the import): a language server
  // watching the store makes it once the run is quiet, so the inspector's first open is quick.
  return output(
    o,
    result,
    (r) =>
      `imported ${r.format} session as run ${r.runId}: ${r.events} events, ${r.toolCalls} tool calls, ${r.retained} retained${r.subagents.length ? `, ${r.subagents.length} subagent runs` : ''}`,
  );
}

async function replay(service: RetentionService, o: Options, rest: string[]): Promise<number> {
  const [runId] = rest;
  if (!runId) throw new Usage('replay needs a run: retained replay <run> --shape anthropic');
  const shape = oneOf<ReplayShape>(o.shape, REPLAY_SHAPES, '--shape') ?? 'text';
  const view = oneOf<View>(o.view, VIEWS, '--view');
  const result = await service.history.replay({
    runId,
    shape,
    ...(view ? { view } : {}),
    ...(o.policy ? { policy: true } : {}),
  });
  return output(o, result, (r) => (r.shape === 'text' ? r.text : JSON.stringify(r.messages, null, 2)));
}

async function usage(service: RetentionService, o: Options, rest: string[]): Promise<number> {
  const [runId] = rest;
  if (!runId) throw new Usage('usage needs a run: retained usage <run> [--view retained] [--policy]');
  const view = oneOf<View>(o.view, VIEWS, '--view');
  if (o.prices !== undefined) {
    let pricing: unknown;
    try {
      pricing = JSON.parse(readFileSync(o.prices, 'utf8'));
    } catch (err) {
      throw new Usage(`--prices ${o.prices}: ${(err as Error).message}`);
    }
    service.updateSettings({ pricing: pricing as Record<string, Price> });
  }
  const result = await service.inspection.usage({
    runId,
    ...(view ? { view } : {}),
    ...(o.policy ? { policy: true } : {}),
    ...(o.full ? { full: true } : {}),
  });
  const usd = (n: number | undefined) => (n === undefined ? '' : `\t$${n.toFixed(4)}`);
  return output(o, result, (r) =>
    [
      `model call\ttokens\tuncached\tcache read\tcache write\t(1 hour)\toutput${r.price ? '\tUSD' : ''}\tbasis\tlargest parts`,
      ...r.modelCalls.slice(0, -1).map((c) => {
        const largest = Object.entries(c.parts)
          .filter(([, n]) => n > 0)
          .sort((a, b) => b[1] - a[1])
          .slice(0, 3)
          .map(([part, n]) => `${part} ${n}`)
          .join(', ');
        const broke =
          c.breakReason && c.breakReason !== 'first' ? ` (cache broke at event #${c.breakAt}: ${c.breakReason})` : '';
        return `${c.modelCall}\t${c.total}\t${c.cache.uncached}\t${c.cache.read}\t${c.cache.write}\t${c.cache.write1h}\t${c.output}${usd(c.usd)}\t${c.basis}\t${largest}${broke}`;
      }),
      `total\t${r.totals.total}\t${r.totals.cache.uncached}\t${r.totals.cache.read}\t${r.totals.cache.write}\t${r.totals.cache.write1h}\t${r.totals.output}${usd(r.totals.usd)}\t${r.totals.counted} of ${r.modelCalls.length - 1} calls the provider's counts`,
      ...(r.subagents ?? []).map(
        (a) =>
          `subagent ${a.runId}\t${a.total}\t\t\t\t\t${a.output}${usd(a.usd)}\t${a.counted} of ${a.modelCalls} calls the provider's counts`,
      ),
      ...(r.session
        ? [
            `session (with its subagents)\t${r.session.total}\t\t\t\t\t${r.session.output}${usd(r.session.usd)}\t${r.session.counted} of ${r.session.modelCalls} calls the provider's counts`,
          ]
        : []),
      ...(r.providerError
        ? [
            `the provider counted ${r.providerError.calls} of these calls: the estimate of what each added is off by ${(r.providerError.median * 100).toFixed(0)} % (median), ${(r.providerError.max * 100).toFixed(0)} % at most; ${r.providerError.unrecorded} tokens a call (median) are not in the file (a system prompt, tools)`,
          ]
        : []),
      r.price
        ? `${r.model}: $${r.price.input}/M input, $${r.price.cacheRead}/M cache read, $${r.price.cacheWrite}/M cache write (5 minutes), $${r.price.cacheWrite1h ?? r.price.cacheWrite}/M (1 hour), $${r.price.output}/M output (prices of ${r.price.asOf})`
        : `no price for ${r.model ?? 'an unnamed model'}: tokens only (give one with --prices, or the setting retained.pricing)`,
      `tokens: ${r.tokenizer}`,
    ].join('\n'),
  );
}
