/**
 * Listens to a DOM event on an element through a ref. The vscode-elements controls announce
 * changes with plain DOM events (`change`), which React's own event system does not route for
 * custom elements; a direct listener is the dependable way, in the browser and in jsdom alike.
 */
import { type RefObject, useEffect, useRef } from 'react';

export function useDomEvent<T extends HTMLElement>(
  type: string,
  handler: (element: T, event: Event) => void,
): RefObject<T | null> {
  const ref = useRef<T>(null);
  const latest = useRef(handler);
  latest.current = handler;
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const listener = (event: Event) => latest.current(element, event);
    element.addEventListener(type, listener);
    return () => element.removeEventListener(type, listener);
  }, [type]);
  return ref;
}
