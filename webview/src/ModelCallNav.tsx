/**
 * Which model call's view the right column shows: back and forth, a number, or the next one (the
 * call the run would make now), which follows the run as it grows.
 */
import type { VscodeTextfield as TextfieldElement } from '@vscode-elements/elements/dist/vscode-textfield/vscode-textfield.js';
import VscodeButton from '@vscode-elements/react-elements/dist/components/VscodeButton.js';
import VscodeTextfield from '@vscode-elements/react-elements/dist/components/VscodeTextfield.js';
import type { RunCounts } from '../../shared/protocol';
import { useDomEvent } from './hooks/useDomEvent';
import { madeCalls } from './viewLabels';

export function ModelCallNav({
  outline,
  modelCall,
  following,
  onModelCall,
}: {
  outline: RunCounts;
  modelCall: number;
  following: boolean;
  onModelCall: (modelCall: number | undefined) => void;
}) {
  const made = madeCalls(outline);
  const next = modelCall > made;
  const field = useDomEvent<TextfieldElement>('change', (element) => {
    const k = Number(element.value);
    if (Number.isInteger(k) && k >= 1) onModelCall(Math.min(k, made + 1));
  });
  return (
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
        {next ? (
          'The next model call'
        ) : (
          <>
            Model call{' '}
            <VscodeTextfield
              ref={field}
              className="model-call-input"
              type="number"
              min={1}
              max={made}
              value={String(modelCall)}
              aria-label="Model call"
            />{' '}
            of {made}
          </>
        )}
      </span>
      <VscodeButton
        icon="chevron-right"
        iconOnly
        secondary
        title="Next model call"
        aria-label="Next model call"
        disabled={next}
        onClick={() => onModelCall(modelCall + 1)}
      />
      <VscodeButton
        secondary
        disabled={following}
        title="Show the next model call, and follow the run as it grows"
        onClick={() => onModelCall(undefined)}
      >
        Latest
      </VscodeButton>
      <span className="model-call-note">
        {next
          ? `not made yet: what the agent sends if the run goes on (${made} made so far)`
          : `what model call ${modelCall} was sent`}
      </span>
    </div>
  );
}
