/** The run search: the query, its hits, the current one, and stepping through them. */
import { useCallback, useState } from 'react';
import type { RunSearchHit, RunSearchResult } from '../../../shared/protocol';
import type { Host } from '../host';

export interface SearchState {
  query: string;
  ignoreCase: boolean;
  regex: boolean;
  result?: RunSearchResult;
  error?: string;
  busy?: boolean;
  /** Position of the current hit in result.hits. */
  current: number;
}

export function useRunSearch(host: Host, initialQuery: string, goTo: (index: number, hit: RunSearchHit) => void) {
  const [search, setSearch] = useState<SearchState>({
    query: initialQuery,
    ignoreCase: true,
    regex: false,
    current: 0,
  });

  const run = useCallback(
    (next: Omit<SearchState, 'current'>) => {
      if (!next.query) return setSearch({ ...next, current: 0 });
      setSearch({ ...next, busy: true, current: 0 });
      host
        .request('search', { query: next.query, ignoreCase: next.ignoreCase, regex: next.regex })
        .then((result) => {
          setSearch({ ...next, result, current: 0 });
          const hit = result.hits[0];
          if (hit) goTo(hit.index, hit);
        })
        .catch((err: Error) => setSearch({ ...next, error: err.message, current: 0 }));
    },
    [host, goTo],
  );

  const step = useCallback(
    (delta: number) => {
      const hits = search.result?.hits ?? [];
      if (hits.length === 0) return;
      const current = (search.current + delta + hits.length) % hits.length;
      setSearch({ ...search, current });
      goTo(hits[current]!.index, hits[current]!);
    },
    [search, goTo],
  );

  /** The run changed: an open search is run again, staying on the hit it was on. */
  const rerun = useCallback(() => {
    const { query, ignoreCase, regex, result } = search;
    if (!result || !query) return;
    host
      .request('search', { query, ignoreCase, regex })
      .then((fresh) =>
        setSearch((s) =>
          s.query === query && s.result
            ? { ...s, result: fresh, current: Math.min(s.current, Math.max(0, fresh.hits.length - 1)) }
            : s,
        ),
      )
      .catch(() => undefined); // the search box keeps the previous hits
  }, [host, search]);

  return { search, run, step, rerun };
}
