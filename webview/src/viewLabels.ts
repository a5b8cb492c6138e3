/** What the inspector calls the views of a run and how their model calls were rebuilt, in plain words. */
import { agentName } from '../../shared/agents';
import type { View } from '../../shared/history';
import type { RunCounts } from '../../shared/protocol';

/** What the right column shows: for an imported run, which of its two views, said plainly. */
export function viewLabel(outline: RunCounts, view: View): string {
  if (!outline.source) return "Model's view";
  return view === 'sent' ? `As ${agentName(outline.source.format)} sent it` : 'With Retained Outputs (simulated)';
}

/** The model calls a run made: its outline's last entry is the next one, not made yet. */
export function madeCalls(outline: RunCounts): number {
  return Math.max(0, outline.modelCalls.length - 1);
}

/** How the shown model call was rebuilt, for an imported run: each model call has its own fidelity. */
export function fidelityNote(outline: RunCounts, modelCall: number): string {
  const source = outline.source;
  if (!source) return '';
  const agent = agentName(source.format);
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
