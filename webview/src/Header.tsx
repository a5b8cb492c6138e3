/**
 * The inspector's header, a row of small parts: the run's title and counts, which model call,
 * which view (and the history policy), the figures and their chart, and search.
 */

import VscodeProgressRing from '@vscode-elements/react-elements/dist/components/VscodeProgressRing.js';
import type { ComponentProps } from 'react';
import { formatBytes, formatCount } from '../../shared/format';
import type { View } from '../../shared/history';
import type { RunCounts } from '../../shared/protocol';
import { Figures } from './Figures';
import type { SearchState } from './hooks/useRunSearch';
import { ModelCallNav } from './ModelCallNav';
import { SearchBar } from './SearchBar';
import { ViewSwitch } from './ViewSwitch';

export interface HeaderProps {
  runId: string;
  outline: RunCounts;
  /** The figures of the view shown; undefined while first counted. */
  figures: ComponentProps<typeof Figures>['figures'];
  /** The figures are being counted (again, when `figures` is set). */
  counting: boolean;
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
  onOpenHit?: (() => void) | undefined;
}

function RunTitle({ runId, outline, busy }: Pick<HeaderProps, 'runId' | 'outline' | 'busy'>) {
  return (
    <div className="title-row">
      <h1>
        <span className="codicon codicon-history" aria-hidden="true" /> {runId}
      </h1>
      <span className="counts">
        {formatCount(outline.events, 'event')} · {formatCount(outline.toolCalls, 'tool call')} ·{' '}
        {formatCount(outline.retained, 'retained value')} ({formatBytes(outline.keptOutBytes)} kept out)
        {outline.errors > 0 ? ` · ${formatCount(outline.errors, 'error')}` : ''}
      </span>
      {/* Its place is kept while idle, so the row does not move when the ring comes and goes. */}
      <span className="busy">{busy && <VscodeProgressRing aria-label="Loading" />}</span>
    </div>
  );
}

export function Header(props: HeaderProps) {
  const { outline, modelCall, onModelCall } = props;
  return (
    <header className="header">
      <RunTitle runId={props.runId} outline={outline} busy={props.busy} />
      <ModelCallNav outline={outline} modelCall={modelCall} following={props.following} onModelCall={onModelCall} />
      <ViewSwitch
        outline={outline}
        view={props.view}
        onView={props.onView}
        modelCall={modelCall}
        policy={props.policy}
        onPolicy={props.onPolicy}
      />
      <Figures figures={props.figures} counting={props.counting} modelCall={modelCall} onModelCall={onModelCall} />
      <SearchBar search={props.search} onSearch={props.onSearch} onStep={props.onStep} onOpenHit={props.onOpenHit} />
    </header>
  );
}
