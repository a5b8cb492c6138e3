/** Workspaces for the end-to-end tests (their runs are recorded by scripts/demoRun.ts). */
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function newWorkspace(): string {
  return mkdtempSync('/tmp/rtws-');
}

export function writeNote(workspace: string, name: string, text: string): string {
  const path = join(workspace, name);
  writeFileSync(path, text);
  return path;
}

/** The value files of a run in the workspace's store, by name. */
export function valueFiles(workspace: string, runId: string): string[] {
  const dir = join(workspace, '.retained', 'runs', `${runId}.values`);
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((name) => name.endsWith('.txt'))
        .sort()
    : [];
}
