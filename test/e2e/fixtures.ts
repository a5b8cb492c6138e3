/** Workspaces for the end-to-end tests (their runs are recorded by scripts/demoRun.ts). */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function newWorkspace(): string {
  return mkdtempSync('/tmp/rtws-');
}

export function writeNote(workspace: string, name: string, text: string): string {
  const path = join(workspace, name);
  writeFileSync(path, text);
  return path;
}
