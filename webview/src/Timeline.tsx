/**
 * The two columns, one row per event, virtualized: only the rows on screen (and a few more)
 * exist in the DOM, and rows not fetched yet show a placeholder until their page arrives.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef } from 'react';
import type { InspectRow } from '../../shared/protocol';
import { FullCellView, ModelCellView } from './Cells';
import type { Highlight } from './segments';

export interface TimelineProps {
  count: number;
  rowAt: (index: number) => InspectRow | undefined;
  /** Bumps whenever rows arrive, so the list re-renders. */
  version: number;
  /** Called with the first and last index on screen. */
  onRange: (first: number, last: number) => void;
  /** Scrolls to `index` whenever `seq` changes. */
  scrollTo?: { index: number; seq: number } | undefined;
  current?: number | undefined;
  highlight?: Highlight | undefined;
  onOpen: (valueId: string, line?: number, endLine?: number) => void;
  onOpenEvent: (index: number, callId?: string) => void;
  onSelectModelCall: (modelCall: number) => void;
  /** The last event the chosen model call was sent: a line marks where its history ends. */
  historyEnd?: { index: number; modelCall: number } | undefined;
}

export function Timeline({
  count,
  rowAt,
  version,
  onRange,
  scrollTo,
  current,
  highlight,
  onOpen,
  onOpenEvent,
  onSelectModelCall,
  historyEnd,
}: TimelineProps) {
  const parent = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => parent.current,
    estimateSize: () => 120,
    overscan: 6,
    // Until the browser measures the list, assume a window's worth (also what jsdom gets).
    initialRect: { width: 1200, height: 800 },
  });
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? -1;

  useEffect(() => {
    if (last >= 0) onRange(first, last);
  }, [first, last, onRange]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: only a new request to scroll (seq) scrolls; a longer list does not move the view.
  useEffect(() => {
    if (scrollTo && scrollTo.index < count) virtualizer.scrollToIndex(scrollTo.index, { align: 'start' });
  }, [scrollTo?.seq]);

  return (
    <div className="timeline" ref={parent} data-version={version}>
      <ul
        className="timeline-inner"
        style={{ height: virtualizer.getTotalSize() }}
        aria-label="Events: the full transcript beside the model's view"
      >
        {items.map((item) => {
          const row = rowAt(item.index);
          return (
            <li
              key={item.key}
              data-index={item.index}
              ref={virtualizer.measureElement}
              className={`row${item.index === current ? ' current' : ''}${row ? '' : ' loading'}${item.index === historyEnd?.index ? ' history-end' : ''}`}
              data-history-end={
                item.index === historyEnd?.index
                  ? `model call ${historyEnd.modelCall} was sent everything above this line`
                  : undefined
              }
              style={{ transform: `translateY(${item.start}px)` }}
            >
              {row ? (
                <>
                  <FullCellView
                    row={row}
                    highlight={highlight}
                    onOpen={onOpen}
                    onOpenEvent={onOpenEvent}
                    onSelectModelCall={onSelectModelCall}
                  />
                  <ModelCellView
                    row={row}
                    highlight={highlight}
                    onOpen={onOpen}
                    onOpenEvent={onOpenEvent}
                    onSelectModelCall={onSelectModelCall}
                  />
                </>
              ) : (
                <div className="placeholder">Loading event {item.index}…</div>
              )}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
