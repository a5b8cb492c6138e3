/**
 * Which store an address names: a `postgres://` or `postgresql://` URL is a team store, anything
 * else a folder on this machine (never a URL taken as a folder's name).
 */
import { InvalidInput } from '../../../../shared/invalidInput';
import { FolderStore } from './folderStore';
import type { RunStore } from './runStore';
import { isStoreUrl } from './storeUrl';

/**
 * A store that will not take a write: a team store out of reach, or a role without the right.
 * Said to the user as input they can act on, but never the command's failure: its output is kept verbatim.
 */
export class StoreRefused extends InvalidInput {
  constructor(message: string) {
    super(message);
    this.name = 'StoreRefused';
  }
}

/** A team store's URL as messages show it: never its password. */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'the team store';
  }
}

export function openStore(where: string): RunStore {
  if (!isStoreUrl(where)) return new FolderStore(where);
  // node-postgres loads only for a team store: a folder's server and hooks never pay for it.
  const { TeamStore } = require('./postgres/teamStore') as typeof import('./postgres/teamStore');
  return new TeamStore(where);
}
