/** The inspector's header: the run's figures, the model call selector, the policy switch and search. */

import type { VscodeCheckbox as CheckboxElement } from '@vscode-elements/elements/dist/vscode-checkbox/vscode-checkbox.js';
import type { VscodeTextfield as TextfieldElement } from '@vscode-elements/elements/dist/vscode-textfield/vscode-textfield.js';
import VscodeButton from '@vscode-elements/react-elements/dist/components/VscodeButton.js';
import VscodeCheckbox from '@vscode-elements/react-elements/dist/components/VscodeCheckbox.js';
import VscodeProgressRing from '@vscode-elements/react-elements/dist/components/VscodeProgressRing.js';
import VscodeTextfield from '@vscode-elements/react-elements/dist/components/VscodeTextfield.js';
import { useState } from 'react';
import { formatBytes, formatCount, formatSaving, formatTokens } from '../../shared/format';
import type { View } from '../../shared/history';
import type { ModelCallFigures, Outline } from '../../shared/protocol';
import { useDomEvent } from './hooks/useDomEvent';
import type { SearchState } from './hooks/useRunSearch';
import { LinkButton } from './LinkButton';

export interface HeaderProps {
  runId: string;
  outline: Outline;
  modelCall: number;
  following: boolean;
  policy: boolean;
  view: View;
  onView: (view: View) => void;
  busy: boolean;
  onModelCall: (modelCall: number | undefined) => void;
  onPolicy: (policy: boolean) => void;
  search: SearchState;
  onSearch: (search: Omit<SearchState, 'current'>) => void;
  onStep: (delta: number) => void;
  /** Opens the current hit's value at its line; absent when the hit is not in a retained value. */
  onOpenHit?: (() => void) | undefined;
}

const AGENT_NAMES: Record<NonNullable<Outline['source']>['format'], string> = {
  'claude-code': 'Claude Code',
  codex: 'Codex',
  copilot: 'Copilot',
};

/** What the right column shows: for an imported run, which of its two views, said plainly. */
export function viewLabel(outline: Outline, view: View): string {
  if (!outline.source) return "Model's view";
  return view === 'sent' ? `As ${AGENT_NAMES[outline.source.format]} sent it` : 'With Retained Outputs (simulated)';
}

/** How the shown model call was rebuilt, for an imported run: each model call has its own fidelity. */
function fidelityNote(source: NonNullable<Outline['source']>, outline: Outline, modelCall: number): string {
  const agent = AGENT_NAMES[source.format];
  const calls = outline.modelCalls.slice(0, -1);
  const rebuilt = calls.filter((c) => c.rebuilt).length;
  const shown = calls[modelCall - 1];
  if (source.fidelity === 'conversation')
    return `Rebuilt from the conversation in the session file: reminders and attachments ${agent} added to its model calls are not recorded there.`;
  const whole = `exactly as ${agent}${source.version ? ` ${source.version}` : ''} sent it, from the request records its session file keeps`;
  const others = rebuilt
    ? ` ${rebuilt} of ${calls.length} model calls could not be rebuilt exactly; each says why.`
    : '';
  if (!shown) return `Every model call ${whole}.${others}`;
  return shown.rebuilt
    ? `Model call ${modelCall} is rebuilt from the conversation, not exactly: ${shown.rebuilt}.${others}`
    : `Model call ${modelCall}: ${whole}.${others}`;
}

function Figures({
  label,
  f,
  tokenizer,
  sentLabel,
}: {
  label: string;
  f: Omit<ModelCallFigures, 'modelCall' | 'cut'>;
  tokenizer: string;
  sentLabel: string;
}) {
  return (
    <div className="figures">
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
 * Tokens per model call on a linear scale, so the saving reads as it is: full (faint) behind
 * sent (solid); a sent bar too small to see keeps a sliver. At most 240 bars, each the largest
 * model call of its bucket; a click selects it.
 */
function ModelCallChart({
  calls,
  selected,
  onModelCall,
}: {
  calls: ModelCallFigures[];
  selected: number;
  onModelCall: (modelCall: number) => void;
}) {
  const bars = Math.min(calls.length, 240);
  const per = calls.length / bars;
  const buckets = Array.from({ length: bars }, (_, b) =>
    calls.slice(Math.floor(b * per), Math.max(Math.floor((b + 1) * per), Math.floor(b * per) + 1)),
  );
  const top = Math.max(1, ...calls.map((r) => r.tokensFull));
  const height = (tokens: number) => (tokens > 0 ? Math.max(2, (tokens / top) * 100) : 0);
  return (
    <div className="chart-row">
      <span className="chart-legend" title="Estimated tokens per model call">
        tokens per model call: <span className="legend-full">full</span> <span className="legend-sent">sent</span>
      </span>
      <svg
        className="chart"
        viewBox={`0 0 ${bars} 100`}
        preserveAspectRatio="none"
        role="img"
        aria-label="Tokens per model call: full versus sent"
      >
        {buckets.map((bucket, b) => {
          const peak = bucket.reduce((a, r) => (r.tokensFull > a.tokensFull ? r : a), bucket[0]!);
          const isSelected = bucket.some((r) => r.modelCall === selected);
          return (
            // biome-ignore lint/suspicious/noArrayIndexKey: a bucket is its position on the axis.
            // biome-ignore lint/a11y/noStaticElementInteractions: a pointer shortcut; the model call field and its buttons do the same from the keyboard.
            <g key={b} className={isSelected ? 'selected' : undefined} onClick={() => onModelCall(peak.modelCall)}>
              <title>{`Model call ${peak.modelCall}: sent ${formatTokens(peak.tokensSent)} of ${formatTokens(peak.tokensFull)} tokens`}</title>
              <rect
                className="bar-full"
                x={b + 0.1}
                width={0.8}
                y={100 - height(peak.tokensFull)}
                height={height(peak.tokensFull)}
              />
              <rect
                className="bar-sent"
                x={b + 0.1}
                width={0.8}
                y={100 - height(peak.tokensSent)}
                height={height(peak.tokensSent)}
              />
            </g>
          );
        })}
      </svg>
    </div>
  );
}

function Checkbox({
  label,
  checked,
  onToggle,
  className,
  title,
}: {
  label: string;
  checked: boolean;
  onToggle: (checked: boolean) => void;
  className?: string;
  title?: string;
}) {
  const ref = useDomEvent<CheckboxElement>('change', (element) => onToggle(element.checked));
  return <VscodeCheckbox ref={ref} className={className} checked={checked} label={label} title={title} />;
}

export function Header(props: HeaderProps) {
  const {
    runId,
    outline,
    modelCall,
    following,
    policy,
    view,
    onView,
    busy,
    onModelCall,
    onPolicy,
    search,
    onSearch,
    onStep,
    onOpenHit,
  } = props;
  const sentLabel = viewLabel(outline, view);
  const policyApplies = !outline.source || view === 'retained';
  const [draft, setDraft] = useState(search.query);
  const total = outline.modelCalls.length;
  const figures = outline.modelCalls[modelCall - 1];
  const hits = search.result?.hits ?? [];
  const hit = hits[search.current];
  const modelCallField = useDomEvent<TextfieldElement>('change', (element) => {
    const k = Number(element.value);
    if (Number.isInteger(k) && k >= 1) onModelCall(Math.min(k, total));
  });
  const submit = () => onSearch({ query: draft, ignoreCase: search.ignoreCase, regex: search.regex });

  return (
    <header className="header">
      <div className="title-row">
        <h1>
          <span className="codicon codicon-history" aria-hidden="true" /> {runId}
        </h1>
        <span className="counts">
          {formatCount(outline.events, 'event')} · {formatCount(outline.toolCalls, 'tool call')} ·{' '}
          {outline.retained.toLocaleString('en-US')} retained ({formatBytes(outline.keptOutBytes)} kept out)
          {outline.errors > 0 ? ` · ${formatCount(outline.errors, 'error')}` : ''}
        </span>
        {busy && <VscodeProgressRing className="busy" aria-label="Loading" />}
      </div>

      <div className="model-call-row">
        <VscodeButton
          icon="chevron-left"
          iconOnly
          secondary
          title="Previous model call"
          aria-label="Previous model call"
          disabled={modelCall <= 1}
          onClick={() => onModelCall(modelCall - 1)}
        />
        <span className="model-call-label">
          Model call{' '}
          <VscodeTextfield
            ref={modelCallField}
            className="model-call-input"
            type="number"
            min={1}
            max={total}
            value={String(modelCall)}
            aria-label="Model call"
          />{' '}
          of {total}
        </span>
        <VscodeButton
          icon="chevron-right"
          iconOnly
          secondary
          title="Next model call"
          aria-label="Next model call"
          disabled={modelCall >= total}
          onClick={() => onModelCall(modelCall + 1)}
        />
        <VscodeButton
          secondary
          disabled={following}
          title="Follow the newest model call as the run grows"
          onClick={() => onModelCall(undefined)}
        >
          Latest
        </VscodeButton>
        <span className="model-call-note">
          {modelCall === total
            ? 'the next model call: what a resume sends now'
            : `the history model call ${modelCall} sent`}
        </span>
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
        <div className="view-row" role="radiogroup" aria-label="Which view of the model's calls">
          {(['sent', 'retained'] as const).map((v) => (
            <VscodeButton
              key={v}
              secondary={view !== v}
              aria-checked={view === v}
              role="radio"
              onClick={() => onView(v)}
            >
              {viewLabel(outline, v)}
            </VscodeButton>
          ))}
          <span className="model-call-note">
            {view === 'sent'
              ? fidelityNote(outline.source, outline, modelCall)
              : `The same model calls, each result over the threshold as the stub Retained Outputs would have sent.`}
          </span>
        </div>
      )}

      {figures && (
        <Figures label={`Model call ${modelCall}`} f={figures} tokenizer={outline.tokenizer} sentLabel={sentLabel} />
      )}
      <Figures
        label={`All ${total} model calls`}
        f={outline.totals}
        tokenizer={outline.tokenizer}
        sentLabel={sentLabel}
      />
      {total > 1 && <ModelCallChart calls={outline.modelCalls} selected={modelCall} onModelCall={onModelCall} />}

      <search className="search-row">
        {/* Typing and keys are handled on a plain wrapper, where React's own events reach. */}
        {/* biome-ignore lint/a11y/noStaticElementInteractions: the events are the text field's, caught here as they bubble. */}
        <div
          className="search-field"
          onInput={(event) => {
            const value = (event.target as HTMLInputElement).value;
            setDraft(value);
            // A cleared field clears the hits and their highlights.
            if (!value && search.query) onSearch({ query: '', ignoreCase: search.ignoreCase, regex: search.regex });
          }}
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
        <Checkbox
          checked={search.ignoreCase}
          label="Ignore case"
          onToggle={(ignoreCase) => onSearch({ query: search.query, ignoreCase, regex: search.regex })}
        />
        <Checkbox
          checked={search.regex}
          label="Regex"
          onToggle={(regex) => onSearch({ query: search.query, ignoreCase: search.ignoreCase, regex })}
        />
        <span className="search-count" role="status">
          {draft !== search.query && draft
            ? 'Enter to search'
            : search.busy
              ? 'Searching…'
              : search.error
                ? search.error
                : search.result
                  ? hits.length
                    ? `${search.current + 1} / ${search.result.total.toLocaleString()}${search.result.more ? '+' : ''}`
                    : 'No results'
                  : ''}
        </span>
        <VscodeButton
          icon="arrow-up"
          iconOnly
          secondary
          title="Previous match (Shift+Enter)"
          aria-label="Previous match"
          disabled={hits.length === 0}
          onClick={() => onStep(-1)}
        />
        <VscodeButton
          icon="arrow-down"
          iconOnly
          secondary
          title="Next match (Enter)"
          aria-label="Next match"
          disabled={hits.length === 0}
          onClick={() => onStep(1)}
        />
        {hit && (
          <span className="hit-where">
            event #{hit.index}, {hit.where} line {hit.line.toLocaleString()}{' '}
            {onOpenHit && (
              <LinkButton
                onClick={() => {
                  onOpenHit();
                }}
              >
                open there
              </LinkButton>
            )}
          </span>
        )}
      </search>
    </header>
  );
}
