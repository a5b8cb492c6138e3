/**
 * Scrolls a virtualized list to a row and keeps it there while the rows around it arrive and
 * are measured (their heights replace the estimate, which moves the row): frame by frame, for a
 * few seconds or until the user scrolls, clicks or presses a key. With a search hit, it lands on
 * the hit's line inside the row rather than on the row's top.
 */
import type { ScrollTarget } from './hooks/useScrollTarget';

/** How long it keeps the target in place (~5 s at 60 frames a second): rows measured late move it too. */
const MAX_FRAMES = 300;

/** Where inside the row the target is: the hit's line when the row shows it, else the row's top. */
function spotOf(row: HTMLElement, target: ScrollTarget): HTMLElement {
  const hit = target.hit;
  if (!hit) return row;
  const body =
    hit.where === 'arguments'
      ? [...row.querySelectorAll<HTMLElement>('.cell.full .call')].find((call) => call.dataset.call === hit.callId)
      : row.querySelector('.cell.full > pre.body');
  return body?.querySelector<HTMLElement>(`mark[data-line="${hit.line}"]`) ?? row;
}

/**
 * Starts keeping `target` in view of the scroller `element`; `scrollToIndex` brings a row that
 * is not rendered into range. Returns what stops it.
 */
export function settleOn(
  element: HTMLElement,
  target: ScrollTarget,
  scrollToIndex: (index: number) => void,
): () => void {
  let frame = 0;
  let id = 0;
  const stop = () => {
    cancelAnimationFrame(id);
    for (const type of ['wheel', 'pointerdown', 'keydown', 'touchstart'] as const)
      element.removeEventListener(type, stop);
  };
  // The user's own scrolling wins.
  for (const type of ['wheel', 'pointerdown', 'keydown', 'touchstart'] as const)
    element.addEventListener(type, stop, { passive: true });
  const step = () => {
    const row = element.querySelector<HTMLElement>(`[role="row"][data-index="${target.index}"]`);
    if (!row) scrollToIndex(target.index);
    else {
      const spot = spotOf(row, target);
      // A row's top goes to the top; a line inside it, a third of the way down.
      const want = spot === row ? 0 : element.clientHeight / 3;
      const off = spot.getBoundingClientRect().top - element.getBoundingClientRect().top - want;
      if (Math.abs(off) > 1) element.scrollTop += off;
    }
    if (++frame >= MAX_FRAMES) return stop();
    id = requestAnimationFrame(step);
  };
  scrollToIndex(target.index);
  id = requestAnimationFrame(step);
  return stop;
}
