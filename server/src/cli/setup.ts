/**
 * `retained setup <agent> [--remove]`: writes an agent's own configuration for Retained Outputs
 * (its row of agentAdapters.ts says what), after showing exactly what changes. On a terminal it
 * asks first; from a script it writes only with `--yes`, or `--expect` the digest of what it showed;
 * `--dry-run` only shows. With `--json` it answers a SetupAnswer (VS Code's Set Up runs it so:
 * `--dry-run` for the preview, then `--expect`). Each file is written whole or not at all (a
 * temp file renamed into place). The configuration names this command line where it is now: run
 * it from a path that outlives an upgrade (VS Code's Set Up runs the stable copy in the
 * extension's storage; an npm install is stable too).
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { AGENT_IDS, AGENTS, type AgentId, agentHome } from '../../../shared/agents';
import type { Launcher } from '../../../shared/launcher';
import type { FileChange, SetupAnswer } from '../../../shared/setupAnswer';
import { sha256Hex as sha256 } from '../core/text/bytes';
import { ADAPTERS } from './agentAdapters';
import { selfLauncher } from './commandHooks';
import type { Read, Sha256 } from './setupEdits';
import { applyChanges, readConfig as read } from './setupFiles';

/** The places setup may write: the project, and the agent's home folder (its row's `setupIn` says which). */
export interface SetupPlaces {
  project?: string | undefined;
  /** The agent's home folder (agentHome: as the agent finds it). */
  home?: string | undefined;
}

/** What setting up (or, with `remove`, taking out) an agent changes; nothing when there is nothing to do. */
export function setupChanges(
  agent: AgentId,
  places: SetupPlaces,
  launcher: Launcher,
  read: Read,
  { remove = false, sha256 }: { remove?: boolean | undefined; sha256: Sha256 },
): FileChange[] {
  return ADAPTERS[agent]
    .setup(setupFolder(agent, places), launcher, read, remove, sha256)
    .filter((c) => c.before !== c.after);
}

/** The folder an agent's setup writes: the project or its home, as its row says. */
function setupFolder(agent: AgentId, places: SetupPlaces): string {
  const project = AGENTS[agent].setupIn === 'project';
  const folder = project ? places.project : places.home;
  if (!folder)
    throw new Error(
      `setting up this agent needs ${project ? 'a project folder' : `${AGENTS[agent].name}'s home folder`}`,
    );
  return folder;
}

export interface SetupOptions {
  remove?: boolean | undefined;
  dryRun?: boolean | undefined;
  yes?: boolean | undefined;
  project?: string | undefined;
  /** The agent's home folder, where the agent would not find it from the environment. */
  home?: string | undefined;
  /** Write only the changes of this digest (the one a `--dry-run --json` answered). */
  expect?: string | undefined;
  /** Answer a SetupAnswer on stdout, and nothing else. */
  json?: boolean | undefined;
  /** The Node the configuration starts the command line with (VS Code's Set Up gives the one on PATH). */
  node?: string | undefined;
}

/**
 * The command line as the configuration names it: under `node` when given, else under the `node`
 * on PATH when it is this very Node (a link such as Homebrew's outlives an upgrade; the versioned
 * path it resolves to, which is all this process knows of itself, does not), else this Node.
 */
function configLauncher(node: string | undefined): Launcher {
  const self = selfLauncher();
  if (node !== undefined) return { ...self, node };
  if (self.env) return self;
  const me = realpathSync(process.execPath);
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    // A relative PATH entry names wherever the agent happens to start: never written down.
    const candidate = join(dir, process.platform === 'win32' ? 'node.exe' : 'node');
    if (!isAbsolute(dir) || !existsSync(candidate)) continue;
    try {
      if (realpathSync(candidate) === me) return { ...self, node: candidate };
    } catch {
      // A link that went: not this one.
    }
  }
  return self;
}

const CHANGED_SINCE =
  'the files changed since they were shown (another setup, or an edit): nothing written; run it again.';

const isFile = (path: string) => {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

/** The digest `--expect` takes: of the changes as `--json` answers them. */
const digestOf = (changes: readonly FileChange[]) => sha256(JSON.stringify(changes));

/** The lines that differ, between the lines both texts start and end with: `-` before, `+` after. */
export function lineDiff(before: string, after: string): string {
  const a = before.split('\n');
  const b = after.split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const context = (lines: string[]) => lines.map((l) => `  ${l}`);
  return [
    ...context(a.slice(Math.max(0, head - 2), head)),
    ...a.slice(head, a.length - tail).map((l) => `- ${l}`),
    ...b.slice(head, b.length - tail).map((l) => `+ ${l}`),
    ...context(a.slice(a.length - tail, Math.min(a.length, a.length - tail + 2))),
  ].join('\n');
}

function describe(change: FileChange): string {
  if (change.after === undefined) return `${change.path}: removed (it held only what setup wrote)`;
  if (change.before === undefined) return `${change.path}: a new file\n${lineDiff('', change.after)}`;
  return `${change.path}: changed\n${lineDiff(change.before, change.after)}`;
}

async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

/** Returns the exit code; `say` prints to stdout, `warn` to stderr. */
export async function setup(
  agent: string | undefined,
  options: SetupOptions,
  say: (text: string) => void,
  warn: (text: string) => void,
): Promise<number> {
  // With --json, stdout holds one answer, a failure's too.
  const answer = (a: SetupAnswer) => say(JSON.stringify(a));
  const fail = (message: string, code: number) => {
    if (options.json) answer({ error: message });
    else warn(`retained: ${message}`);
    return code;
  };
  if (!agent || !AGENT_IDS.includes(agent as AgentId))
    return fail(`setup takes the agent: ${AGENT_IDS.join(' or ')}${agent ? ` (got ${JSON.stringify(agent)})` : ''}`, 2);
  if (options.json && !options.dryRun && !options.yes && options.expect === undefined)
    return fail('--json answers without asking: pass --dry-run, --expect DIGEST or --yes', 2);
  if (options.node !== undefined && !(isAbsolute(options.node) && isFile(options.node)))
    return fail(`--node takes the full path of a Node binary (got ${JSON.stringify(options.node)})`, 2);
  const places = {
    project: resolve(options.project ?? process.cwd()),
    home: resolve(options.home ?? agentHome(agent as AgentId, homedir(), process.env)),
  };
  const launcher = configLauncher(options.node);
  const now = () => setupChanges(agent as AgentId, places, launcher, read, { remove: options.remove, sha256 });
  let changes: FileChange[];
  try {
    changes = now();
  } catch (err) {
    return fail((err as Error).message, 1);
  }
  const digest = digestOf(changes);
  // A digest that is not the changes' now is stale whatever is left to do: nothing is written.
  const stale = options.expect !== undefined && options.expect !== digest;
  if (options.json && (stale || options.dryRun || changes.length === 0)) {
    answer({ changes, digest, written: false });
    return stale ? 1 : 0;
  }
  if (!options.json) {
    if (stale) {
      if (changes.length > 0) say(changes.map(describe).join('\n\n'));
      return fail(CHANGED_SINCE, 1);
    }
    if (changes.length === 0) {
      say(options.remove ? `${agent}: nothing of Retained Outputs to remove.` : `${agent}: set up already.`);
      return 0;
    }
    say(changes.map(describe).join('\n\n'));
    if (options.dryRun) return 0;
    if (!options.yes && options.expect === undefined) {
      if (!process.stdin.isTTY) return fail('pass --yes to write this (or --dry-run to only show it).', 2);
      if (!(await confirm(`Write ${changes.length === 1 ? 'this change' : `these ${changes.length} changes`}? [y/N] `)))
        return 1;
    }
  }
  let done: { written: boolean; changes: FileChange[] };
  try {
    // Under the lock the files are read again. Asked first, or given a digest, what is written is
    // what was shown, or nothing; with --yes, what another writer changed meanwhile is kept, and
    // the change shown again.
    done = applyChanges(
      setupFolder(agent as AgentId, places),
      [places.home, places.project],
      changes,
      now,
      options.yes,
    );
  } catch (err) {
    return fail(`could not write the set-up: ${(err as Error).message}`, 1);
  }
  if (options.json) {
    answer({ changes: done.changes, digest: digestOf(done.changes), written: done.written });
    return done.written ? 0 : 1;
  }
  if (done.written && JSON.stringify(done.changes) !== JSON.stringify(changes))
    say(`They changed meanwhile; written instead:\n${done.changes.map(describe).join('\n\n')}`);
  if (!done.written) return fail(CHANGED_SINCE, 1);
  say(
    options.remove
      ? `${agent}: Retained Outputs removed.`
      : `${agent}: set up. Start a new session for it to take effect.`,
  );
  return 0;
}
