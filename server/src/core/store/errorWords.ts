/**
 * A file system's refusal in the user's words: what could not be done, where, and why, with the
 * code last for a search ("EROFS: read-only file system, open '…/runs/x.jsonl.tmp-1-ab'" says
 * neither which store nor what to do).
 */

import { dirname } from 'node:path';

const WHY: Record<string, string> = {
  EROFS: 'it is on a read-only file system',
  EACCES: 'permission denied',
  EPERM: 'the operation is not permitted',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EMFILE: 'too many files are open in the language server',
  ENFILE: 'too many files are open on this machine',
};

/** The error's message in words when it is a file system refusal; else its message as it is. */
export function inWords(err: unknown): string {
  const { code, path, syscall, message } = (err ?? {}) as {
    code?: unknown;
    path?: unknown;
    syscall?: unknown;
    message?: unknown;
  };
  const why = typeof code === 'string' ? WHY[code] : undefined;
  const text = typeof message === 'string' ? message : String(err);
  if (!why || typeof path !== 'string') return text;
  const doing =
    syscall === 'open' || syscall === 'write' || syscall === 'rename' || syscall === 'mkdir' ? 'write to' : 'use';
  return `Could not ${doing} ${dirname(path)}: ${why} (${code}).`;
}
