/**
 * The rows of the run as the inspector shows them, fetched in pages as they scroll into view. A
 * new view (model call, view, policy) or a change to the run refetches what is on screen while
 * the old rows stay until theirs arrive; after a change it follows the end when it was shown.
 * Rows come first: a page is answered without waiting for the token figures, which are asked for
 * after it when it came without them (a run not counted yet) and arrive on their own.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { INSPECT_PAGE_ROWS, type View } from '../../../shared/history';
import type { Compare, InspectResult, InspectRow, Outline, RunCounts } from '../../../shared/protocol';
import type { Host } from '../host';

const PAGE = INSPECT_PAGE_ROWS;

/** True when the outline carries its figures (a page asked with `figures: false` may come before they are counted). */
const hasFigures = (outline: RunCounts | Outline): outline is Outline => 'totals' in outline;

export interface Loaded {
  /** The run's counts (and figures, when they came with the rows: see `figures`). */
  outline: InspectResult['outline'];
  modelCall: number;
  skipped: number;
  unwritten: number;
}

/** The figures of one view (and policy) of the run: `key` says which, `asked` after which change. */
export interface Figured {
  key: string;
  asked: string;
  outline: Outline;
  compare: Compare | undefined;
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
  const [figured, setFigured] = useState<Figured>();
  /** The figures asked for last: of which view, after how many refreshes. */
  const figuresAsked = useRef<string | undefined>(undefined);
  const refreshes = useRef(0);
  const figuresKey = `${view}/${policy}`;

  /** The figures of the view shown, asked for once per view and change of the run. */
  const fetchFigures = useCallback(() => {
    const asked = `${figuresKey}#${refreshes.current}`;
    if (figuresAsked.current === asked) return;
    figuresAsked.current = asked;
    host.request('inspect', { policy, view, limit: 0 }).then(
      (result) => {
        if (figuresAsked.current !== asked || !hasFigures(result.outline)) return;
        setFigured({ key: figuresKey, asked, outline: result.outline, compare: result.compare });
      },
      (err: Error) => {
        if (figuresAsked.current === asked) setError(err.message);
        figuresAsked.current = undefined;
      },
    );
  }, [host, policy, view, figuresKey]);

  const fetchPage = useCallback(
    (page: number) => {
      if (asked.current.has(page)) return;
      asked.current.add(page);
      const gen = generation.current;
      setPending((n) => n + 1);
      host
        .request('inspect', {
          ...(modelCall ? { modelCall } : {}),
          policy,
          view,
          from: page * PAGE,
          limit: PAGE,
          figures: false,
        })
        .then((result) => {
          if (gen !== generation.current) return;
          for (const row of result.rows) rows.current.set(row.index, row);
          // Figures already counted come with the rows; else they are asked for now, the rows shown meanwhile.
          if (hasFigures(result.outline)) {
            const now = `${figuresKey}#${refreshes.current}`;
            figuresAsked.current = now;
            setFigured({ key: figuresKey, asked: now, outline: result.outline, compare: result.compare });
          } else fetchFigures();
          setLoaded({
            outline: result.outline,
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
    [host, modelCall, policy, view, figuresKey, fetchFigures],
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
    refreshes.current++;
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
    /** The figures of the view shown; undefined while they are counted the first time. */
    figures: figured?.key === figuresKey ? figured : undefined,
    /** True while the figures are being counted (the old ones, if any, still shown). */
    counting: figured?.asked !== `${figuresKey}#${refreshes.current}`,
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
