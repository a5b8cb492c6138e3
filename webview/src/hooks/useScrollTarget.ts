import { useCallback, useState } from 'react';

/** Where the list should scroll: a new target scrolls there, even to the same index again. */
export interface ScrollTarget {
  index: number;
  seq: number;
}

export function useScrollTarget(initial?: number): [ScrollTarget | undefined, (index: number) => void] {
  const [target, setTarget] = useState<ScrollTarget | undefined>(initial ? { index: initial, seq: 1 } : undefined);
  const scrollTo = useCallback((index: number) => setTarget((t) => ({ index, seq: (t?.seq ?? 0) + 1 })), []);
  return [target, scrollTo];
}
