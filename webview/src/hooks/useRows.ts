/**
 * The rows of the run as the inspector shows them, fetched in pages as they scroll into view. A
 * new view (model call, view, policy) or a change to the run refetches what is on screen while
 * the old rows stay until theirs arrive; after a change it follows the end when it was shown.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { INSPECT_PAGE_ROWS, type View } from '../../../shared/history';
import type { InspectResult, InspectRow } from '../../../shared/protocol';
import type { Host } from '../host';

const PAGE = INSPECT_PAGE_ROWS;

export interface Loaded {
  outline: InspectResult['outline'];
  compare: InspectResult['compare'];
  modelCall: number;
  skipped: number;
  unwritten: number;
}

export interface RowsQuery {
  /** undefined: follow the latest model call. */
  modelCall: number | undefined;
  policy: boolean;
  view: View;
}

export function useRows(host: Host, query: RowsQuery, follow: (index: number) => void) {
  const [loaded, setLoaded] = useState<Loaded>();
  const [error, setError] = useState<string>();
  const [version, setVersion] = useState(0);
  const [pending, setPending] = useState(0);
  const rows = useRef(new Map<number, InspectRow>());
  /** Pages asked for in the current generation; a new generation asks again. */
  const asked = useRef(new Set<number>());
  const generation = useRef(0);
  const range = useRef({ first: 0, last: 0 });
  const { modelCall, policy, view } = query;

  const fetchPage = useCallback(
    (page: number) => {
      if (asked.current.has(page)) return;
      asked.current.add(page);
      const gen = generation.current;
      setPending((n) => n + 1);
      host
        .request('inspect', { ...(modelCall ? { modelCall } : {}), policy, view, from: page * PAGE, limit: PAGE })
        .then((result) => {
          if (gen !== generation.current) return;
          for (const row of result.rows) rows.current.set(row.index, row);
          setLoaded({
            outline: result.outline,
            compare: result.compare,
            modelCall: result.modelCall,
            skipped: result.skipped,
            unwritten: result.unwritten,
          });
          setVersion((v) => v + 1);
          setError(undefined);
        })
        .catch((err: Error) => {
          if (gen === generation.current) setError(err.message);
          asked.current.delete(page);
        })
        .finally(() => setPending((n) => n - 1));
    },
    [host, modelCall, policy, view],
  );

  const fetchVisible = useCallback(() => {
    const { first, last } = range.current;
    for (let page = Math.floor(first / PAGE); page <= Math.floor(last / PAGE); page++) fetchPage(page);
  }, [fetchPage]);

  // A new view keeps the rows shown until theirs arrive, so the list neither blanks nor jumps.
  useEffect(() => {
    generation.current++;
    asked.current.clear();
    fetchVisible();
  }, [fetchVisible]);

  const count = loaded?.outline.events ?? 0;
  /** Set when a change arrives while the last row is on screen: the view then follows the end. */
  const following = useRef(false);
  useEffect(() => {
    if (!following.current || count === 0) return;
    following.current = false;
    follow(count - 1);
  }, [count, follow]);

  /** The run changed: fetch what is on screen again. */
  const refresh = useCallback(() => {
    following.current = modelCall === undefined && range.current.last >= count - 2;
    generation.current++;
    asked.current.clear();
    fetchVisible();
  }, [modelCall, count, fetchVisible]);

  const onRange = useCallback(
    (first: number, last: number) => {
      range.current = { first, last };
      fetchVisible();
    },
    [fetchVisible],
  );

  const rowAt = useCallback((index: number) => rows.current.get(index), []);
  return {
    loaded,
    error,
    version,
    pending,
    count,
    rowAt,
    onRange,
    refresh,
    firstShown: () => range.current.first,
    fetched: () => rows.current.size,
  };
}
