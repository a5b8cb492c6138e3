/**
 * A folder that refuses new files, as a read-only store does. Root writes through a mode, so as
 * root the folder is made immutable (ext4's chattr +i) instead.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync } from 'node:fs';

const asRoot = () => process.getuid?.() === 0;

/** Locks `dir` and returns the refusal in the words the user should see for it. */
export function lockFolder(dir: string): string {
  if (!asRoot()) {
    chmodSync(dir, 0o555);
    return 'permission denied (EACCES)';
  }
  execFileSync('chattr', ['+i', dir]);
  return 'the operation is not permitted (EPERM)';
}

export function unlockFolder(dir: string): void {
  if (asRoot()) execFileSync('chattr', ['-i', dir]);
  else chmodSync(dir, 0o755);
}
