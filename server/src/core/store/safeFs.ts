/**
 * File access that never leaves the store. A store can arrive from a cloned repository or an
 * archive, so any name in it may be a symbolic link to somewhere else: files are opened with
 * O_NOFOLLOW, and the folders on the way are checked to be real folders before each use. The
 * store's root itself is the user's choice and may be a link.
 */
import { constants, promises as fs } from 'node:fs';
import { dirname, relative, sep } from 'node:path';

/** A path in the store that is a link, or not what it should be; the message names it. */
export class StoreEscape extends Error {}

const NOFOLLOW = constants.O_NOFOLLOW;

/** Throws a StoreEscape unless `dir` is a real folder (not a link); false when it does not exist. */
export async function realDir(dir: string): Promise<boolean> {
  const stat = await fs.lstat(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (!stat) return false;
  if (stat.isSymbolicLink()) throw new StoreEscape(`${dir} is a symbolic link: the store does not follow links`);
  if (!stat.isDirectory()) throw new StoreEscape(`${dir} is not a folder`);
  return true;
}

/** Checks every folder from `root` (exclusive) down to `path`'s parent. */
export async function checkParents(root: string, path: string): Promise<void> {
  const rel = relative(root, dirname(path));
  if (rel.startsWith('..')) throw new StoreEscape(`${path} is outside the store`);
  let dir = root;
  for (const part of rel ? rel.split(sep) : []) {
    dir = `${dir}${sep}${part}`;
    if (!(await realDir(dir))) return;
  }
}

/** Makes `dir` (and the folders on the way from `root`) as real folders; refuses links. */
export async function makeDir(root: string, dir: string): Promise<void> {
  const rel = relative(root, dir);
  if (rel.startsWith('..')) throw new StoreEscape(`${dir} is outside the store`);
  let at = root;
  for (const part of rel ? rel.split(sep) : []) {
    at = `${at}${sep}${part}`;
    if (await realDir(at)) continue;
    await fs.mkdir(at).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
    await realDir(at);
  }
}

/** Opens a file in the store without following a link at its name or on its way. */
export async function openFile(root: string, path: string, flags: number, mode = 0o644): Promise<fs.FileHandle> {
  await checkParents(root, path);
  try {
    return await fs.open(path, flags | NOFOLLOW, mode);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP')
      throw new StoreEscape(`${path} is a symbolic link: the store does not follow links`);
    throw err;
  }
}

export const READ = constants.O_RDONLY;
export const APPEND = constants.O_RDWR | constants.O_APPEND | constants.O_CREAT;
export const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL;

/** Reads a whole small file (a sidecar) without following links. */
export async function readFile(root: string, path: string): Promise<Buffer> {
  const handle = await openFile(root, path, READ);
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** The file's stat, refusing a link; undefined when it does not exist. */
export async function statFile(root: string, path: string): Promise<import('node:fs').Stats | undefined> {
  await checkParents(root, path);
  const stat = await fs.lstat(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (stat?.isSymbolicLink()) throw new StoreEscape(`${path} is a symbolic link: the store does not follow links`);
  return stat;
}

/** The names in a store folder; none when it does not exist; refuses a link. */
export async function listDir(root: string, dir: string): Promise<string[]> {
  await checkParents(root, `${dir}${sep}x`);
  return fs.readdir(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [] as string[];
    throw err;
  });
}
