/** The two cells of a row: the event as recorded (left) and what the chosen model call sent (right). */
import { memo } from 'react';
import { formatBytes, formatCount, formatWhen } from '../../shared/format';
import type { CallCell, InspectRow } from '../../shared/protocol';
import { INDEX_OPENING } from '../../shared/stubText';
import { Body } from './Body';
import { LinkButton } from './LinkButton';
import type { Highlight } from './segments';
import { useTabIndex } from './tabbable';

/** What became of a withheld result's original, for its badge. */
const WITHHELD_TITLE = {
  written: 'A guard withheld this result; its original is in the store (withheld/).',
  unfinished: 'A guard withheld this result; its original was still being written at the deadline.',
  failed: 'A guard withheld this result; writing its original failed, so it was not kept.',
  skipped: "A guard withheld this result; its original is kept only in the store's audit log.",
} as const;

export interface CellProps {
  row: InspectRow;
  highlight?: Highlight | undefined;
  onOpen: (valueId: string, line?: number, endLine?: number) => void;
  /** Opens an event's whole body (or one call's arguments) from the transcript. */
  onOpenEvent: (index: number, callId?: string) => void;
  /** Selects a model call: the list lands where its history ends, or on event `at`. */
  onSelectModelCall: (modelCall: number, at?: number) => void;
  /** How many model calls the run made: a later one is the next, not made yet. */
  made: number;
}

const KIND_ICON: Record<InspectRow['full']['kind'], string> = {
  run_started: 'debug-start',
  user: 'account',
  system: 'info',
  compaction: 'fold',
  request_shape: 'settings-gear',
  model_call: 'send',
  assistant: 'hubot',
  tool_result: 'output',
  turn_ended: 'debug-stop',
};
const KIND_LABEL: Record<InspectRow['full']['kind'], string> = {
  run_started: 'Run started',
  user: 'User',
  system: 'System',
  compaction: 'Compaction',
  request_shape: 'System prompt and tools',
  model_call: 'Model call',
  assistant: 'Assistant',
  tool_result: 'Tool result',
  turn_ended: 'Turn ended',
};

const FORM_WORDS = {
  stub: 'a stub',
  reference: 'a reference',
  truncated: "the agent's cut",
  verbatim: 'as it is',
} as const;

/** An injected row that is the index Retained Outputs handed the model after a compaction, not the agent's own text. */
const isIndex = (full: InspectRow['full']) => full.text?.text.startsWith(INDEX_OPENING) === true;
const injectedLabel = (full: InspectRow['full']) =>
  isIndex(full) ? 'Index handed to the model' : 'Added by the agent';

/** What a screen reader says for a row: the event, and what the model got of it. */
export function rowLabel(row: InspectRow): string {
  const { full, model } = row;
  const what = [
    `Event ${row.index}: ${full.injected ? injectedLabel(full).toLowerCase() : KIND_LABEL[full.kind]}`,
    full.tool,
    full.isError ? 'error' : undefined,
  ]
    .filter(Boolean)
    .join(' ');
  const got = !model.sent
    ? 'not in this model call'
    : model.form
      ? `the model got ${FORM_WORDS[model.form]}`
      : 'sent as it is';
  return `${what}; ${got}`;
}

function Calls({
  calls,
  links,
  highlight,
  onOpen,
  onOpenAll,
}: { calls: CallCell[]; links: boolean; onOpenAll?: (callId: string) => void } & Pick<
  CellProps,
  'highlight' | 'onOpen'
>) {
  return (
    <>
      {calls.map((call) => (
        <div className="call" key={call.id} data-call={call.id}>
          <div className="call-title">
            <span className="codicon codicon-tools" aria-hidden="true" /> <strong>{call.name}</strong>{' '}
            <code>{call.id}</code>
          </div>
          <Body
            clip={call.arguments}
            links={links}
            highlight={highlight}
            onOpen={onOpen}
            onOpenAll={onOpenAll && (() => onOpenAll(call.id))}
          />
        </div>
      ))}
    </>
  );
}

export const FullCellContent = memo(function FullCellContent({
  row,
  highlight,
  onOpen,
  onOpenEvent,
  onSelectModelCall,
}: CellProps) {
  const { full } = row;
  const time = full.ts ? formatWhen(full.ts) : undefined;
  const tabIndex = useTabIndex();
  return (
    <div role="gridcell" tabIndex={-1} className={`cell full kind-${full.kind}${full.isError ? ' is-error' : ''}`}>
      <div className="cell-title">
        <span className={`codicon codicon-${full.isError ? 'error' : KIND_ICON[full.kind]}`} aria-hidden="true" />
        <span
          className="kind"
          title={
            full.injected
              ? isIndex(full)
                ? 'After a compaction, Retained Outputs named the values retained before it, so the model reads them rather than running their tools again'
                : 'Text the agent added to the turn (a reminder, a command record), not typed by the user'
              : undefined
          }
        >
          {full.injected ? injectedLabel(full) : KIND_LABEL[full.kind]}
        </span>
        {full.kind === 'compaction' && full.reason && <span className="badge">{full.reason}</span>}
        {full.tool && <strong className="tool">{full.tool}</strong>}
        {full.callId && <code className="call-id">{full.callId}</code>}
        {full.kind === 'tool_result' && full.text && (
          <span className="size">
            {formatBytes(full.text.bytes)} · {formatCount(full.text.lines, 'line')}
          </span>
        )}
        {full.durationMs !== undefined && <span className="duration">{full.durationMs.toLocaleString()} ms</span>}
        {full.isError && <span className="badge error-badge">error</span>}
        {full.withheld && (
          <span className="badge withheld-badge" title={WITHHELD_TITLE[full.withheld.outcome]}>
            withheld
          </span>
        )}
        {full.withheld?.file && (
          <LinkButton
            className="open-original"
            title="Open the original the guard withheld (read-only); the model got only the notice"
            onClick={() => onOpenEvent(row.index)}
          >
            open the original
          </LinkButton>
        )}
        {full.thinking !== undefined && !full.thinkingText && (
          <span className="badge" title="Reasoning the provider sent encrypted or redacted: kept, not readable">
            {full.thinking} thinking
          </span>
        )}
        {full.kind === 'assistant' && (
          <LinkButton
            className="model-call-link"
            title="Show the model's view as the model call that produced this message had it"
            onClick={() => {
              onSelectModelCall(row.firstModelCall - 1);
            }}
          >
            model call {row.firstModelCall - 1}
          </LinkButton>
        )}
        <span className="index">
          #{row.index}
          {time ? ` · ${time}` : ''}
        </span>
      </div>
      {full.kind === 'run_started' && (
        <div className="meta">
          {[full.agent, full.model].filter(Boolean).join(' · ')} tools: {full.tools?.join(', ') || 'none'}
        </div>
      )}
      {full.kind === 'turn_ended' && <div className="meta">{full.stopReason}</div>}
      {full.kind === 'request_shape' && (
        <div className="meta">
          {full.tools?.length ?? 0} tools ({formatBytes(full.toolsBytes ?? 0)}): {full.tools?.join(', ') || 'none'}
          {full.text ? ` · system prompt ${formatBytes(full.text.bytes)}` : ''}
        </div>
      )}
      {full.kind === 'model_call' && full.reason && <div className="meta">{full.reason}</div>}
      {full.thinkingText && (
        <details className="thinking">
          <summary tabIndex={tabIndex}>
            Thinking ({full.thinking === 1 ? '1 block' : `${full.thinking} blocks`})
          </summary>
          <Body clip={full.thinkingText} highlight={highlight} onOpen={onOpen} />
        </details>
      )}
      {full.text && (
        <Body
          clip={full.text}
          highlight={highlight}
          onOpen={onOpen}
          valueId={full.valueId}
          onOpenAll={() => onOpenEvent(row.index)}
        />
      )}
      {full.sent && (
        <div className="cut-note" title="What the agent sent the model instead of the full result">
          <span className="codicon codicon-info" aria-hidden="true" /> The agent sent the model{' '}
          {formatBytes(full.sent.bytes)} of it.
        </div>
      )}
      {full.lost && (
        <div className="warning-banner" role="note">
          <span className="codicon codicon-warning" aria-hidden="true" /> {full.lost}
        </div>
      )}
      {full.calls && (
        <Calls
          calls={full.calls}
          links={false}
          highlight={highlight}
          onOpen={onOpen}
          onOpenAll={(callId) => onOpenEvent(row.index, callId)}
        />
      )}
    </div>
  );
});

export const ModelCellContent = memo(function ModelCellContent({
  row,
  highlight,
  onOpen,
  onSelectModelCall,
  made,
}: CellProps) {
  const { model, full } = row;
  if (!model.sent) {
    const first = row.firstModelCall;
    return (
      <div role="gridcell" tabIndex={-1} className="cell model unsent">
        {full.kind === 'model_call' ? (
          `model call ${first - 1} was sent here: the history above, from the last compaction`
        ) : full.kind === 'run_started' || full.kind === 'turn_ended' ? (
          'not a message: nothing sent'
        ) : (
          <>
            not in this model call: first sent in{' '}
            <LinkButton
              className="first-sent-link"
              title="Show the model's view of that model call, here"
              onClick={() => onSelectModelCall(first, row.index)}
            >
              {first > made ? 'the next model call' : `model call ${first}`}
            </LinkButton>
          </>
        )}
      </div>
    );
  }
  const linked = model.form === 'stub' || model.form === 'reference';
  const marked = linked || model.form === 'truncated';
  return (
    <div role="gridcell" tabIndex={-1} className={`cell model${model.form ? ` form-${model.form}` : ''}`}>
      {(marked || model.savedBytes > 0) && (
        <div className="cell-title">
          <span className={`codicon codicon-${linked ? 'archive' : 'symbol-string'}`} aria-hidden="true" />
          <span className="badge form-badge">
            {model.form === 'reference'
              ? 'reference'
              : model.form === 'stub'
                ? 'stub'
                : model.form === 'truncated'
                  ? "agent's cut"
                  : 'input references'}
          </span>
          {model.savedBytes > 0 && <span className="saved">saved {formatBytes(model.savedBytes)}</span>}
        </div>
      )}
      {model.text && <Body clip={model.text} links={linked} highlight={highlight} onOpen={onOpen} />}
      {model.calls && <Calls calls={model.calls} links highlight={highlight} onOpen={onOpen} />}
      {model.synthetic?.map((text, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the list is fixed for the row.
        <div className="synthetic" key={i}>
          <span className="codicon codicon-debug-disconnect" aria-hidden="true" /> {text}
        </div>
      ))}
    </div>
  );
});
