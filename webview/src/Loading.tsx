import VscodeProgressRing from '@vscode-elements/react-elements/dist/components/VscodeProgressRing.js';

/** Shown until the run's first page arrives: reading a long transcript takes a moment, once. */
export function Loading({ runId }: { runId: string | undefined }) {
  return (
    <div className="loading-page" role="status">
      <VscodeProgressRing className="busy" aria-label="Loading" /> Reading the run{runId ? ` ${runId}` : ''}… (a long
      transcript takes a few seconds, once)
    </div>
  );
}
