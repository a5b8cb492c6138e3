/** Real temp folders for tests, removed afterwards (made writable again first). */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

export function tempDir(prefix = 'retained-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Removes them, unless `RETAINED_KEEP_TEMP` is set (to look at what a test left). */
export function removeTempDirs(): void {
  if (process.env.RETAINED_KEEP_TEMP) return void console.log(`kept: ${made.splice(0).join(' ')}`);
  for (const dir of made.splice(0)) {
    try {
      execFileSync('chattr', ['-R', '-i', dir], { stdio: 'ignore' });
    } catch {
      // not root, or no chattr: chmod below is enough
    }
    execFileSync('chmod', ['-R', 'u+w', dir], { stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Makes a folder refuse new entries. Root ignores permission bits, so as root the folder is
 * made immutable (chattr +i) instead.
 */
export function makeReadOnly(dir: string): void {
  if (process.getuid?.() === 0) execFileSync('chattr', ['+i', dir]);
  else execFileSync('chmod', ['a-w', dir]);
}

export function makeWritable(dir: string): void {
  if (process.getuid?.() === 0) execFileSync('chattr', ['-i', dir]);
  else execFileSync('chmod', ['u+w', dir]);
}
