/**
 * Where agents keep their sessions, and what each one is, read from the file's first lines
 * only: Claude Code under `$CLAUDE_CONFIG_DIR/projects/<workspace path, / and . as ->/`, Codex
 * under `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl` (those whose `cwd` is the workspace),
 * Gemini CLI under `~/.gemini/tmp/<project>/chats/session-*.jsonl` (those whose `projectHash` is
 * the workspace's), Qwen Code under `$QWEN_HOME/projects/<workspace path, each non-alphanumeric
 * character as ->/chats/*.jsonl`, GitHub Copilot CLI under
 * `$COPILOT_HOME/session-state/<session>/events.jsonl` and Cline under
 * `$CLINE_DIR/data/sessions/<session>/<session>.messages.json` (those whose `cwd` is the workspace).
 * No VS Code here, so it is tested on real session files.
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { type AgentId, agentHome, type ImportFormat } from '../../shared/agents';

export type Agent = Exclude<ImportFormat, 'copilot-chat'>;

export interface AgentSession {
  agent: Agent;
  path: string;
  mtimeMs: number;
  /** When its last record was written, by the record's own time (a copied file is new, its session old); else mtimeMs. */
  lastAt: number;
  /** The first thing the user asked, cut short. */
  title: string;
  /** The run an import makes of it, when not named after the file (a Gemini CLI chat's session id). */
  run?: string;
}

/** How much of a session file is read to name it. */
const HEAD_BYTES = 256 * 1024;
/** How much of its end is read for the time of its last record. */
const TAIL_BYTES = 64 * 1024;
const TITLE_CHARS = 80;
/** Sessions listed, newest first. */
export const SESSIONS_MAX = 50;
/** Session files looked at per agent where an agent keeps every workspace's together: the newest. */
const LOOKED_MAX = 500;

/** An agent's home folder, as the agent finds it (the agent table says how). */
const home = (agent: AgentId, env: NodeJS.ProcessEnv) => agentHome(agent, homedir(), env);

export function claudeCodeDir(workspace: string, env = process.env): string {
  return join(home('claude-code', env), 'projects', workspace.replace(/[/.]/g, '-'));
}

export function codexDir(env = process.env): string {
  return join(home('codex', env), 'sessions');
}

/** Gemini CLI's folders of projects, each with its `chats/`. */
export function geminiDir(env = process.env): string {
  return join(home('gemini', env), 'tmp');
}

export function qwenDir(workspace: string, env = process.env): string {
  return join(home('qwen', env), 'projects', workspace.replace(/[^a-zA-Z0-9]/g, '-'), 'chats');
}

export function copilotCliDir(env = process.env): string {
  return join(home('copilot-cli', env), 'session-state');
}

export function clineDir(env = process.env): string {
  return join(home('cline', env), 'data', 'sessions');
}

function headLines(path: string): string[] {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const read = readSync(fd, buffer, 0, HEAD_BYTES, 0);
    const lines = buffer.subarray(0, read).toString('utf8').split('\n');
    if (read === HEAD_BYTES) lines.pop(); // cut short
    return lines;
  } finally {
    closeSync(fd);
  }
}

/** The time of the last record with a `timestamp` (both agents stamp their records), from the file's end. */
export function lastRecordTime(path: string, size: number): number | undefined {
  const fd = openSync(path, 'r');
  try {
    const length = Math.min(size, TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    const read = readSync(fd, buffer, 0, length, size - length);
    const text = buffer.subarray(0, read).toString('utf8');
    const stamps = [...text.matchAll(/"timestamp"\s*:\s*"([^"]{10,40})"/g)];
    for (let i = stamps.length - 1; i >= 0; i--) {
      const at = Date.parse(stamps[i]![1]!);
      if (Number.isFinite(at)) return at;
    }
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function parse(line: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(line) as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const short = (text: string) => {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > TITLE_CHARS ? `${one.slice(0, TITLE_CHARS - 1)}…` : one;
};

/** A Claude Code session's first typed prompt (not a tool result, not a command record). */
export function claudeCodeTitle(lines: readonly string[]): string | undefined {
  for (const line of lines) {
    const record = parse(line);
    if (record?.type !== 'user' || record.isMeta === true) continue;
    const content = (record.message as { content?: unknown } | undefined)?.content;
    const text =
      typeof content === 'string'
        ? content
        : Array.isArray(content)
          ? (content.find((b) => (b as { type?: string }).type === 'text') as { text?: string } | undefined)?.text
          : undefined;
    if (text && !text.startsWith('<')) return short(text);
  }
  return undefined;
}

/** A Codex rollout's workspace and first prompt (its environment and instructions are not prompts). */
export function codexFacts(lines: readonly string[]): { cwd?: string; title?: string } {
  const facts: { cwd?: string; title?: string } = {};
  for (const line of lines) {
    const record = parse(line);
    const payload = record?.payload as Record<string, unknown> | undefined;
    if (record?.type === 'session_meta' && typeof payload?.cwd === 'string') facts.cwd = payload.cwd;
    if (
      record?.type === 'response_item' &&
      payload?.type === 'message' &&
      payload.role === 'user' &&
      Array.isArray(payload.content)
    ) {
      const text = (payload.content as { text?: string }[]).map((b) => b.text ?? '').join('\n');
      if (text && !text.startsWith('<')) {
        facts.title = short(text);
        break;
      }
    }
  }
  return facts;
}

/** The first typed prompt of contents (`{text}` parts), not text the agent added (`<session_context>`). */
function firstPrompt(parts: unknown): string | undefined {
  if (typeof parts === 'string') return parts.startsWith('<') ? undefined : parts;
  if (!Array.isArray(parts)) return undefined;
  const text = (parts as { text?: unknown }[]).map((p) => (typeof p.text === 'string' ? p.text : '')).join('\n');
  return text && !text.startsWith('<') ? text : undefined;
}

interface Facts {
  /** What names the workspace: its path, or (Gemini CLI) the SHA-256 of it. */
  cwd?: string;
  /** The run an import makes of it, where not named after the file. */
  run?: string;
  title?: string;
}

/** Facts from a session's first records, up to its first prompt: `read` says what one record tells. */
function factsOf(lines: readonly string[], read: (record: Record<string, unknown>) => Facts): Facts {
  const facts: Facts = {};
  for (const line of lines) {
    const record = parse(line);
    if (!record) continue;
    const { cwd, run, title } = read(record);
    facts.cwd ??= cwd;
    facts.run ??= run;
    if (title) {
      facts.title = short(title);
      break;
    }
  }
  return facts;
}

const str = (value: unknown) => (typeof value === 'string' && value ? value : undefined);

/** A Gemini CLI chat's project (the SHA-256 of its path), session id and first prompt. */
export const geminiFacts = (lines: readonly string[]) =>
  factsOf(lines, (r) => ({
    cwd: str(r.projectHash),
    run: str(r.sessionId),
    title: r.type === 'user' ? firstPrompt(r.content) : undefined,
  }));

/** A Qwen Code chat's workspace and first prompt. */
export const qwenFacts = (lines: readonly string[]) =>
  factsOf(lines, (r) => ({
    cwd: str(r.cwd),
    title: r.type === 'user' ? firstPrompt((r.message as { parts?: unknown } | undefined)?.parts) : undefined,
  }));

/** A Copilot CLI session's workspace and first prompt. */
export const copilotCliFacts = (lines: readonly string[]) =>
  factsOf(lines, (r) => {
    const data = r.data as { context?: { cwd?: unknown }; content?: unknown } | undefined;
    return {
      cwd: r.type === 'session.start' ? str(data?.context?.cwd) : undefined,
      title: r.type === 'user.message' ? str(data?.content) : undefined,
    };
  });

/** A Cline session's workspace and prompt, from its manifest (`<session>.json`, beside its messages). */
export function clineFacts(manifest: string): { cwd?: string; title?: string } {
  const record = parse(manifest);
  return {
    ...(typeof record?.cwd === 'string' ? { cwd: record.cwd } : {}),
    ...(typeof record?.prompt === 'string' && record.prompt ? { title: short(record.prompt) } : {}),
  };
}

const isFile = (path: string) => {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

/** A folder's subfolders (one per session), the most recently changed first, at most LOOKED_MAX. */
function newestFolders(dir: string): { name: string }[] {
  const folders = list(dir).flatMap((e) => {
    if (!e.isDirectory()) return [];
    try {
      return [{ name: e.name, mtimeMs: statSync(join(dir, e.name)).mtimeMs }];
    } catch {
      return [];
    }
  });
  return folders.sort((a, b) => b.mtimeMs - a.mtimeMs).slice(0, LOOKED_MAX);
}

const list = (dir: string) => {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
};

/** What a file's first lines said (its title, its workspace): they do not change as it grows. */
export type FactsCache = Map<
  string,
  { title?: string | undefined; cwd?: string | undefined; run?: string | undefined; last?: Last }
>;
/** The time of a file's last record, for the size and mtime it was read at. */
interface Last {
  size: number;
  mtimeMs: number;
  at: number;
}

/** This workspace's sessions of every agent, newest first. */
export function findSessions(workspace: string, env = process.env, cache: FactsCache = new Map()): AgentSession[] {
  const facts = (
    path: string,
    read: (lines: string[]) => { title?: string | undefined; cwd?: string | undefined; run?: string | undefined },
  ) => {
    let known = cache.get(path);
    if (!known?.title) {
      known = read(headLines(path));
      cache.set(path, known);
    }
    return known;
  };
  /** The file's times, its last record's read again only when it changed. */
  const times = (path: string) => {
    const { size, mtimeMs } = statSync(path);
    const known = cache.get(path);
    let last = known?.last;
    if (!last || last.size !== size || last.mtimeMs !== mtimeMs) {
      last = { size, mtimeMs, at: lastRecordTime(path, size) ?? mtimeMs };
      if (known) known.last = last;
    }
    return { mtimeMs, lastAt: last.at };
  };
  const found: AgentSession[] = [];
  const claude = claudeCodeDir(workspace, env);
  for (const entry of list(claude)) {
    if (!entry.isFile() || !entry.name.endsWith('.jsonl')) continue;
    const path = join(claude, entry.name);
    const { title } = facts(path, (lines) => ({ title: claudeCodeTitle(lines) }));
    if (title) found.push({ agent: 'claude-code', path, ...times(path), title });
  }
  // Codex keeps every workspace's rollouts together, by day: the newest days first, a bounded number of files.
  const root = codexDir(env);
  const days: string[] = [];
  for (const year of list(root)
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort()
    .reverse())
    for (const month of list(join(root, year))
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort()
      .reverse())
      for (const day of list(join(root, year, month))
        .filter((e) => e.isDirectory())
        .map((e) => e.name)
        .sort()
        .reverse())
        days.push(join(root, year, month, day));
  let looked = 0;
  for (const day of days) {
    for (const entry of list(day)) {
      if (!entry.isFile() || !/^rollout-.*\.jsonl$/.test(entry.name) || looked++ > LOOKED_MAX) continue;
      const path = join(day, entry.name);
      const { cwd, title } = facts(path, codexFacts);
      if (cwd === workspace) found.push({ agent: 'codex', path, ...times(path), title: title ?? entry.name });
    }
    if (looked > LOOKED_MAX) break;
  }
  // Gemini CLI keeps a folder per project: its chats name the project by the hash of its path.
  const hash = createHash('sha256').update(workspace).digest('hex');
  for (const project of list(geminiDir(env)).filter((e) => e.isDirectory())) {
    const chats = join(geminiDir(env), project.name, 'chats');
    for (const entry of list(chats)) {
      if (!entry.isFile() || !/^session-.*\.jsonl$/.test(entry.name)) continue;
      const path = join(chats, entry.name);
      const { cwd, title, run } = facts(path, geminiFacts);
      if (cwd === hash && title)
        found.push({ agent: 'gemini-cli', path, ...times(path), title, ...(run ? { run } : {}) });
    }
  }
  for (const folder of newestFolders(copilotCliDir(env))) {
    const path = join(copilotCliDir(env), folder.name, 'events.jsonl');
    if (!isFile(path)) continue;
    const { cwd, title } = facts(path, copilotCliFacts);
    if (cwd === workspace && title) found.push({ agent: 'copilot-cli', path, ...times(path), title, run: folder.name });
  }
  for (const folder of newestFolders(clineDir(env))) {
    const path = join(clineDir(env), folder.name, `${folder.name}.messages.json`);
    const manifest = join(clineDir(env), folder.name, `${folder.name}.json`);
    if (!isFile(path) || !isFile(manifest)) continue;
    const { cwd, title } = facts(path, () => clineFacts(headLines(manifest).join('\n')));
    if (cwd === workspace && title) found.push({ agent: 'cline', path, ...times(path), title, run: folder.name });
  }
  const qwen = qwenDir(workspace, env);
  for (const entry of list(qwen)) {
    if (!entry.isFile() || !entry.name.endsWith('.jsonl')) continue;
    const path = join(qwen, entry.name);
    const { cwd, title } = facts(path, qwenFacts);
    if (cwd === workspace && title) found.push({ agent: 'qwen-code', path, ...times(path), title });
  }
  return found.sort((a, b) => b.lastAt - a.lastAt).slice(0, SESSIONS_MAX);
}
