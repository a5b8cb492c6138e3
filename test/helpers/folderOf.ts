import { FolderStore } from '../../server/src/core/store/folderStore';
import type { RunStore } from '../../server/src/core/store/runStore';

/** The folder store a test made, to look at its files; throws on any other store. */
export function folderOf(store: RunStore): FolderStore {
  if (!(store instanceof FolderStore)) throw new Error(`${store.where} is not a folder store`);
  return store;
}
