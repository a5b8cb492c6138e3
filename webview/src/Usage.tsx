/**
 * "Where the tokens go": the chosen model call's request split into its parts (a stacked bar,
 * and the same figures as a list, which is what a screen reader reads), its prompt-cache reads
 * and writes with where the prefix broke, and the cost; the context's size across the run (for
 * an imported run, as its agent sent it beside with Retained Outputs), compactions marked; and
 * every call whose cached prefix broke. From `retained/usage`, asked for only while open, and
 * again when the run, the view or the policy changes.
 */
import VscodeProgressRing from '@vscode-elements/react-elements/dist/components/VscodeProgressRing.js';
import { useEffect, useState } from 'react';
import { formatCount, formatTokens } from '../../shared/format';
import type { View } from '../../shared/history';
import { BREAK_WORDS, type RunUsage, USAGE_PART_WORDS, USAGE_PARTS, type UsagePart } from '../../shared/usage';
import type { Host } from './host';
import { LinkButton } from './LinkButton';

/** Each part's stretch of a 1000-wide bar, in order; a part too small to see keeps a sliver. */
function segments(parts: Record<UsagePart, number>, total: number) {
  let x = 0;
  return USAGE_PARTS.filter((part) => parts[part] > 0).map((part) => {
    const width = Math.max(2, (parts[part] / Math.max(1, total)) * 1000);
    const at = x;
    x += width;
    return { part, x: at, width };
  });
}

const usd = (n: number) => `$${n < 0.01 ? n.toFixed(4) : n.toFixed(2)}`;
const percent = (part: number, whole: number) => (whole > 0 ? `${Math.round((part / whole) * 100)} %` : '0 %');

export function Usage({
  host,
  modelCall,
  view,
  policy,
  imported,
  onModelCall,
  onOpen,
  version,
}: {
  host: Host;
  modelCall: number;
  view: View;
  policy: boolean;
  /** An imported run: its other view is charted beside. */
  imported: boolean;
  onModelCall: (modelCall: number) => void;
  /** Opens a retained value of the run. */
  onOpen: (valueId: string) => void;
  /** Changes when the run does: asked for again. */
  version: number;
}) {
  const [open, setOpen] = useState(false);
  const [usage, setUsage] = useState<RunUsage>();
  const [other, setOther] = useState<RunUsage>();
  const [error, setError] = useState<string>();
  // biome-ignore lint/correctness/useExhaustiveDependencies: asked for again when the run changes (version).
  useEffect(() => {
    if (!open) return;
    let current = true;
    Promise.all([
      host.request('usage', { view, policy }),
      // Beside it, the run without Retained Outputs (the server knows which that is); unless this
      // is it (an imported run as its agent sent it), and then the run with Retained Outputs.
      imported && view === 'sent'
        ? host.request('usage', { view: 'retained', policy })
        : host.request('usage', { baseline: true }),
    ]).then(
      ([answer, beside]) => {
        if (!current) return;
        setUsage(answer);
        setOther(beside);
        setError(undefined);
      },
      (err: Error) => {
        if (current) setError(err.message);
      },
    );
    return () => {
      current = false;
    };
  }, [host, open, view, policy, imported, version]);

  const call = usage?.modelCalls[Math.min(modelCall, usage.modelCalls.length) - 1];
  const names: [string, string] = imported ? viewNames(view) : ['as sent', 'with every result in full'];
  const made = usage ? usage.modelCalls.length - 1 : 0;
  return (
    <details className="usage" onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>Where the tokens go</summary>
      {error && <p role="alert">{error}</p>}
      {open && !usage && !error && (
        <p className="figures-counting" role="status" aria-busy="true">
          <VscodeProgressRing className="busy" aria-label="Counting" /> Counting where each model call's tokens go…
        </p>
      )}
      {usage && call && (
        <div className="usage-body">
          <p className="usage-title">
            {modelCall > made ? 'The next model call' : `Model call ${call.modelCall}`}:{' '}
            <strong>{formatTokens(call.total)}</strong> tokens
          </p>
          <svg className="usage-bar" viewBox="0 0 1000 10" preserveAspectRatio="none" aria-hidden="true">
            {segments(call.parts, call.total).map(({ part, x, width }) => (
              <rect key={part} className={`part-${part}`} x={x} width={width} y={0} height={10}>
                <title>{`${USAGE_PART_WORDS[part]}: ${formatTokens(call.parts[part])} tokens`}</title>
              </rect>
            ))}
          </svg>
          <ul className="usage-legend">
            {USAGE_PARTS.filter((part) => call.parts[part] > 0).map((part) => (
              <li key={part}>
                <span className={`usage-swatch part-${part}`} aria-hidden="true" />
                {USAGE_PART_WORDS[part]} <strong>{formatTokens(call.parts[part])}</strong> (
                {percent(call.parts[part], call.total)})
              </li>
            ))}
          </ul>
          <p className="usage-cache">
            Prompt cache ({call.basis === 'provider' ? 'the provider’s count' : 'simulated'}):{' '}
            <strong>{formatTokens(call.cache.read)}</strong> read, <strong>{formatTokens(call.cache.write)}</strong>{' '}
            written{call.cache.write1h > 0 ? ` (${formatTokens(call.cache.write1h)} for an hour)` : ''}
            {call.cache.uncached > 0 ? `, ${formatTokens(call.cache.uncached)} not cached` : ''}.{' '}
            {call.breakReason
              ? `The prefix broke ${call.breakAt !== undefined ? `at event #${call.breakAt}` : ''}: ${BREAK_WORDS[call.breakReason]}.`
              : 'All of the previous request was read from the cache.'}
          </p>
          {call.provider && call.basis === 'estimate' && (
            <p className="usage-provider">
              The provider counted{' '}
              {formatTokens(call.provider.input + call.provider.cacheRead + call.provider.cacheWrite)} input tokens (
              {formatTokens(call.provider.cacheRead)} read from its cache)
              {call.provider.error !== undefined
                ? `; the estimate of what this call added is off by ${Math.round(call.provider.error * 100)} %`
                : ''}
              .
            </p>
          )}
          <p className="usage-cost">
            {usage.price && usage.totals.usd !== undefined
              ? `${call.usd !== undefined ? `${usd(call.usd)} this call · ` : ''}${usd(usage.totals.usd)} for the ${formatCount(made, 'model call')} (${usage.model}, list prices of ${usage.price.asOf}${basisOf(usage.totals.counted, made)}).`
              : `Tokens only: no price for ${usage.model ?? 'this run’s model'} (add it in the setting retained.pricing).`}{' '}
            Tokens: {usage.tokenizer}.
          </p>
          {usage.session && usage.subagents && (
            <p className="usage-session">
              With its {formatCount(usage.subagents.length, 'subagent')}, the session made{' '}
              {formatCount(usage.session.modelCalls, 'model call')}:{' '}
              <strong>{formatTokens(usage.session.total)}</strong> input tokens
              {usage.session.usd !== undefined ? `, ${usd(usage.session.usd)}` : ''} (
              {usage.subagents
                .map(
                  (a) =>
                    `${a.runId.slice(a.runId.lastIndexOf('-agent-') + 1)}: ${formatCount(a.modelCalls, 'call')}${a.usd !== undefined ? `, ${usd(a.usd)}` : ''}`,
                )
                .join('; ')}
              ).
            </p>
          )}
          {other && (
            <Saving usage={usage} other={other} names={names} oursRetained={!imported || view === 'retained'} />
          )}
          {made > 1 && (
            <ContextChart usage={usage} other={other} names={names} selected={modelCall} onModelCall={onModelCall} />
          )}
          <CacheBreaks usage={usage} onModelCall={onModelCall} />
          <Compactions usage={usage} onModelCall={onModelCall} onOpen={onOpen} />
        </div>
      )}
    </details>
  );
}

/**
 * The run's input tokens and cost beside its baseline's, and what Retained Outputs changes, said
 * one way whichever view is shown: the share it saves (or adds) against the run without it.
 */
function Saving({
  usage,
  other,
  names,
  oursRetained,
}: {
  usage: RunUsage;
  other: RunUsage;
  names: [string, string];
  /** Whether `usage` is the run with Retained Outputs (else `other` is). */
  oursRetained: boolean;
}) {
  const ours = usage.totals;
  const base = other.totals;
  const money = ours.usd !== undefined && base.usd !== undefined;
  const [withIt, without] = oursRetained ? [ours, base] : [base, ours];
  return (
    <p className="usage-saving">
      The whole run, {names[0]}: <strong>{formatTokens(ours.total)}</strong> input tokens
      {money ? `, ${usd(ours.usd!)}` : ''}; {names[1]}: {formatTokens(base.total)}
      {money ? `, ${usd(base.usd!)}` : ''}. With Retained Outputs: {change(withIt.total, without.total, 'tokens')}
      {money ? `, ${change(withIt.usd!, without.usd!, 'cost')}` : ''}.
    </p>
  );
}

/** What `withIt` is against `without`, in words: "31 % fewer tokens", "the same cost". */
function change(withIt: number, without: number, what: 'tokens' | 'cost'): string {
  if (without <= 0) return `no ${what} to compare`;
  const percent = Math.round((1 - withIt / without) * 100);
  if (percent === 0) return `the same ${what}`;
  const word = what === 'tokens' ? (percent > 0 ? 'fewer' : 'more') : percent > 0 ? 'less' : 'more';
  return `${Math.abs(percent)} % ${word} ${what}`;
}

/** Which of a run's figures are the provider's own counts. */
const basisOf = (counted: number, made: number) =>
  counted === 0
    ? '; estimated'
    : counted === made
      ? '; the provider’s counts'
      : `; ${formatCount(counted, 'call')} of the provider’s counts, the rest estimated`;

const viewNames = (view: View): [string, string] =>
  view === 'sent'
    ? ['as the agent sent it', 'with Retained Outputs']
    : ['with Retained Outputs', 'as the agent sent it'];

const CHART = { width: 600, height: 150, left: 48, right: 8, top: 8, bottom: 22 };

/**
 * The context's size per model call made: a line (and, for an imported run, the other view's,
 * faint), a y axis with its values, the calls on x, compactions as dashed lines. Each point is
 * a button for the keyboard, and the chart says what it shows in words too.
 */
function ContextChart({
  usage,
  other,
  names,
  selected,
  onModelCall,
}: {
  usage: RunUsage;
  other: RunUsage | undefined;
  names: [string, string] | undefined;
  selected: number;
  onModelCall: (modelCall: number) => void;
}) {
  const calls = usage.modelCalls.slice(0, -1);
  const beside = other?.modelCalls.slice(0, calls.length) ?? [];
  const top = Math.max(1, ...calls.map((c) => c.total), ...beside.map((c) => c.total));
  const plotW = CHART.width - CHART.left - CHART.right;
  const plotH = CHART.height - CHART.top - CHART.bottom;
  const x = (i: number) => CHART.left + (calls.length === 1 ? plotW / 2 : (i / (calls.length - 1)) * plotW);
  const y = (tokens: number) => CHART.top + plotH - (tokens / top) * plotH;
  const line = (list: readonly { total: number }[]) => list.map((c, i) => `${x(i)},${y(c.total)}`).join(' ');
  const compactions = calls.flatMap((c, i) => (c.breakReason === 'compaction' ? [i] : []));
  const peak = calls.reduce((best, c) => (c.total > best.total ? c : best), calls[0]!);
  const summary = `Context size per model call, ${calls.length} calls: from ${formatTokens(calls[0]!.total)} to ${formatTokens(calls[calls.length - 1]!.total)} tokens, at most ${formatTokens(peak.total)} (call ${peak.modelCall})${compactions.length ? `; ${formatCount(compactions.length, 'compaction')}` : ''}.`;
  return (
    <figure className="context-chart">
      <figcaption>
        Context size per model call{names ? `: ${names[0]} (solid), ${names[1]} (faint)` : ''}
        {compactions.length ? '; dashed: a compaction' : ''}
      </figcaption>
      <svg viewBox={`0 0 ${CHART.width} ${CHART.height}`} role="img" aria-label={summary}>
        {[0, 0.5, 1].map((f) => (
          <g key={f} className="axis">
            <line x1={CHART.left} x2={CHART.width - CHART.right} y1={y(top * f)} y2={y(top * f)} />
            <text x={CHART.left - 4} y={y(top * f) + 4} textAnchor="end">
              {formatTokens(Math.round(top * f))}
            </text>
          </g>
        ))}
        <text className="axis" x={x(0)} y={CHART.height - 6} textAnchor="middle">
          1
        </text>
        <text className="axis" x={x(calls.length - 1)} y={CHART.height - 6} textAnchor="middle">
          {calls.length}
        </text>
        {compactions.map((i) => (
          <line key={i} className="compaction" x1={x(i)} x2={x(i)} y1={CHART.top} y2={CHART.top + plotH}>
            <title>{`a compaction before model call ${i + 1}`}</title>
          </line>
        ))}
        {beside.length > 0 && <polyline className="series other" points={line(beside)} />}
        <polyline className="series" points={line(calls)} />
        {calls.map((c, i) => (
          // biome-ignore lint/a11y/noStaticElementInteractions: a shortcut for the mouse; the chart is one image to a screen reader (a control inside it is nested-interactive), and the keyboard picks a model call with the header's arrows.
          <circle
            key={c.modelCall}
            className={`point${c.modelCall === selected ? ' selected' : ''}`}
            cx={x(i)}
            cy={y(c.total)}
            r={c.modelCall === selected ? 4 : 2.5}
            onClick={() => onModelCall(c.modelCall)}
          >
            <title>{`model call ${c.modelCall}: ${formatTokens(c.total)} tokens`}</title>
          </circle>
        ))}
      </svg>
      <p className="sr-summary">{summary}</p>
    </figure>
  );
}

/** Every model call whose cached prefix stopped short of the previous request, and why; each a link to it. */
function CacheBreaks({ usage, onModelCall }: { usage: RunUsage; onModelCall: (modelCall: number) => void }) {
  const calls = usage.modelCalls.slice(0, -1);
  const broken = calls.filter((c) => c.breakReason && c.breakReason !== 'first');
  const read = usage.totals.cache.read;
  const input = usage.totals.total;
  return (
    <div className="cache-breaks">
      <p>
        Over the run: {percent(read, input)} of input tokens read from the cache;{' '}
        {broken.length === 0
          ? 'the prefix never broke after the first call.'
          : `the prefix broke at ${formatCount(broken.length, 'model call')}:`}
      </p>
      {broken.length > 0 && (
        <ul>
          {broken.slice(0, 50).map((c) => (
            <li key={c.modelCall}>
              <LinkButton onClick={() => onModelCall(c.modelCall)}>model call {c.modelCall}</LinkButton> at event #
              {c.breakAt ?? 0}: {BREAK_WORDS[c.breakReason!]} ({formatTokens(c.cache.write)} written again)
            </li>
          ))}
          {broken.length > 50 && <li>… {broken.length - 50} more</li>}
        </ul>
      )}
    </div>
  );
}

/** What each compaction's summary replaced: the events dropped, their tokens, and the retained values among them, each one click away. */
function Compactions({
  usage,
  onModelCall,
  onOpen,
}: {
  usage: RunUsage;
  onModelCall: (modelCall: number) => void;
  onOpen: (valueId: string) => void;
}) {
  if (usage.compactions.length === 0) return null;
  return (
    <div className="compactions">
      <p>Compactions: what each summary replaced.</p>
      <ul>
        {usage.compactions.map((c) => (
          <li key={c.at}>
            Before <LinkButton onClick={() => onModelCall(c.modelCall)}>model call {c.modelCall}</LinkButton>, event #
            {c.at} replaced {formatCount(c.dropped.events, 'event')} ({formatTokens(c.dropped.tokens)} tokens) with a
            summary of {formatTokens(c.summaryTokens)} tokens
            {c.values.length > 0 ? (
              <>
                ; retained values among them, still there to read
                {c.handed !== undefined
                  ? `, and named to the model again in event #${c.handed}`
                  : ', not named to the model again'}
                :{' '}
                {c.values.slice(0, 20).map((v, i) => (
                  <span key={v.valueId}>
                    {i > 0 ? ', ' : ''}
                    <LinkButton onClick={() => onOpen(v.valueId)} title={`${v.tool}, ${v.bytes} bytes`}>
                      #{v.valueId}
                    </LinkButton>
                  </span>
                ))}
                {c.values.length > 20 ? ` and ${c.values.length - 20} more` : ''}
              </>
            ) : (
              '; no retained value among them'
            )}
            .
          </li>
        ))}
      </ul>
    </div>
  );
}
