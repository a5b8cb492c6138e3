import { useCallback, useState } from 'react';
import type { RunSearchHit } from '../../../shared/protocol';

/** Where the list should scroll: a new target scrolls there, even to the same index again. */
export interface ScrollTarget {
  index: number;
  seq: number;
  /** A search hit in that row: the list scrolls on to its line. */
  hit?: Pick<RunSearchHit, 'where' | 'line' | 'callId'> | undefined;
}

export function useScrollTarget(
  initial?: number,
): [ScrollTarget | undefined, (index: number, hit?: ScrollTarget['hit']) => void] {
  const [target, setTarget] = useState<ScrollTarget | undefined>(initial ? { index: initial, seq: 1 } : undefined);
  const scrollTo = useCallback(
    (index: number, hit?: ScrollTarget['hit']) => setTarget((t) => ({ index, seq: (t?.seq ?? 0) + 1, hit })),
    [],
  );
  return [target, scrollTo];
}
