/**
 * What every part of the service shares: the store, the settings in force, the runs (their ids
 * and caches), and one way to say a run changed. Passed to each part's constructor, so no part
 * reaches into another through the service.
 */
import type { Settings } from '../../../shared/settings';
import type { Runs } from './runs';
import type { RunStore } from './store/runStore';

export interface Context {
  readonly store: RunStore;
  readonly runs: Runs;
  /** The settings in force now (they change when the user edits them). */
  settings(): Settings;
  /**
   * Runs a write to the run: meanwhile the watcher's echoes of it are not announced; after it
   * (done or failed), the run's caches go and one change notice goes out.
   */
  writing<T>(runId: string, work: () => Promise<T>): Promise<T>;
}
