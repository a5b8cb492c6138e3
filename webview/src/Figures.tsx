/**
 * What the model calls cost: for the chosen call and for all of them, tokens and bytes sent
 * against one baseline, with the saving; and a chart of every model call. A run recorded here
 * is set against the same history with every result in full; an imported run, in either view,
 * shows both: as its agent sent it (the baseline) and with Retained Outputs.
 */
import VscodeProgressRing from '@vscode-elements/react-elements/dist/components/VscodeProgressRing.js';
import { agentName } from '../../shared/agents';
import { formatBytes, formatSaving, formatTokens } from '../../shared/format';
import type { Compare, ModelCallFigures, Outline } from '../../shared/protocol';
import { madeCalls } from './viewLabels';

interface Pair {
  tokens: number;
  bytes: number;
}

/** The two sides of a figure: the baseline and what is set against it, with their names. */
interface Sides {
  base: Pair;
  ours: Pair;
}

const BASELINE = { tokens: 0, bytes: 0 };

function sidesOf(
  outline: Outline,
  f: Pick<ModelCallFigures, 'tokensSent' | 'bytesSent' | 'tokensFull' | 'bytesFull'>,
  other: Pick<ModelCallFigures, 'tokensSent' | 'bytesSent'> | undefined,
): Sides {
  if (!outline.source || !other)
    return { base: { tokens: f.tokensFull, bytes: f.bytesFull }, ours: { tokens: f.tokensSent, bytes: f.bytesSent } };
  const shown = { tokens: f.tokensSent, bytes: f.bytesSent };
  const theirs = { tokens: other.tokensSent, bytes: other.bytesSent };
  return outline.view === 'sent' ? { base: shown, ours: theirs } : { base: theirs, ours: shown };
}

function Row({
  label,
  sides,
  names,
  tokenizer,
}: {
  label: string;
  sides: Sides;
  names: [string, string];
  tokenizer: string;
}) {
  const { base, ours } = sides;
  return (
    <div className="figures" title={`Tokens estimated with ${tokenizer}.`}>
      <span className="figures-label">{label}</span>
      <span className="full">
        {names[0]} <strong>{formatTokens(base.tokens)}</strong> tokens · {formatBytes(base.bytes)}
      </span>
      <span className="sent">
        {names[1]} <strong>{formatTokens(ours.tokens)}</strong> tokens · {formatBytes(ours.bytes)}
      </span>
      <span className="saving">{formatSaving(ours.tokens, base.tokens)}</span>
    </div>
  );
}

/**
 * The figures, or while they are first counted a line saying so (the rows are on screen before);
 * figures being counted again after the run changed stay, marked busy.
 */
export function Figures({
  figures,
  counting,
  modelCall,
  onModelCall,
}: {
  figures: { outline: Outline; compare: Compare | undefined } | undefined;
  counting: boolean;
  modelCall: number;
  onModelCall: (modelCall: number) => void;
}) {
  if (!figures)
    return (
      <div className="figures-block" role="status" aria-busy="true">
        <p className="figures-counting">
          <VscodeProgressRing className="busy" aria-label="Counting" /> Counting the tokens of each model call…
        </p>
      </div>
    );
  return (
    <div
      className="figures-block"
      aria-busy={counting}
      title={counting ? 'Counting again: the run changed' : undefined}
    >
      <CountedFigures {...figures} modelCall={modelCall} onModelCall={onModelCall} />
    </div>
  );
}

function CountedFigures({
  outline,
  compare,
  modelCall,
  onModelCall,
}: {
  outline: Outline;
  compare: Compare | undefined;
  modelCall: number;
  onModelCall: (modelCall: number) => void;
}) {
  const made = madeCalls(outline);
  const names: [string, string] = outline.source
    ? [`as ${agentName(outline.source.format)} sent it`, 'with Retained Outputs']
    : ['in full', 'sent'];
  const figures = outline.modelCalls[modelCall - 1];
  const other = compare?.modelCalls[modelCall - 1];
  const calls = outline.modelCalls.slice(0, made).map((f, i) => sidesOf(outline, f, compare?.modelCalls[i]));
  const totals = sidesOf(
    outline,
    outline.totals,
    compare ? { tokensSent: compare.totals.tokensSent, bytesSent: compare.totals.bytesSent } : undefined,
  );
  return (
    <>
      {figures && (
        <Row
          label={modelCall > made ? 'The next model call' : `Model call ${modelCall}`}
          sides={sidesOf(outline, figures, other)}
          names={names}
          tokenizer={outline.tokenizer}
        />
      )}
      {made > 0 ? (
        <Row
          label={made === 1 ? 'The one model call' : `All ${made.toLocaleString('en-US')} model calls`}
          sides={totals}
          names={names}
          tokenizer={outline.tokenizer}
        />
      ) : (
        <p className="figures-none">No model call was made in this run yet.</p>
      )}
      {made > 1 && <ModelCallChart calls={calls} names={names} selected={modelCall} onModelCall={onModelCall} />}
    </>
  );
}

/**
 * Tokens per model call on a linear scale, so the saving reads as it is: the baseline (faint)
 * behind ours (solid); a bar too small to see keeps a sliver. At most 240 bars, each the largest
 * model call of its bucket; a click selects it.
 */
function ModelCallChart({
  calls,
  names,
  selected,
  onModelCall,
}: {
  calls: Sides[];
  names: [string, string];
  selected: number;
  onModelCall: (modelCall: number) => void;
}) {
  const bars = Math.min(calls.length, 240);
  const per = calls.length / bars;
  const top = Math.max(1, ...calls.map((c) => c.base.tokens), ...calls.map((c) => c.ours.tokens));
  const height = (tokens: number) => (tokens > 0 ? Math.max(2, (tokens / top) * 100) : 0);
  return (
    <div className="chart-row">
      <span className="chart-legend" title="Estimated tokens per model call">
        tokens per model call: <span className="legend-full">{names[0]}</span>{' '}
        <span className="legend-sent">{names[1]}</span>
      </span>
      <svg
        className="chart"
        viewBox={`0 0 ${bars} 100`}
        preserveAspectRatio="none"
        role="img"
        aria-label={`Tokens per model call: ${names[0]} and ${names[1]}`}
      >
        {Array.from({ length: bars }, (_, b) => {
          const from = Math.floor(b * per);
          const to = Math.max(Math.floor((b + 1) * per), from + 1);
          let peak = from;
          for (let i = from; i < to; i++) if ((calls[i]?.base.tokens ?? 0) > (calls[peak]?.base.tokens ?? 0)) peak = i;
          const { base, ours } = calls[peak] ?? { base: BASELINE, ours: BASELINE };
          const isSelected = selected - 1 >= from && selected - 1 < to;
          return (
            // biome-ignore lint/suspicious/noArrayIndexKey: a bucket is its position on the axis.
            // biome-ignore lint/a11y/noStaticElementInteractions: a pointer shortcut; the model call field and its buttons do the same from the keyboard.
            <g key={b} className={isSelected ? 'selected' : undefined} onClick={() => onModelCall(peak + 1)}>
              <title>{`Model call ${peak + 1}: ${names[0]} ${formatTokens(base.tokens)}, ${names[1]} ${formatTokens(ours.tokens)} tokens`}</title>
              <rect
                className="bar-full"
                x={b + 0.1}
                width={0.8}
                y={100 - height(base.tokens)}
                height={height(base.tokens)}
              />
              <rect
                className="bar-sent"
                x={b + 0.1}
                width={0.8}
                y={100 - height(ours.tokens)}
                height={height(ours.tokens)}
              />
            </g>
          );
        })}
      </svg>
    </div>
  );
}
