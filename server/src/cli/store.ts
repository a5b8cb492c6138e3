/** Which store a command works on: the one named, else the one the workspace has. */
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { STORE_DIR } from '../../../shared/storeDir';
import { isStoreUrl } from '../core/store/storeUrl';

/**
 * `--store`, else `$RETAINED_STORE`, else the nearest `.retained` folder at or above `cwd` (as
 * VS Code keeps it in the workspace root, so a command in a subfolder finds the same store),
 * else `./.retained`.
 */
export function findStore(cwd: string, given?: string, { folder = false } = {}): string {
  // A team store's URL is an address, not a folder: it is never resolved against cwd (and a
  // folder asked for does not take one from $RETAINED_STORE).
  const named =
    given ?? (folder && isStoreUrl(process.env.RETAINED_STORE ?? '') ? undefined : process.env.RETAINED_STORE);
  if (named && isStoreUrl(named)) return named;
  if (named) return resolve(cwd, named);
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const candidate = join(dir, STORE_DIR);
    if (existsSync(candidate) && statSync(candidate).isDirectory()) return candidate;
    if (dirname(dir) === dir) break;
  }
  return join(resolve(cwd), STORE_DIR);
}
