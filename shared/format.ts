/** Human-readable sizes, ages and token counts, for the extension and the inspector alike. */

/** Sizes in binary units, named as they are (KiB, MiB): the same figure everywhere it is shown. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

export function formatAge(iso: string, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds}s ago`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes}m ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours}h ago`;
  return `${Math.round(hours / 24)}d ago`;
}

/** Token counts as people read them: 950, 12.3k, 4.1M, 1.0B. */
export function formatTokens(tokens: number): string {
  const n = Math.round(tokens);
  if (n < 1000) return `${n}`;
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  if (n < 1_000_000_000) return `${(n / 1_000_000).toFixed(1)}M`;
  return `${(n / 1_000_000_000).toFixed(1)}B`;
}

/** A moment: the time when it is today, else the date and the time. */
export function formatWhen(iso: string, now = new Date()): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return '';
  const sameDay = at.toDateString() === now.toDateString();
  return sameDay ? at.toLocaleTimeString() : at.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/**
 * How much smaller `sent` is than `full`: "−87 %"; near the ends with a decimal, so 272 of
 * 114k tokens reads "−99.8 %" and a small saving "−0.3 %"; "±0 %" when they are equal to a tenth of a percent.
 */
export function formatSaving(sent: number, full: number): string {
  if (full <= 0 || sent === full) return '±0 %';
  const percent = ((full - sent) / full) * 100;
  const sign = percent > 0 ? '−' : '+';
  const size = Math.abs(percent);
  const shown = size < 1 || size > 99 ? Math.min(size, 99.9).toFixed(1) : String(Math.round(size));
  // Too small to show is the same: never "−0.0 %".
  return shown === '0.0' ? '±0 %' : `${sign}${shown} %`;
}

/** A count with its noun, singular or plural: "1 line", "3,400 lines", "1 value". */
export function formatCount(n: number, noun: string, plural = `${noun}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? noun : plural}`;
}
