/**
 * The inspector page: it says it is ready (with the state it saved), and shows the run the
 * extension names in its answer, from that state when the extension found it valid.
 */
import { useEffect, useState } from 'react';
import type { InspectorState } from '../../shared/messages';
import type { Host } from './host';
import { Inspector } from './Inspector';
import { Loading } from './Loading';

export function App({ host }: { host: Host }) {
  const [start, setStart] = useState<{
    runId: string;
    session?: string | undefined;
    team?: boolean | undefined;
    saved?: InspectorState | undefined;
  }>();
  useEffect(
    () =>
      host.on((message) => {
        if (message.type === 'init')
          setStart({ runId: message.runId, session: message.session, team: message.team, saved: message.state });
      }),
    [host],
  );
  useEffect(() => host.post({ type: 'ready', state: host.getState() }), [host]);
  if (!start) return <Loading runId={undefined} />;
  return (
    <Inspector
      key={start.runId}
      host={host}
      runId={start.runId}
      session={start.session}
      team={start.team}
      saved={start.saved}
    />
  );
}
