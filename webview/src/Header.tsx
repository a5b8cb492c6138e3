/** The inspector's header: the run's figures, the request selector, the policy switch and search. */
import VscodeButton from '@vscode-elements/react-elements/dist/components/VscodeButton.js';
import VscodeCheckbox from '@vscode-elements/react-elements/dist/components/VscodeCheckbox.js';
import VscodeProgressRing from '@vscode-elements/react-elements/dist/components/VscodeProgressRing.js';
import VscodeTextfield from '@vscode-elements/react-elements/dist/components/VscodeTextfield.js';
import { useState } from 'react';
import { useDomEvent } from './useDomEvent';
import type { VscodeCheckbox as CheckboxElement } from '@vscode-elements/elements/dist/vscode-checkbox/vscode-checkbox.js';
import type { VscodeTextfield as TextfieldElement } from '@vscode-elements/elements/dist/vscode-textfield/vscode-textfield.js';
import type { Outline, RequestFigures, RunSearchResult, View } from '../../server/src/protocol';
import { formatBytes, formatSaving, formatTokens } from '../../shared/format';

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

export interface HeaderProps {
  runId: string;
  outline: Outline;
  request: number;
  following: boolean;
  policy: boolean;
  view: View;
  onView: (view: View) => void;
  busy: boolean;
  onRequest: (request: number | undefined) => void;
  onPolicy: (policy: boolean) => void;
  search: SearchState;
  onSearch: (search: Omit<SearchState, 'current'>) => void;
  onStep: (delta: number) => void;
  /** Opens the current hit's value at its line; absent when the hit is not in a retained value. */
  onOpenHit?: (() => void) | undefined;
}

const AGENT_NAMES: Record<NonNullable<Outline['source']>['format'], string> = { 'claude-code': 'Claude Code', codex: 'Codex', copilot: 'Copilot' };

/** What the right column shows: for an imported run, which of its two views, said plainly. */
export function viewLabel(outline: Outline, view: View): string {
  if (!outline.source) return "Model's view";
  return view === 'sent' ? `As ${AGENT_NAMES[outline.source.format]} sent it` : 'With Retained Outputs (simulated)';
}

/** How the agent's requests were rebuilt, for an imported run. */
function fidelityNote(source: NonNullable<Outline['source']>): string {
  const agent = AGENT_NAMES[source.format];
  return source.fidelity === 'exact'
    ? `Rebuilt exactly from the request records ${agent}${source.version ? ` ${source.version}` : ''} keeps in its session file.`
    : `Rebuilt from the conversation in the session file: reminders and attachments ${agent} added to its requests are not recorded there.`;
}

function Figures({ label, f, tokenizer, sentLabel }: { label: string; f: Omit<RequestFigures, 'request' | 'cut'>; tokenizer: string; sentLabel: string }) {
  return (
    <div className="figures" aria-label={label}>
      <span className="figures-label">{label}</span>
      <span className="sent" title={`${sentLabel}. Tokens estimated with ${tokenizer}.`}>
        sent <strong>{formatTokens(f.tokensSent)}</strong> tokens · {formatBytes(f.bytesSent)}
      </span>
      <span className="full" title="The same history with every result in full">
        full {formatTokens(f.tokensFull)} tokens · {formatBytes(f.bytesFull)}
      </span>
      <span className="saving">{formatSaving(f.tokensSent, f.tokensFull)}</span>
    </div>
  );
}

/**
 * Tokens per request on a log scale (sent is often a hundredth of full): full (faint) behind
 * sent (solid). At most 240 bars, each the largest request of its bucket; a click selects it.
 */
function RequestChart({ requests, selected, onRequest }: { requests: RequestFigures[]; selected: number; onRequest: (request: number) => void }) {
  const bars = Math.min(requests.length, 240);
  const per = requests.length / bars;
  const buckets = Array.from({ length: bars }, (_, b) => requests.slice(Math.floor(b * per), Math.max(Math.floor((b + 1) * per), Math.floor(b * per) + 1)));
  const top = Math.log10(1 + Math.max(1, ...requests.map((r) => r.tokensFull)));
  const height = (tokens: number) => (Math.log10(1 + tokens) / top) * 100;
  return (
    <div className="chart-row">
      <span className="chart-legend" title="Estimated tokens per request, log scale">
        tokens per request (log): <span className="legend-full">full</span> <span className="legend-sent">sent</span>
      </span>
      <svg className="chart" viewBox={`0 0 ${bars} 100`} preserveAspectRatio="none" role="img" aria-label="Tokens per request: full versus sent">
        {buckets.map((bucket, b) => {
          const peak = bucket.reduce((a, r) => (r.tokensFull > a.tokensFull ? r : a), bucket[0]!);
          const isSelected = bucket.some((r) => r.request === selected);
          return (
            <g key={b} className={isSelected ? 'selected' : undefined} onClick={() => onRequest(peak.request)}>
              <title>{`Request ${peak.request}: sent ${formatTokens(peak.tokensSent)} of ${formatTokens(peak.tokensFull)} tokens`}</title>
              <rect className="bar-full" x={b + 0.1} width={0.8} y={100 - height(peak.tokensFull)} height={height(peak.tokensFull)} />
              <rect className="bar-sent" x={b + 0.1} width={0.8} y={100 - height(peak.tokensSent)} height={height(peak.tokensSent)} />
            </g>
          );
        })}
      </svg>
    </div>
  );
}

function Checkbox({ label, checked, onToggle, className, title }: { label: string; checked: boolean; onToggle: (checked: boolean) => void; className?: string; title?: string }) {
  const ref = useDomEvent<CheckboxElement>('change', (element) => onToggle(element.checked));
  return <VscodeCheckbox ref={ref} className={className} checked={checked} label={label} title={title} />;
}

export function Header(props: HeaderProps) {
  const { runId, outline, request, following, policy, view, onView, busy, onRequest, onPolicy, search, onSearch, onStep, onOpenHit } = props;
  const sentLabel = viewLabel(outline, view);
  const policyApplies = !outline.source || view === 'retained';
  const [draft, setDraft] = useState(search.query);
  const total = outline.requests.length;
  const figures = outline.requests[request - 1];
  const hits = search.result?.hits ?? [];
  const hit = hits[search.current];
  const requestField = useDomEvent<TextfieldElement>('change', (element) => {
    const k = Number(element.value);
    if (Number.isInteger(k) && k >= 1) onRequest(Math.min(k, total));
  });
  const submit = () => onSearch({ query: draft, ignoreCase: search.ignoreCase, regex: search.regex });

  return (
    <header className="header">
      <div className="title-row">
        <h1>
          <span className="codicon codicon-history" aria-hidden="true" /> {runId}
        </h1>
        <span className="counts">
          {outline.events.toLocaleString()} events · {outline.toolCalls.toLocaleString()} tool calls · {outline.retained.toLocaleString()} retained ({formatBytes(outline.keptOutBytes)} kept out)
          {outline.errors > 0 ? ` · ${outline.errors} errors` : ''}
        </span>
        {busy && <VscodeProgressRing className="busy" aria-label="Loading" />}
      </div>

      <div className="request-row">
        <VscodeButton icon="chevron-left" iconOnly secondary title="Previous request" aria-label="Previous request" disabled={request <= 1} onClick={() => onRequest(request - 1)} />
        <label className="request-label">
          Request{' '}
          <VscodeTextfield
            ref={requestField}
            className="request-input"
            type="number"
            min={1}
            max={total}
            value={String(request)}
            aria-label="Request"
          />{' '}
          of {total}
        </label>
        <VscodeButton icon="chevron-right" iconOnly secondary title="Next request" aria-label="Next request" disabled={request >= total} onClick={() => onRequest(request + 1)} />
        <VscodeButton secondary disabled={following} title="Follow the newest request as the run grows" onClick={() => onRequest(undefined)}>
          Latest
        </VscodeButton>
        <span className="request-note">{request === total ? 'the next request: what a resume sends now' : `the history request ${request} sent`}</span>
        {policyApplies && (
          <Checkbox
            className="policy"
            checked={policy}
            label="History policy"
            title="Show older bodies as the configured history policy (retained.history.*) sends them: references instead of text"
            onToggle={onPolicy}
          />
        )}
      </div>

      {outline.source && (
        <div className="view-row" role="radiogroup" aria-label="Which view of the model's requests">
          {(['sent', 'retained'] as const).map((v) => (
            <VscodeButton key={v} secondary={view !== v} aria-checked={view === v} role="radio" onClick={() => onView(v)}>
              {viewLabel(outline, v)}
            </VscodeButton>
          ))}
          <span className="request-note">{view === 'sent' ? fidelityNote(outline.source) : `The same requests, each result over the threshold as the stub Retained Outputs would have sent.`}</span>
        </div>
      )}

      {figures && <Figures label={`Request ${request}`} f={figures} tokenizer={outline.tokenizer} sentLabel={sentLabel} />}
      <Figures label={`All ${total} requests`} f={outline.totals} tokenizer={outline.tokenizer} sentLabel={sentLabel} />
      {total > 1 && <RequestChart requests={outline.requests} selected={request} onRequest={onRequest} />}

      <div className="search-row" role="search">
        {/* Typing and keys are handled on a plain wrapper, where React's own events reach. */}
        <div
          className="search-field"
          onInput={(event) => setDraft((event.target as HTMLInputElement).value)}
          onKeyDown={(event) => {
            if (event.key !== 'Enter') return;
            event.preventDefault();
            if (search.result && draft === search.query) onStep(event.shiftKey ? -1 : 1);
            else submit();
          }}
        >
          <VscodeTextfield
            className="search-input"
            placeholder="Search the whole transcript (Enter: next match)"
            aria-label="Search the whole transcript"
            value={draft}
          >
            <span slot="content-before" className="codicon codicon-search" aria-hidden="true" />
          </VscodeTextfield>
        </div>
        <Checkbox checked={search.ignoreCase} label="Ignore case" onToggle={(ignoreCase) => onSearch({ query: search.query, ignoreCase, regex: search.regex })} />
        <Checkbox checked={search.regex} label="Regex" onToggle={(regex) => onSearch({ query: search.query, ignoreCase: search.ignoreCase, regex })} />
        <span className="search-count" role="status">
          {search.busy ? 'Searching…' : search.error ? search.error : search.result ? (hits.length ? `${search.current + 1} / ${search.result.total.toLocaleString()}${search.result.more ? '+' : ''}` : 'No results') : ''}
        </span>
        <VscodeButton icon="arrow-up" iconOnly secondary title="Previous match (Shift+Enter)" aria-label="Previous match" disabled={hits.length === 0} onClick={() => onStep(-1)} />
        <VscodeButton icon="arrow-down" iconOnly secondary title="Next match (Enter)" aria-label="Next match" disabled={hits.length === 0} onClick={() => onStep(1)} />
        {hit && (
          <span className="hit-where">
            event #{hit.index}, {hit.where === 'args' ? 'arguments' : hit.where} line {hit.line.toLocaleString()}{' '}
            {onOpenHit && (
              <a
                href="#"
                onClick={(event) => {
                  event.preventDefault();
                  onOpenHit();
                }}
              >
                open there
              </a>
            )}
          </span>
        )}
      </div>
    </header>
  );
}
