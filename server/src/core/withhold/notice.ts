/**
 * What the model gets for a withheld result: one neutral notice, then only where the original
 * is. Never the guard's reason or its category: those stay in the audit log.
 */
import type { WithheldOutcome } from '../../../../shared/protocol';

export const WITHHELD_NOTICE =
  '[withheld] This tool result was withheld from the model by a guard. The tool has already run.';

export interface Place {
  outcome: WithheldOutcome;
  /** The original's file, relative to the store (`withheld/…`), and its absolute path. */
  file?: string;
  path?: string;
  /** The audit log's absolute path. */
  audit: string;
  /** The id peek_value reads the original by, when it may. */
  peekId?: string;
}

export function withheldNotice(place: Place): string {
  const where = {
    written: `Its original is in the Retained Outputs store at ${place.file} (${place.path}).`,
    unfinished: `Its original was still being written to ${place.file} (${place.path}) in the Retained Outputs store when the time for it ran out; it may be there now.`,
    failed: 'Writing its original to the Retained Outputs store failed, so it was not kept.',
    skipped: `Its original is kept only in the Retained Outputs store's audit log (${place.audit}).`,
  }[place.outcome];
  const peek = place.peekId ? ` peek_value reads it: {"id":"${place.peekId}"}.` : '';
  return `${WITHHELD_NOTICE} ${where}${peek}`;
}
