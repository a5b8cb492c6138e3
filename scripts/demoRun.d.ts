import type { RetainResult } from '../shared/protocol';
export interface DemoRun {
  workspace: string;
  lock: string;
  stub: RetainResult;
}
/**
 * Records the demo run: a large package-lock.json read that was retained, a peek by query and
 * by range, and a small result kept verbatim. Shared by the tests and `npm start`.
 */
export declare function recordDemoRun(workspace: string, storeRoot?: string, runId?: string): Promise<DemoRun>;
