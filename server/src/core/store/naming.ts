/**
 * How a store names what it keeps, for both stores: ids checked where they enter, the names a
 * value may be placed under, and a value's metadata checked as it is read back (a store may come
 * from anywhere: a folder anyone wrote, a row any teammate with write access wrote).
 */
import type { CallSubject } from '../../../../shared/callSubject';
import { isSanitizedId, sanitizeId } from '../../../../shared/ids';
import type { ValueMeta } from '../../../../shared/protocol';

export function checkedId(id: string, what: 'run' | 'value'): string {
  if (!isSanitizedId(id)) throw new Error(`not a valid ${what} id: ${JSON.stringify(id.slice(0, 80))}`);
  return id;
}

/** The names a value may be placed under, in order: the call's id, then the call's id and the hash (or only `valueId`). */
export function valueNames(callId: string, sha256: string, valueId?: string): string[] {
  return valueId ? [valueId] : [sanitizeId(callId), sanitizeId(`${callId}\u0000${sha256}`)];
}

export function namesTaken(callId: string, names: readonly string[]): Error {
  return new Error(
    `other bytes hold the value name${names.length > 1 ? 's' : ''} of call ${JSON.stringify(callId.slice(0, 80))}`,
  );
}

/**
 * A value's metadata from its sidecar (or its row), when it is well formed and describes a file of `bytes`:
 * a store may come from anywhere, so each field is checked before a view shows it.
 */
export function sidecarMeta(json: string, runId: string, valueId: string, bytes: number): ValueMeta | undefined {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (!raw || typeof raw !== 'object' || raw.bytes !== bytes) return undefined;
  const { callId, tool, lines, sha256, isError, createdAt, stub, subject } = raw;
  if (
    typeof callId !== 'string' ||
    typeof tool !== 'string' ||
    typeof lines !== 'number' ||
    typeof sha256 !== 'string' ||
    typeof isError !== 'boolean' ||
    typeof createdAt !== 'string' ||
    typeof stub !== 'string'
  )
    return undefined;
  const s = subject as Partial<CallSubject> | undefined;
  const checked =
    s && typeof s === 'object' && typeof s.text === 'string' && s.text.length <= 200
      ? { subject: { text: s.text, isFile: s.isFile === true } }
      : {};
  return { runId, valueId, callId, tool, bytes, lines, sha256, isError, ...checked, createdAt, stub };
}
