/**
 * What a tool call worked on, in a few words, from its arguments: the file it read, the command
 * it ran, the pattern it searched. It names a value in the sidebar and gives an opened value the
 * file's name, so a `.json` read opens as JSON.
 */

/**
 * Argument names that say what a call is about, most telling first: a search's pattern before
 * the folder it searched, so only a call about a file alone (a read) has a file subject.
 */
const SUBJECT_KEYS = ['command', 'cmd', 'pattern', 'query', 'url', 'file_path', 'filePath', 'path', 'description'];
/** Argument names that hold a file. */
const FILE_KEYS = new Set(['file_path', 'filePath', 'path']);
const MAX_CHARS = 80;

export interface CallSubject {
  /** One line, at most 80 characters. */
  text: string;
  /** True when `text` is a file's path. */
  isFile: boolean;
}

export function callSubject(args: unknown): CallSubject | undefined {
  const fields = asObject(args);
  if (!fields) return undefined;
  for (const key of SUBJECT_KEYS) {
    const value = fields[key];
    const text = Array.isArray(value) ? commandLine(value) : typeof value === 'string' ? value : undefined;
    const line = text?.replace(/\s+/g, ' ').trim();
    if (line) return { text: clip(line, FILE_KEYS.has(key)), isFile: FILE_KEYS.has(key) };
  }
  return undefined;
}

/** The last part of a file subject's path, where it is a file; undefined otherwise. */
export function subjectFileName(subject: CallSubject | undefined): string | undefined {
  if (!subject?.isFile) return undefined;
  const name = subject.text.split(/[\\/]/).pop()?.trim();
  return name && !name.startsWith('…') ? name : undefined;
}

/** Codex sends arguments as a JSON string; others as an object. */
function asObject(args: unknown): Record<string, unknown> | undefined {
  let value = args;
  if (typeof value === 'string' && value.length < 1 << 20) {
    try {
      value = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** `["bash", "-lc", "npm test"]` is the command `npm test`. */
function commandLine(parts: unknown[]): string | undefined {
  const words = parts.filter((p): p is string => typeof p === 'string');
  if (words.length !== parts.length) return undefined;
  if (words.length === 3 && /(^|\/)(ba|z)?sh$/.test(words[0]!) && /^-l?c$/.test(words[1]!)) return words[2];
  return words.join(' ');
}

/** A path keeps its end (the file's name); anything else its start. */
function clip(text: string, keepEnd: boolean): string {
  if (text.length <= MAX_CHARS) return text;
  return keepEnd ? `…${text.slice(text.length - MAX_CHARS + 1)}` : `${text.slice(0, MAX_CHARS - 1)}…`;
}
