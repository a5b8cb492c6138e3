/**
 * The two columns, one row per event, virtualized: only the rows on screen (and a few more)
 * exist in the DOM, and rows not fetched yet show a placeholder until their page arrives.
 *
 * For the keyboard and screen readers it is a grid: the column heads, then one row per event,
 * each a single tab stop (arrow keys, Page Up/Down, Home/End move between rows; Enter enters a
 * row's links, Escape leaves them; Left/Right move between a row and its two cells). The
 * focused row is kept rendered however far it scrolls. It is divs with ARIA roles, not a table
 * (biome.json lets these files off useSemanticElements): a virtual list positions each row itself.
 */
import { defaultRangeExtractor, type Range, useVirtualizer } from '@tanstack/react-virtual';
import { type KeyboardEvent, type ReactNode, useCallback, useEffect, useRef, useState } from 'react';
import type { InspectRow } from '../../shared/protocol';
import { type CellProps, FullCellContent, ModelCellContent, rowLabel } from './Cells';
import type { ScrollTarget } from './hooks/useScrollTarget';
import { settleOn } from './settle';
import { Tabbable } from './tabbable';

/** The list's own props, and what it hands every row's cells (theirs, but the row). */
export interface TimelineProps extends Omit<CellProps, 'row'> {
  /** The column heads: the grid's first row. */
  head: ReactNode;
  count: number;
  rowAt: (index: number) => InspectRow | undefined;
  /** Bumps whenever rows arrive, so the list re-renders. */
  version: number;
  /** Called with the first and last index on screen. */
  onRange: (first: number, last: number) => void;
  /** Scrolls to the target whenever its `seq` changes. */
  scrollTo?: ScrollTarget | undefined;
  current?: number | undefined;
  /** The last event the chosen model call was sent: a line marks where its history ends. */
  historyEnd?: { index: number; modelCall: number } | undefined;
}

/** The controls a row holds, in order: what Enter focuses first. */
const FOCUSABLE = 'button, summary, a[href]';

/** A row's two cells. */
const cellsOf = (row: HTMLElement) => [...row.querySelectorAll<HTMLElement>(':scope > [role="gridcell"]')];

export function Timeline({
  head,
  count,
  rowAt,
  version,
  onRange,
  scrollTo,
  current,
  historyEnd,
  ...cellProps
}: TimelineProps) {
  const parent = useRef<HTMLDivElement>(null);
  /** The row the keyboard is on, and whether focus is in the list now. */
  const [active, setActive] = useState<number>();
  const [focused, setFocused] = useState(false);
  /** The row whose links take Tab (entered with Enter). */
  const [entered, setEntered] = useState<number>();
  /** Where Enter was pressed: where Escape goes back to. */
  const enteredFrom = useRef<HTMLElement | undefined>(undefined);
  /** A row to focus once it is rendered, and which of its cells (-1: the row). */
  const focusNext = useRef<{ index: number; column: number } | undefined>(undefined);

  const keep = focused ? active : undefined;
  const rangeExtractor = useCallback(
    (range: Range) => {
      const indexes = defaultRangeExtractor(range);
      if (keep === undefined || keep >= range.count || indexes.includes(keep)) return indexes;
      return [...indexes, keep].sort((a, b) => a - b);
    },
    [keep],
  );
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => parent.current,
    estimateSize: () => 120,
    overscan: 6,
    rangeExtractor,
    // Until the browser measures the list, assume a window's worth (also what jsdom gets).
    initialRect: { width: 1200, height: 800 },
  });
  const items = virtualizer.getVirtualItems();
  /** What both cells of a row are given besides the row. */
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? -1;
  const shownFrom = virtualizer.range?.startIndex ?? first;
  const shownTo = virtualizer.range?.endIndex ?? last;
  // The one tab stop: the row the keyboard was on while it is in view (or focus is in the list), else the first row shown.
  const tabStop =
    active !== undefined && active < count && (focused || (active >= shownFrom && active <= shownTo))
      ? active
      : shownFrom;

  useEffect(() => {
    if (last >= 0) onRange(first, last);
  }, [first, last, onRange]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: only a new request to scroll (seq) scrolls; a longer list does not move the view.
  useEffect(() => {
    const element = parent.current;
    if (!scrollTo || scrollTo.index >= count || !element) return;
    return settleOn(element, scrollTo, (index) => virtualizer.scrollToIndex(index, { align: 'start' }));
  }, [scrollTo?.seq]);

  useEffect(() => {
    const next = focusNext.current;
    if (next === undefined) return;
    const row = parent.current?.querySelector<HTMLElement>(`[role="row"][data-index="${next.index}"]`);
    if (!row) return;
    focusNext.current = undefined;
    (cellsOf(row)[next.column] ?? row).focus({ preventScroll: true });
  });

  const moveTo = (index: number, column: number) => {
    const to = Math.max(0, Math.min(count - 1, index));
    setActive(to);
    setEntered(undefined);
    focusNext.current = { index: to, column };
    virtualizer.scrollToIndex(to, { align: 'auto' });
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const target = event.target as HTMLElement;
    const row = target.closest<HTMLElement>('[role="row"]');
    if (!row) return;
    const index = Number(row.dataset.index);
    const cells = cellsOf(row);
    const column = cells.indexOf(target);
    if (target !== row && column < 0) {
      // Inside an entered row: Escape goes back to where Enter was pressed (the row, or a cell).
      if (event.key !== 'Escape') return;
      event.preventDefault();
      setEntered(undefined);
      const back = enteredFrom.current;
      (back && row.contains(back) ? back : row).focus({ preventScroll: true });
      return;
    }
    if (event.key === 'ArrowRight' || event.key === 'ArrowLeft') {
      event.preventDefault();
      const to = column + (event.key === 'ArrowRight' ? 1 : -1);
      if (to < cells.length) (to < 0 ? row : cells[to]!).focus({ preventScroll: true });
      return;
    }
    const page = Math.max(1, shownTo - shownFrom);
    const moves: Record<string, number> = {
      ArrowDown: index + 1,
      ArrowUp: index - 1,
      PageDown: index + page,
      PageUp: index - page,
      Home: 0,
      End: count - 1,
    };
    const to = moves[event.key];
    if (to !== undefined) {
      event.preventDefault();
      moveTo(to, column);
      return;
    }
    if (event.key === 'Enter' || event.key === 'F2') {
      event.preventDefault();
      // Focus on a link enters the row (onFocus): its links then take Tab.
      enteredFrom.current = target;
      target.querySelector<HTMLElement>(FOCUSABLE)?.focus();
    }
  };

  return (
    <div className="grid" role="grid" aria-label="Events" aria-rowcount={count + 1} aria-colcount={2}>
      <div role="rowgroup">{head}</div>
      <div className="timeline" ref={parent} data-version={version}>
        <div
          role="rowgroup"
          className="timeline-inner"
          style={{ height: virtualizer.getTotalSize() }}
          onKeyDown={onKeyDown}
          onFocus={(event) => {
            const row = (event.target as HTMLElement).closest<HTMLElement>('[role="row"]');
            if (!row) return;
            const index = Number(row.dataset.index);
            setFocused(true);
            setActive(index);
            // Focus on a link inside a row (Enter, or a click) enters it; on the row or a cell, leaves it.
            const onGrid = event.target === row || (event.target as HTMLElement).getAttribute('role') === 'gridcell';
            setEntered(onGrid ? undefined : index);
          }}
          onBlur={(event) => {
            const next = event.relatedTarget as Node | null;
            if (next && event.currentTarget.contains(next)) return;
            setFocused(false);
            setEntered(undefined);
          }}
        >
          {items.map((item) => {
            const row = rowAt(item.index);
            const isEnd = item.index === historyEnd?.index;
            return (
              <div
                key={item.key}
                role="row"
                aria-rowindex={item.index + 2}
                aria-label={row ? rowLabel(row) : `Event ${item.index}, loading`}
                aria-current={item.index === current ? 'true' : undefined}
                tabIndex={item.index === tabStop ? 0 : -1}
                data-index={item.index}
                ref={virtualizer.measureElement}
                className={`row${item.index === current ? ' current' : ''}${row ? '' : ' loading'}${isEnd ? ' history-end' : ''}`}
                data-history-end={
                  isEnd ? `model call ${historyEnd.modelCall} was sent everything above this line` : undefined
                }
                style={{ transform: `translateY(${item.start}px)` }}
              >
                {row ? (
                  <Tabbable.Provider value={entered === item.index}>
                    <FullCellContent row={row} {...cellProps} />
                    <ModelCellContent row={row} {...cellProps} />
                  </Tabbable.Provider>
                ) : (
                  <div role="gridcell" tabIndex={-1} aria-colspan={2} className="placeholder">
                    Loading event {item.index}…
                  </div>
                )}
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
