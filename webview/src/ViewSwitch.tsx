/**
 * For an imported run, which of its two views the right column shows (as the agent sent it, or
 * with Retained Outputs); and the history policy, ours, offered only where it applies.
 */
import VscodeButton from '@vscode-elements/react-elements/dist/components/VscodeButton.js';
import type { View } from '../../shared/history';
import type { RunCounts } from '../../shared/protocol';
import { Checkbox } from './Checkbox';
import { fidelityNote, viewLabel } from './viewLabels';

export function ViewSwitch({
  outline,
  view,
  onView,
  modelCall,
  policy,
  onPolicy,
}: {
  outline: RunCounts;
  view: View;
  onView: (view: View) => void;
  modelCall: number;
  policy: boolean;
  onPolicy: (policy: boolean) => void;
}) {
  const policyApplies = !outline.source || view === 'retained';
  const policyBox = (
    <Checkbox
      className="policy"
      checked={policy && policyApplies}
      label="History policy"
      title={
        policyApplies
          ? 'Show older bodies as the configured history policy (retained.history.*) sends them: references instead of text. Writes nothing.'
          : 'The history policy is Retained Outputs’ own: switch to “With Retained Outputs” to see it applied to this run'
      }
      onToggle={onPolicy}
    />
  );
  if (!outline.source) return <div className="view-row">{policyBox}</div>;
  return (
    <div className="view-row">
      {/* Two toggle buttons: vscode-button keeps its own role (button), so it cannot be a radio. */}
      <fieldset aria-label="Which view of the model calls" className="view-choice">
        {(['sent', 'retained'] as const).map((v) => (
          // A string: React drops a custom element's attribute when its value is `false`.
          <VscodeButton
            key={v}
            secondary={view !== v}
            aria-pressed={view === v ? 'true' : 'false'}
            onClick={() => onView(v)}
          >
            {viewLabel(outline, v)}
          </VscodeButton>
        ))}
      </fieldset>
      {policyApplies && policyBox}
      <span className="model-call-note">
        {view === 'sent'
          ? fidelityNote(outline, modelCall)
          : 'The same model calls, each result over the threshold as the stub Retained Outputs would have sent.'}
      </span>
    </div>
  );
}
