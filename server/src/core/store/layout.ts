/**
 * The store's layout, spelled once: every folder and file name under the root, and the temp
 * files writers make (named after the writing process, so a crash's leftovers are known as such).
 *
 *   .gitignore                          `*`, so the store never reaches version control
 *   runs/<runId>.jsonl                  the run's transcript (see transcript.ts)
 *   runs/<runId>.meta.json              the run's name as its writer gave it, and when it began
 *   runs/<runId>.values/<valueId>.txt   a retained value, byte-identical to the result
 *   runs/<runId>.values/<valueId>.idx   its line index (rebuilt when missing or stale)
 *   runs/<runId>.values/<valueId>.meta.json   tool, call id, counts, hash, the stub
 *   runs/<runId>.pinned                 present while the run is kept from clean-ups
 *   runs/<runId>.index.json             the inspector's index of the run (derived, rebuilt when missing)
 *   runs/<runId>.lock                   held while a process changes the run's files (runLock.ts)
 *   blobs/<sha256>                      names the value file holding these bytes (blobs.ts)
 *   withheld/<date>-withheld-…txt       originals a guard withheld from the model (withhold/)
 *   audit.jsonl                         every withheld outcome and every clean-up removal, appended
 *   hook.log                            what the agents' hooks could not do (they never stop an agent to say it)
 */
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { ID_CHARS } from '../../../../shared/ids';

export const RUNS_DIR = 'runs';
export const BLOBS_DIR = 'blobs';
export const WITHHELD_DIR = 'withheld';
export const AUDIT_FILE = 'audit.jsonl';
export const HOOK_LOG = 'hook.log';
export const GITIGNORE = '.gitignore';

/** A run's files under `runs/`, by what they are. */
const RUN = {
  transcript: '.jsonl',
  values: '.values',
  meta: '.meta.json',
  pin: '.pinned',
  index: '.index.json',
  lock: '.lock',
} as const;
/** A value's files in its run's values folder. */
const VALUE = { text: '.txt', index: '.idx', meta: '.meta.json' } as const;

export const VALUE_EXT = VALUE.text;

/** A run's transcript or values folder under `runs/`, and the run id it names. */
export const RUN_FILE = new RegExp(`^(${ID_CHARS}+)\\.(jsonl|values)$`);
/** A run's own files under `runs/` (not its derived index or its lock): what its size and age are measured by. */
export const RUN_DATA = new RegExp(`^(${ID_CHARS}+)\\.(?:jsonl|values|meta\\.json|pinned)$`);
/** A value file of a run, relative to the store root (what a blob record may name). */
export const VALUE_FILE = new RegExp(`^${RUNS_DIR}/${ID_CHARS}+\\${RUN.values}/${ID_CHARS}+\\${VALUE.text}$`);

/** A run's file of one kind, in the runs folder `runsDir` (ids are checked where they enter). */
export function runFile(runsDir: string, runId: string, kind: keyof typeof RUN): string {
  return join(runsDir, `${runId}${RUN[kind]}`);
}

/** The name of a value's file of one kind, inside its run's values folder. */
export function valueFileName(valueId: string, kind: keyof typeof VALUE): string {
  return `${valueId}${VALUE[kind]}`;
}

/** Whether a name under `runs/` is a run's values folder. */
export function isValuesDir(name: string): boolean {
  return name.endsWith(RUN.values);
}

/** Whether a name under `runs/` is a run's pin marker. */
export function isPin(name: string): boolean {
  return name.endsWith(RUN.pin);
}

/** The name of a withheld original from the store-relative file an event records (`withheld/<name>.txt`). */
export function withheldName(file: string | undefined): string | undefined {
  const prefix = `${WITHHELD_DIR}/`;
  if (!file?.startsWith(prefix) || !file.endsWith(VALUE.text)) return undefined;
  const name = file.slice(prefix.length, -VALUE.text.length);
  return name.includes('/') ? undefined : name;
}

const TMP_MARK = '.tmp-';

/** A fresh temp file in `dir` (for a value), or beside `path` (for a whole transcript). */
export function tempPath(dir: string, beside?: string): string {
  const unique = `${process.pid}-${randomBytes(6).toString('hex')}`;
  return beside ? join(dirname(beside), `${basename(beside)}${TMP_MARK}${unique}`) : join(dir, `${TMP_MARK}${unique}`);
}

/** Whether a file name is a writer's temp file. */
export function isTemp(name: string): boolean {
  return name.startsWith(TMP_MARK) || name.includes(`${RUN.transcript}${TMP_MARK}`);
}

/** The pid of the process that made a temp file, from its name. */
export function tempWriter(name: string): number | undefined {
  const pid = Number(/tmp-(\d+)-/.exec(name)?.[1]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}
