/**
 * The one id sanitizer and the id alphabet. Value ids (from call ids) and run ids pass through
 * it once, where they enter, so retention, replay and peek always agree on a file name, and a
 * path can never be spelled: the alphabet has no `/`, `.` or NUL.
 */

/** Ids, names and paths a request gives are bounded, so no request can make the server hold a huge key. */
export const ID_MAX = 1024;
export const PATH_MAX = 4096;

const MAX_ID_LENGTH = 64;
/** The id alphabet, as a pattern source for others to build on (a run file name, a stub marker). */
export const ID_CHARS = '[A-Za-z0-9_-]';
const SAFE = new RegExp(`^${ID_CHARS}+$`);
/** Ids that sanitizing changed end in this mark; clean ids that happen to look like it get one too. */
const SUFFIXED = /--[0-9a-f]{16}$/;

/** FNV-1a, 64-bit, as 16 hex digits, over the UTF-16 code units of `text`. */
export function fnv1a64(text: string): string {
  let hash = 0xcbf29ce484222325n;
  const prime = 0x100000001b3n;
  const mask = 0xffffffffffffffffn;
  for (let i = 0; i < text.length; i++) {
    hash ^= BigInt(text.charCodeAt(i));
    hash = (hash * prime) & mask;
  }
  return hash.toString(16).padStart(16, '0');
}

/**
 * Maps any string to `[A-Za-z0-9_-]{1,64}`. A clean id stays as it is; any other gets a
 * `--<fnv1a64>` suffix of the original, so two ids that sanitize alike still get two names,
 * and a clean id can never equal a suffixed one (clean ids never end in the suffix pattern).
 */
export function sanitizeId(raw: string): string {
  if (raw.length > 0 && raw.length <= MAX_ID_LENGTH && SAFE.test(raw) && !SUFFIXED.test(raw)) {
    return raw;
  }
  const suffix = `--${fnv1a64(raw)}`;
  // Cut by code points before replacing, so a surrogate pair becomes one `_`, not two.
  const replaced = Array.from(raw.slice(0, MAX_ID_LENGTH * 2), (ch) => (SAFE.test(ch) ? ch : '_')).join('');
  return replaced.slice(0, MAX_ID_LENGTH - suffix.length) + suffix;
}

/** True when `id` is already in sanitized form (what a file name may be). */
export function isSanitizedId(id: string): boolean {
  return id.length > 0 && id.length <= MAX_ID_LENGTH && SAFE.test(id);
}

/**
 * The file names an id given back by a model may mean: the id itself when it is already in
 * sanitized form (as stubs print it), and the sanitized form of it as a raw call id.
 */
export function valueIdCandidates(id: string): string[] {
  const sanitized = sanitizeId(id);
  return isSanitizedId(id) && id !== sanitized ? [id, sanitized] : [sanitized];
}
