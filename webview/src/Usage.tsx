/**
 * "Where the tokens go": the chosen model call's request split into its parts (a stacked bar,
 * and the same figures as a list, which is what a screen reader reads), its prompt-cache reads
 * and writes with where the prefix broke, and the cost, from `retained/usage`. Asked for only
 * while open, and again when the run, the view or the policy changes.
 */
import { useEffect, useState } from 'react';
import { formatCount, formatTokens } from '../../shared/format';
import type { View } from '../../shared/history';
import { type RunUsage, USAGE_PARTS, type UsagePart } from '../../shared/usage';
import type { Host } from './host';

const LABELS: Record<UsagePart, string> = {
  systemPrompt: 'system prompt',
  tools: 'tool definitions',
  system: 'system messages and reminders',
  user: 'user text',
  assistant: 'assistant text',
  thinking: 'thinking',
  toolInputs: 'tool inputs',
  toolResults: 'tool results in full',
  stubs: 'stubs',
  references: 'references',
};

const BREAKS = {
  first: 'the first call: nothing cached before it',
  compaction: 'a compaction started a new history',
  shape: 'the system prompt or the tools changed',
  reference: 'the history policy put a reference in place of an earlier body',
} as const;

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
  version,
}: {
  host: Host;
  modelCall: number;
  view: View;
  policy: boolean;
  /** Changes when the run does: asked for again. */
  version: number;
}) {
  const [open, setOpen] = useState(false);
  const [usage, setUsage] = useState<RunUsage>();
  const [error, setError] = useState<string>();
  // biome-ignore lint/correctness/useExhaustiveDependencies: asked for again when the run changes (version).
  useEffect(() => {
    if (!open) return;
    let current = true;
    host.request('usage', { view, policy }).then(
      (answer) => {
        if (!current) return;
        setUsage(answer);
        setError(undefined);
      },
      (err: Error) => {
        if (current) setError(err.message);
      },
    );
    return () => {
      current = false;
    };
  }, [host, open, view, policy, version]);

  const call = usage?.modelCalls[Math.min(modelCall, usage.modelCalls.length) - 1];
  const made = usage ? usage.modelCalls.length - 1 : 0;
  return (
    <details className="usage" onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>Where the tokens go</summary>
      {error && <p role="alert">{error}</p>}
      {open && !usage && !error && <p>Counting…</p>}
      {usage && call && (
        <div className="usage-body">
          <p className="usage-title">
            {modelCall > made ? 'The next model call' : `Model call ${call.modelCall}`}:{' '}
            <strong>{formatTokens(call.total)}</strong> tokens
          </p>
          <svg className="usage-bar" viewBox="0 0 1000 10" preserveAspectRatio="none" aria-hidden="true">
            {segments(call.parts, call.total).map(({ part, x, width }) => (
              <rect key={part} className={`part-${part}`} x={x} width={width} y={0} height={10}>
                <title>{`${LABELS[part]}: ${formatTokens(call.parts[part])} tokens`}</title>
              </rect>
            ))}
          </svg>
          <ul className="usage-legend">
            {USAGE_PARTS.filter((part) => call.parts[part] > 0).map((part) => (
              <li key={part}>
                <span className={`usage-swatch part-${part}`} aria-hidden="true" />
                {LABELS[part]} <strong>{formatTokens(call.parts[part])}</strong> (
                {percent(call.parts[part], call.total)})
              </li>
            ))}
          </ul>
          <p className="usage-cache">
            Prompt cache (simulated): <strong>{formatTokens(call.cache.read)}</strong> read,{' '}
            <strong>{formatTokens(call.cache.write)}</strong> written.{' '}
            {call.breakReason
              ? `The prefix broke ${call.breakAt !== undefined ? `at event ${call.breakAt + 1}` : ''}: ${BREAKS[call.breakReason]}.`
              : 'All of the previous request was read from the cache.'}
          </p>
          {call.provider && (
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
              ? `${call.usd !== undefined ? `${usd(call.usd)} this call · ` : ''}${usd(usage.totals.usd)} for the ${formatCount(made, 'model call')} (${usage.model}, list prices of ${usage.price.asOf}).`
              : `Tokens only: no price for ${usage.model ?? 'this run’s model'}.`}{' '}
            Tokens: {usage.tokenizer}.
          </p>
        </div>
      )}
    </details>
  );
}
