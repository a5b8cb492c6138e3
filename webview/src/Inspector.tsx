/**
 * One run, the full transcript beside the model's view of it. State lives in hooks (the rows,
 * the search, the scroll target); this component wires them to the page and to the extension's
 * messages, and saves what a reload should restore.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { INSPECT_VIEW, type View } from '../../shared/history';
import type { InspectorState } from '../../shared/messages';
import { ColumnsHead } from './ColumnsHead';
import { Header } from './Header';
import { useRows } from './hooks/useRows';
import { useRunSearch } from './hooks/useRunSearch';
import { useScrollTarget } from './hooks/useScrollTarget';
import type { Host } from './host';
import { Loading } from './Loading';
import { Timeline } from './Timeline';
import { Usage } from './Usage';
import { madeCalls } from './viewLabels';

export function Inspector({
  host,
  runId,
  session,
  team,
  saved,
}: {
  host: Host;
  runId: string;
  session?: string | undefined;
  /** A run of the team store: kept in the saved state, so a restored panel opens the same run. */
  team?: boolean | undefined;
  saved: InspectorState | undefined;
}) {
  const [policy, setPolicy] = useState(saved?.policy ?? false);
  /** For an imported run: as the agent sent it (the default), or with Retained Outputs. */
  const [view, setView] = useState<View>(saved?.view ?? INSPECT_VIEW);
  /** undefined: follow the latest model call. */
  const [modelCall, setModelCall] = useState(saved?.modelCall);
  const [scrollTarget, scrollTo] = useScrollTarget(saved?.scrollIndex);
  const rows = useRows(host, { modelCall, policy, view }, scrollTo);
  const { search, run: runSearch, step, rerun } = useRunSearch(host, saved?.query ?? '', scrollTo);
  const { loaded } = rows;

  const onChanged = useRef(() => {});
  /** How many times the run changed while shown: what depends on all of it is asked for again. */
  const [changes, setChanges] = useState(0);
  onChanged.current = () => {
    rows.refresh();
    rerun();
    setChanges((n) => n + 1);
  };
  /** Why the team store is out of reach, while it is: what is shown was read before. */
  const [offline, setOffline] = useState<string>();
  useEffect(
    () =>
      host.on((message) => {
        if (message.type === 'changed') onChanged.current();
        if (message.type !== 'storeState') return;
        setOffline(message.problem);
        if (!message.problem) onChanged.current();
      }),
    [host],
  );

  // biome-ignore lint/correctness/useExhaustiveDependencies: saved again as rows arrive (version): the scroll position moves with them.
  useEffect(() => {
    host.setState({
      runId,
      ...(session ? { session } : {}),
      ...(team ? { team } : {}),
      policy,
      view,
      ...(modelCall ? { modelCall } : {}),
      ...(search.query ? { query: search.query } : {}),
      scrollIndex: rows.firstShown(),
    });
  }, [host, runId, session, team, policy, view, modelCall, search.query, rows.version, rows.firstShown]);

  const reported = useRef(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies: checked as rows arrive (version).
  useEffect(() => {
    if (reported.current || rows.fetched() === 0) return;
    reported.current = true;
    host.post({ type: 'rendered', ms: Math.round(performance.now()), rows: rows.fetched(), marks: host.marks });
  }, [host, rows.version, rows.fetched]);

  // A restored query is searched again once the run is there.
  const searchRestored = useRef(false);
  useEffect(() => {
    if (!loaded || searchRestored.current) return;
    searchRestored.current = true;
    if (saved?.query) runSearch({ query: saved.query, ignoreCase: true, regex: false });
  }, [loaded, saved, runSearch]);

  const onOpen = useCallback(
    (valueId: string, line?: number, endLine?: number) =>
      host.post({ type: 'openValue', valueId, ...(line ? { line } : {}), ...(line && endLine ? { endLine } : {}) }),
    [host],
  );
  const onOpenEvent = useCallback(
    (index: number, callId?: string) => host.post({ type: 'openEvent', index, ...(callId ? { callId } : {}) }),
    [host],
  );

  if (rows.error && !loaded) {
    return (
      <div className="error-page" role="alert">
        {rows.error}
      </div>
    );
  }
  if (!loaded) return <Loading runId={runId} />;

  const total = loaded.outline.modelCalls.length;
  /** The latest model call is "follow the latest"; any other is pinned. */
  const choose = (k: number | undefined) => setModelCall(k === undefined || k >= total ? undefined : Math.max(1, k));
  /** The last event model call k was sent: its history ends below it. */
  const historyEndOf = (k: number) => (loaded.outline.modelCalls[k - 1]?.cut ?? 0) - 1;
  /** From a "model call k" link: that call, landing on event `at`, or else where its history ends. */
  const landOn = (k: number, at?: number) => {
    choose(k);
    if (at !== undefined) return scrollTo(at);
    const end = historyEndOf(k);
    if (end >= 0) scrollTo(Math.max(0, end - 1));
  };
  const hit = search.result?.hits[search.current];
  const hitRow = hit ? rows.rowAt(hit.index) : undefined;
  const highlight =
    search.result && search.query
      ? { query: search.query, ignoreCase: search.ignoreCase, regex: search.regex }
      : undefined;

  return (
    <main className="inspector">
      <Header
        runId={runId}
        outline={loaded.outline}
        figures={rows.figures}
        counting={rows.counting}
        modelCall={loaded.modelCall}
        following={modelCall === undefined}
        policy={policy}
        view={view}
        onView={setView}
        busy={rows.pending > 0}
        onModelCall={choose}
        onPolicy={setPolicy}
        search={search}
        onSearch={runSearch}
        onStep={step}
        onOpenHit={
          hit?.where === 'result' && hitRow?.full.valueId ? () => onOpen(hitRow.full.valueId!, hit.line) : undefined
        }
      />
      <Usage
        host={host}
        modelCall={loaded.modelCall}
        view={view}
        policy={policy}
        imported={loaded.outline.source !== undefined}
        onModelCall={choose}
        onOpen={onOpen}
        version={changes}
      />
      {offline && (
        <div className="warning-banner" role="status">
          <span className="codicon codicon-debug-disconnect" aria-hidden="true" /> The team store is offline: {offline}.
          What is shown was read before; it is read again when the store is back.
        </div>
      )}
      {rows.error && (
        <div className="error-banner" role="alert">
          {rows.error}
        </div>
      )}
      {loaded.skipped > 0 && (
        <div className="warning-banner">
          {loaded.skipped} transcript line(s) could not be read (a torn write) and are left out.
        </div>
      )}
      {policy && loaded.unwritten > 0 && (
        <div className="note-banner" role="note">
          <span className="codicon codicon-info" aria-hidden="true" />{' '}
          {loaded.unwritten === 1
            ? '1 older result shown as a reference is not stored yet'
            : `${loaded.unwritten.toLocaleString()} older results shown as references are not stored yet`}
          : a real replay stores them before it sends the history, so the model can read them back. Looking stores
          nothing.
        </div>
      )}
      <Timeline
        head={<ColumnsHead outline={loaded.outline} view={view} modelCall={loaded.modelCall} />}
        made={madeCalls(loaded.outline)}
        count={rows.count}
        rowAt={rows.rowAt}
        version={rows.version}
        onRange={rows.onRange}
        scrollTo={scrollTarget}
        current={hit?.index}
        highlight={highlight}
        onOpen={onOpen}
        onOpenEvent={onOpenEvent}
        onSelectModelCall={landOn}
        historyEnd={
          historyEndOf(loaded.modelCall) >= 0
            ? { index: historyEndOf(loaded.modelCall), modelCall: loaded.modelCall }
            : undefined
        }
      />
    </main>
  );
}
