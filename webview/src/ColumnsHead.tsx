import type { View } from '../../shared/history';
import type { Outline } from '../../shared/protocol';
import { viewLabel } from './Header';

/** The heads of the two columns: the full transcript, and which view of which model call. */
export function ColumnsHead({ outline, view, modelCall }: { outline: Outline; view: View; modelCall: number }) {
  return (
    <div className="columns-head" aria-hidden="true">
      <span>Full transcript</span>
      <span>
        {viewLabel(outline, view)} · model call {modelCall}
      </span>
    </div>
  );
}
