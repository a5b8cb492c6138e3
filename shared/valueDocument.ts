/**
 * A value's read-only document in the editor: `retained-value:/<run>/<name>?<ids>`. The path is
 * what the tab and the breadcrumb show (run › the file the call read, so a `.json` read opens as
 * JSON, or `<id>.txt`); the query holds the ids the language server resolves to the file. The
 * server writes these in stub links, the extension in the sidebar and the inspector; no side
 * reads a store path out of one.
 */
import { type CallSubject, subjectFileName } from './callSubject';

export const VALUE_SCHEME = 'retained-value';

/** Which value a document shows; `store`: the team store's, or the sessions cache's (a session opened from Agent Sessions). */
export interface ValueDocument {
  runId: string;
  valueId: string;
  store?: 'sessions' | 'team' | undefined;
}

/** The document's path and query, for `vscode.Uri.from` or a string. */
export function valueDocumentParts(value: ValueDocument & { subject?: CallSubject | undefined }): {
  scheme: string;
  path: string;
  query: string;
} {
  const name = subjectFileName(value.subject);
  const shown = name ? `${value.valueId} · ${name}` : `${value.valueId}.txt`;
  const fields: [string, string][] = [
    ['run', value.runId],
    ['value', value.valueId],
    ...(value.store ? [['store', value.store] as [string, string]] : []),
  ];
  const query = fields.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');
  return { scheme: VALUE_SCHEME, path: `/${value.runId}/${shown}`, query };
}

/** The document as a URI string (what a stub's link targets). */
export function valueDocumentUri(value: ValueDocument & { subject?: CallSubject | undefined }): string {
  const { path, query } = valueDocumentParts(value);
  return `${VALUE_SCHEME}:${encodeURI(path).replace(/\?/g, '%3F').replace(/#/g, '%23')}?${query}`;
}

/** The ids a document's query holds; undefined for a query that is not one of ours. */
export function parseValueDocument(query: string): ValueDocument | undefined {
  const params = new Map<string, string>();
  for (const field of query.split('&')) {
    const at = field.indexOf('=');
    if (at < 0) return undefined;
    try {
      params.set(field.slice(0, at), decodeURIComponent(field.slice(at + 1)));
    } catch {
      return undefined;
    }
  }
  const runId = params.get('run');
  const valueId = params.get('value');
  const store = params.get('store');
  if (!runId || !valueId || (store !== undefined && store !== 'sessions' && store !== 'team')) return undefined;
  return { runId, valueId, ...(store ? { store } : {}) };
}
