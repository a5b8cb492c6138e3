/**
 * A search query as a global RegExp: literal unless `regex`, case-blind with `ignoreCase`.
 * One definition for the server's run search and the inspector's match marking, so what is
 * marked on screen is what was found. Pure (no Node APIs): the webview bundles it too.
 */
export interface QueryOptions {
  ignoreCase?: boolean;
  regex?: boolean;
}

/** Throws a SyntaxError when `regex` is set and `query` is not a valid expression. */
export function queryPattern(query: string, options: QueryOptions): RegExp {
  const flags = `g${options.ignoreCase ? 'i' : ''}`;
  if (!options.regex) return new RegExp(query.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), flags);
  return new RegExp(query, `${flags}m`);
}
