import type { View } from '../../shared/history';
import type { RunCounts } from '../../shared/protocol';
import { madeCalls, viewLabel } from './viewLabels';

/** The heads of the two columns, the grid's first row: the full transcript, and which view of which model call. */
export function ColumnsHead({ outline, view, modelCall }: { outline: RunCounts; view: View; modelCall: number }) {
  return (
    <div className="columns-head" role="row" aria-rowindex={1} tabIndex={-1}>
      <span role="columnheader" tabIndex={-1}>
        Full transcript
      </span>
      <span role="columnheader" tabIndex={-1}>
        {viewLabel(outline, view)} ·{' '}
        {modelCall > madeCalls(outline) ? 'the next model call' : `model call ${modelCall}`}
      </span>
    </div>
  );
}
