/** Which store a command works on: the one named, else the one the workspace has. */
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { STORE_DIR } from '../../../shared/settings';

/**
 * `--store`, else `$RETAINED_STORE`, else the nearest `.retained` folder at or above `cwd` (as
 * VS Code keeps it in the workspace root, so a command in a subfolder finds the same store),
 * else `./.retained`.
 */
export function findStore(cwd: string, given?: string): string {
  if (given) return resolve(cwd, given);
  if (process.env.RETAINED_STORE) return resolve(cwd, process.env.RETAINED_STORE);
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const candidate = join(dir, STORE_DIR);
    if (existsSync(candidate) && statSync(candidate).isDirectory()) return candidate;
    if (dirname(dir) === dir) break;
  }
  return join(resolve(cwd), STORE_DIR);
}
