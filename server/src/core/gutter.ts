/**
 * The `N: ` gutter peek puts before every line, and `stripGutters`, which removes it again so
 * a peeked line pasted into an edit finds its place in the original file.
 */

export function gutterLine(lineNumber: number, text: string): string {
  return `${lineNumber}: ${text}`;
}

/**
 * One gutter layer: optional indent, a line number, then `: ` (or a bare `:` at the end of a
 * line whose trailing space an editor trimmed), or the `→` that `cat -n`-style readers print.
 */
const GUTTER = /^ *\d+(?:: |:(?=\r?$)|→)/;

/**
 * The line a peek adds after a value's last line when that line has no newline (as `diff`
 * does), so lines read back rebuild the value exactly.
 */
export const NO_FINAL_NEWLINE = '\\ No newline at end of file';

/** A peek's own notice (`[peek: …]`): not a line of the value. */
const NOTICE = /^\[peek: .*\]\r?$/;

/**
 * Removes the gutter from a peeked snippet, with the notices a peek adds; `\ No newline at end
 * of file` takes the newline before it away. A gutter is removed only when every non-empty line
 * carries one, so ordinary text that merely starts with a number and a colon is left alone.
 * Each line keeps its own ending (`\r` stays), so CRLF and mixed endings survive.
 *
 * One layer by default, the peek's own, so lines read back rebuild the value exactly even when
 * they look like gutters themselves. With `stacked`, layers come off while every line has one
 * (`12: 5→text` → `text`): a peek of a read that had its own gutter, as an edit matcher wants it.
 */
export function stripGutters(snippet: string, { stacked = false } = {}): string {
  let lines = snippet.split('\n');
  const marked = lines.length > 1 && lines.some((line) => line === NO_FINAL_NEWLINE || NOTICE.test(line));
  if (marked) lines = lines.filter((line, i) => !(NOTICE.test(line) || (line === NO_FINAL_NEWLINE && i > 0)));
  do {
    const nonEmpty = lines.filter((line) => line.length > 0);
    if (nonEmpty.length === 0 || !nonEmpty.every((line) => GUTTER.test(line))) break;
    lines = lines.map((line) => line.replace(GUTTER, ''));
  } while (stacked);
  return lines.join('\n');
}
