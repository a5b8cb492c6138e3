/**
 * Tool output becomes a list of text segments, never markup: control characters made visible,
 * search matches marked, and in stubs the value id and line numbers made into links. React
 * renders every segment as a text node, so nothing in a result can run or style anything.
 */
import { compileQuery, type LineMatcher, type QueryOptions } from '../../shared/query';
import { stubLinks } from '../../shared/stubText';

export type Segment =
  | { kind: 'text'; text: string }
  | { kind: 'match'; text: string }
  /** Opens the value `valueId` (at `line`, to `endLine`, when given). */
  | { kind: 'link'; text: string; valueId: string; line?: number; endLine?: number };

export interface Highlight extends QueryOptions {
  query: string;
}

/** C0 controls (but tab and newline) and DEL as their visible Unicode pictures; \r before \n dropped. */
export function visibleControls(text: string): string {
  return (
    text
      .replace(/\r\n/g, '\n')
      // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters made visible.
      .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, (c) =>
        c === '\u007f' ? '\u2421' : String.fromCharCode(0x2400 + c.charCodeAt(0)),
      )
  );
}

function matcher(highlight: Highlight | undefined): LineMatcher | undefined {
  if (!highlight || highlight.query.length === 0) return undefined;
  try {
    return compileQuery(highlight.query, highlight);
  } catch {
    return undefined; // the search box reports a bad expression; the text just isn't marked
  }
}

/** The same matches the run search finds, line by line, marked. */
function marked(text: string, re: LineMatcher | undefined): Segment[] {
  if (!re || text.length === 0) return text ? [{ kind: 'text', text }] : [];
  const out: Segment[] = [];
  let last = 0;
  for (let start = 0; start <= text.length; ) {
    const end = text.indexOf('\n', start);
    const lineEnd = end === -1 ? text.length : end;
    for (const [from, to] of re.ranges(text.slice(start, lineEnd))) {
      if (start + from > last) out.push({ kind: 'text', text: text.slice(last, start + from) });
      out.push({ kind: 'match', text: text.slice(start + from, start + to) });
      last = start + to;
    }
    if (end === -1) break;
    start = end + 1;
  }
  if (last < text.length) out.push({ kind: 'text', text: text.slice(last) });
  return out;
}

/**
 * Segments of `raw`. With `links`, the text is a stub or reference: its `[retained #id]` opens
 * that value, and its line numbers open the value (the first id named) at that line.
 */
export function segments(raw: string, options: { links?: boolean; highlight?: Highlight } = {}): Segment[] {
  const text = visibleControls(raw);
  const re = matcher(options.highlight);
  if (!options.links) return marked(text, re);
  const out: Segment[] = [];
  let last = 0;
  let ownId: string | undefined;
  for (const link of stubLinks(text)) {
    if ('valueId' in link && !('line' in link)) ownId ??= link.valueId;
    const valueId = 'valueId' in link ? link.valueId : ownId;
    if (!valueId) continue;
    out.push(...marked(text.slice(last, link.start), re));
    const shown = text.slice(link.start, link.end);
    if ('endLine' in link) out.push({ kind: 'link', text: shown, valueId, line: link.line, endLine: link.endLine });
    else if ('line' in link) out.push({ kind: 'link', text: shown, valueId, line: link.line });
    else out.push({ kind: 'link', text: shown, valueId });
    last = link.end;
  }
  out.push(...marked(text.slice(last), re));
  return out;
}
