/**
 * Which store an address names: a `postgres://` or `postgresql://` URL is a team store, anything
 * else a folder on this machine (never a URL taken as a folder's name).
 */
import { isStoreUrl } from './postgres/connect';
import { TeamStore } from './postgres/teamStore';
import type { RunStore } from './runStore';
import { Store } from './store';

export function openStore(where: string): RunStore {
  return isStoreUrl(where) ? new TeamStore(where) : new Store(where);
}
