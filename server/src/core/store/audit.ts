/**
 * The store's audit log, `audit.jsonl` at its root: one JSON object per line, only ever
 * appended. It records what a person may need to account for later: every outcome of a
 * withheld result (see withhold/) and every run a clean-up removed. Each line names the run,
 * and the call where there is one.
 */
import { join } from 'node:path';
import type { FolderStore } from './folderStore';
import { AUDIT_FILE } from './layout';
import type { AuditEntry } from './runStore';
import { appendParts } from './transcript';

export function auditPath(root: string): string {
  return join(root, AUDIT_FILE);
}

/** Appends a record, stamped with the time, to the folder's log; throws when it cannot be written. */
export async function appendAudit(store: FolderStore, record: AuditEntry): Promise<void> {
  await store.ensureWritable();
  const line = Buffer.from(`${JSON.stringify({ ts: new Date().toISOString(), ...record })}\n`, 'utf8');
  await appendParts(store.root, auditPath(store.root), [line]);
}
