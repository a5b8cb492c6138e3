/**
 * The names of the store's files, spelled once: a run's files, a value's, and the temp files
 * writers make (named after the writing process, so a crash's leftovers are known as such).
 */
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { ID_CHARS } from '../../../../shared/ids';

/** A run's transcript or values folder under `runs/`, and the run id it names. */
export const RUN_FILE = new RegExp(`^(${ID_CHARS}+)\\.(jsonl|values)$`);
export const VALUE_EXT = '.txt';
const TMP_MARK = '.tmp-';

/** A fresh temp file in `dir` (for a value), or beside `path` (for a whole transcript). */
export function tempPath(dir: string, beside?: string): string {
  const unique = `${process.pid}-${randomBytes(6).toString('hex')}`;
  return beside ? join(dirname(beside), `${basename(beside)}${TMP_MARK}${unique}`) : join(dir, `${TMP_MARK}${unique}`);
}

/** Whether a file name is a writer's temp file. */
export function isTemp(name: string): boolean {
  return name.startsWith(TMP_MARK) || name.includes(`.jsonl${TMP_MARK}`);
}

/** The pid of the process that made a temp file, from its name. */
export function tempWriter(name: string): number | undefined {
  const pid = Number(/tmp-(\d+)-/.exec(name)?.[1]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}
