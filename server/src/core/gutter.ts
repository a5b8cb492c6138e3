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
const GUTTER = /^ *\d+(?:: |:$|→)/;

/**
 * Removes stacked gutters (`12: 5: text` → `text`) from a pasted snippet. A layer is removed
 * only while every non-empty line carries one, so ordinary text that merely starts with a
 * number and a colon in a single line is left alone.
 */
export function stripGutters(snippet: string): string {
  const eol = snippet.includes('\r\n') ? '\r\n' : '\n';
  let lines = snippet.split(/\r?\n/);
  const hasText = (line: string) => line.length > 0;
  for (;;) {
    const nonEmpty = lines.filter(hasText);
    if (nonEmpty.length === 0 || !nonEmpty.every((line) => GUTTER.test(line))) break;
    lines = lines.map((line) => line.replace(GUTTER, ''));
  }
  return lines.join(eol);
}
