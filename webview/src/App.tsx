/**
 * The inspector: one run, the full transcript beside the model's view of it. Rows are fetched
 * in pages as they scroll into view; a change to the run refetches what is on screen.
 */
import VscodeProgressRing from '@vscode-elements/react-elements/dist/components/VscodeProgressRing.js';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { InspectResult, InspectRow, View } from '../../server/src/protocol';
import { Header, viewLabel, type SearchState } from './Header';
import type { Host } from './host';
import { parseState } from './messages';
import { Timeline } from './Timeline';

export const PAGE = 100;

interface Loaded {
  outline: InspectResult['outline'];
  request: number;
  skipped: number;
}

export function App({ host }: { host: Host }) {
  const saved = useMemo(() => parseState(host.getState()), [host]);
  const [runId, setRunId] = useState(saved?.runId);
  const [policy, setPolicy] = useState(saved?.policy ?? false);
  /** For an imported run: as the agent sent it (the default), or with Retained Outputs. */
  const [view, setView] = useState<View>(saved?.view ?? 'sent');
  /** undefined: follow the latest request. */
  const [request, setRequest] = useState(saved?.request);
  const [loaded, setLoaded] = useState<Loaded>();
  const [error, setError] = useState<string>();
  const [version, setVersion] = useState(0);
  const [search, setSearch] = useState<SearchState>({ query: saved?.query ?? '', ignoreCase: true, regex: false, current: 0 });
  const [scrollTo, setScrollTo] = useState<{ index: number; seq: number } | undefined>(saved?.scrollIndex ? { index: saved.scrollIndex, seq: 1 } : undefined);
  const [pending, setPending] = useState(0);

  const rows = useRef(new Map<number, InspectRow>());
  /** Pages asked for in the current generation; a new generation (request, policy, change) asks again. */
  const asked = useRef(new Set<number>());
  const generation = useRef(0);
  const range = useRef({ first: 0, last: 0 });
  const firstRender = useRef(false);

  useEffect(
    () =>
      host.on((message) => {
        if (message.type === 'init') setRunId(message.runId);
        if (message.type === 'changed') refresh.current();
      }),
    [host],
  );
  useEffect(() => host.post({ type: 'ready' }), [host]);

  const fetchPage = useCallback(
    (page: number) => {
      if (!runId || asked.current.has(page)) return;
      asked.current.add(page);
      const gen = generation.current;
      setPending((n) => n + 1);
      host
        .request('inspect', { ...(request ? { request } : {}), policy, view, from: page * PAGE, limit: PAGE })
        .then((result) => {
          if (gen !== generation.current) return;
          for (const row of result.rows) rows.current.set(row.index, row);
          setLoaded({ outline: result.outline, request: result.request, skipped: result.skipped });
          setVersion((v) => v + 1);
          setError(undefined);
        })
        .catch((err: Error) => {
          if (gen === generation.current) setError(err.message);
          asked.current.delete(page);
        })
        .finally(() => setPending((n) => n - 1));
    },
    [host, runId, request, policy, view],
  );

  const fetchVisible = useCallback(() => {
    const { first, last } = range.current;
    for (let page = Math.floor(first / PAGE); page <= Math.floor(last / PAGE); page++) fetchPage(page);
  }, [fetchPage]);

  // A new view (run, request, policy): start over from what is on screen.
  useEffect(() => {
    generation.current++;
    asked.current.clear();
    rows.current.clear();
    setVersion((v) => v + 1);
    fetchVisible();
  }, [fetchVisible]);

  const count = loaded?.outline.events ?? 0;
  /** Set when a change arrives while the last row is on screen: the view then follows the end. */
  const follow = useRef(false);

  /** The run changed: keep showing the old rows while the fresh ones come. */
  const refresh = useRef(() => {});
  refresh.current = () => {
    follow.current = request === undefined && range.current.last >= count - 2;
    generation.current++;
    asked.current.clear();
    fetchVisible();
    // An open search is run again, staying on the hit it was on.
    const { query, ignoreCase, regex } = search;
    if (!search.result || !query) return;
    host
      .request('search', { query, ignoreCase, regex })
      .then((result) => setSearch((s) => (s.query === query && s.result ? { ...s, result, current: Math.min(s.current, Math.max(0, result.hits.length - 1)) } : s)))
      .catch(() => undefined); // the search box keeps the previous hits
  };

  useEffect(() => {
    if (!follow.current || count === 0) return;
    follow.current = false;
    setScrollTo((s) => ({ index: count - 1, seq: (s?.seq ?? 0) + 1 }));
  }, [count]);

  const onRange = useCallback(
    (first: number, last: number) => {
      range.current = { first, last };
      fetchVisible();
    },
    [fetchVisible],
  );

  useEffect(() => {
    if (!runId) return;
    host.setState({ runId, policy, view, ...(request ? { request } : {}), ...(search.query ? { query: search.query } : {}), scrollIndex: range.current.first });
  }, [host, runId, policy, view, request, search.query, version]);

  useEffect(() => {
    if (firstRender.current || rows.current.size === 0) return;
    firstRender.current = true;
    host.post({ type: 'rendered', ms: Math.round(performance.now()), rows: rows.current.size });
  }, [host, version]);

  const onOpen = useCallback(
    (valueId: string, line?: number, endLine?: number) => host.post({ type: 'openValue', valueId, ...(line ? { line } : {}), ...(line && endLine ? { endLine } : {}) }),
    [host],
  );
  const onOpenEvent = useCallback((index: number, callId?: string) => host.post({ type: 'openEvent', index, ...(callId ? { callId } : {}) }), [host]);

  const runSearch = useCallback(
    (next: Omit<SearchState, 'current'>) => {
      if (!next.query) return setSearch({ ...next, current: 0 });
      setSearch({ ...next, busy: true, current: 0 });
      host
        .request('search', { query: next.query, ignoreCase: next.ignoreCase, regex: next.regex })
        .then((result) => {
          setSearch({ ...next, result, current: 0 });
          const hit = result.hits[0];
          if (hit) setScrollTo((s) => ({ index: hit.index, seq: (s?.seq ?? 0) + 1 }));
        })
        .catch((err: Error) => setSearch({ ...next, error: err.message, current: 0 }));
    },
    [host],
  );

  const step = useCallback(
    (delta: number) => {
      const hits = search.result?.hits ?? [];
      if (hits.length === 0) return;
      const current = (search.current + delta + hits.length) % hits.length;
      setSearch({ ...search, current });
      setScrollTo((t) => ({ index: hits[current]!.index, seq: (t?.seq ?? 0) + 1 }));
    },
    [search],
  );

  // A restored query is searched again once the run is there.
  const searchRestored = useRef(false);
  useEffect(() => {
    if (!loaded || searchRestored.current) return;
    searchRestored.current = true;
    if (saved?.query) runSearch({ query: saved.query, ignoreCase: true, regex: false });
  }, [loaded, saved, runSearch]);

  if (error && !loaded) return <div className="error-view" role="alert">{error}</div>;
  if (!runId || !loaded) {
    return (
      <div className="loading-view" role="status">
        <VscodeProgressRing className="busy" aria-label="Loading" /> Reading the run{runId ? ` ${runId}` : ''}… (a long transcript takes a few seconds, once)
      </div>
    );
  }

  const hit = search.result?.hits[search.current];
  const hitRow = hit ? rows.current.get(hit.index) : undefined;
  const highlight = search.result && search.query ? { query: search.query, ignoreCase: search.ignoreCase, regex: search.regex } : undefined;

  return (
    <div className="inspector">
      <Header
        runId={runId}
        outline={loaded.outline}
        request={loaded.request}
        following={request === undefined}
        policy={policy}
        view={view}
        onView={setView}
        busy={pending > 0}
        onRequest={(k) => setRequest(k === undefined || k >= loaded.outline.requests.length ? undefined : Math.max(1, k))}
        onPolicy={setPolicy}
        search={search}
        onSearch={runSearch}
        onStep={step}
        onOpenHit={hit?.where === 'result' && hitRow?.full.valueId ? () => onOpen(hitRow.full.valueId!, hit.line) : undefined}
      />
      {error && <div className="error-banner" role="alert">{error}</div>}
      {loaded.skipped > 0 && <div className="warning-banner">{loaded.skipped} transcript line(s) could not be read (a torn write) and are left out.</div>}
      <div className="columns-head" aria-hidden="true">
        <span>Full transcript</span>
        <span>
          {viewLabel(loaded.outline, view)} · request {loaded.request}
        </span>
      </div>
      <Timeline
        count={count}
        rowAt={(index) => rows.current.get(index)}
        version={version}
        onRange={onRange}
        scrollTo={scrollTo}
        current={hit?.index}
        highlight={highlight}
        onOpen={onOpen}
        onOpenEvent={onOpenEvent}
        onSelectRequest={(k) => setRequest(k >= loaded.outline.requests.length ? undefined : Math.max(1, k))}
      />
    </div>
  );
}
