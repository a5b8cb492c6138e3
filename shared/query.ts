/**
 * The one query dialect, for peek_value, the run search and the inspector's match marking: a
 * literal (optionally case-blind), or a regular expression in RE2 syntax. RE2 (re2js, a
 * pure-JavaScript port) matches in time linear in the input, whatever the pattern, so a query
 * like `(a+)+$` costs what `a` costs: no pattern can stall the server. Lookarounds and
 * backreferences, which need backtracking, are not part of the dialect.
 */
import type { RE2JS } from 're2js';
import { InvalidInput } from './invalidInput';

// Every side bundles this module (the webview too): a require that esbuild resolves, typed here.
declare function require(id: 're2js'): typeof import('re2js');

/** re2js, loaded on the first regular expression: a process that compiles none never parses it. */
export function re2js(): typeof RE2JS {
  return require('re2js').RE2JS;
}

/** The longest query accepted, in characters. */
export const MAX_QUERY_LENGTH = 1000;

export interface QueryOptions {
  ignoreCase?: boolean;
  regex?: boolean;
}

export interface LineMatcher {
  /** True when the text (one line) holds a match. */
  test(line: string): boolean;
  /** Every non-empty match in the text, as [start, end) offsets, in order. */
  ranges(text: string): [number, number][];
}

/** Throws an InvalidInput naming the problem when the query is empty, too long or not a valid pattern. */
export function compileQuery(query: string, options: QueryOptions = {}): LineMatcher {
  if (query.length === 0) throw new InvalidInput('query must not be empty');
  if (query.length > MAX_QUERY_LENGTH)
    throw new InvalidInput(`query must be at most ${MAX_QUERY_LENGTH} characters (got ${query.length})`);
  if (!options.regex && !options.ignoreCase) {
    return {
      test: (line) => line.includes(query),
      ranges: (text) => {
        const out: [number, number][] = [];
        for (let at = text.indexOf(query); at !== -1; at = text.indexOf(query, at + query.length))
          out.push([at, at + query.length]);
        return out;
      },
    };
  }
  if (!options.regex) {
    // A literal, case-blind: an escaped pattern has no backtracking to run away with, so the
    // engine built into V8 (many times faster than re2js) is safe for it.
    const literal = new RegExp(query.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'), 'giu');
    return {
      test: (line) => {
        literal.lastIndex = 0;
        return literal.test(line);
      },
      ranges: (text) => {
        const out: [number, number][] = [];
        literal.lastIndex = 0;
        for (let m = literal.exec(text); m; m = literal.exec(text)) {
          if (m[0].length === 0) literal.lastIndex++;
          else out.push([m.index, m.index + m[0].length]);
        }
        return out;
      },
    };
  }
  let pattern: RE2JS;
  try {
    const RE2 = re2js();
    pattern = RE2.compile(query, options.ignoreCase ? RE2.CASE_INSENSITIVE : 0);
  } catch (err) {
    throw new InvalidInput(
      `query is not a valid regular expression (RE2 syntax: no lookaround or backreferences): ${(err as Error).message}`,
    );
  }
  return {
    test: (line) => pattern.test(line),
    ranges: (text) => {
      const out: [number, number][] = [];
      const matcher = pattern.matcher(text);
      for (let from = 0; from <= text.length && matcher.find(from); ) {
        const start = matcher.start();
        const end = matcher.end();
        if (end > start) out.push([start, end]);
        from = end > start ? end : end + 1;
      }
      return out;
    },
  };
}
