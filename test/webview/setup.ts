/**
 * A browser for component tests: jsdom's window as the global one, before React or the
 * vscode-elements custom elements load. jsdom has no layout, so two browser pieces are filled
 * in: ResizeObserver (never fires) and element sizes (an 800 px tall list, rows 120 px tall).
 */
import { JSDOM } from 'jsdom';

const dom = new JSDOM('<!DOCTYPE html><html><body><div id="root"></div></body></html>', {
  url: 'https://inspector.test/',
  pretendToBeVisual: true,
});
const { window } = dom;
const g = globalThis as Record<string, unknown>;
for (const key of Object.getOwnPropertyNames(window)) {
  if (key in g) continue;
  g[key] = (window as unknown as Record<string, unknown>)[key];
}
for (const key of [
  'window',
  'document',
  'navigator',
  'HTMLElement',
  'Element',
  'Node',
  'Event',
  'CustomEvent',
  'MessageEvent',
  'KeyboardEvent',
  'MouseEvent',
  'customElements',
  'getComputedStyle',
  'requestAnimationFrame',
  'cancelAnimationFrame',
]) {
  g[key] = (window as unknown as Record<string, unknown>)[key];
}
g.IS_REACT_ACT_ENVIRONMENT = true;

class NoResizeObserver {
  observe(): void {}
  unobserve(): void {}
  disconnect(): void {}
}
g.ResizeObserver = NoResizeObserver;
(window as unknown as Record<string, unknown>).ResizeObserver = NoResizeObserver;

window.HTMLElement.prototype.getBoundingClientRect = function (this: HTMLElement) {
  const height = this.classList.contains('timeline') ? 800 : 120;
  return {
    x: 0,
    y: 0,
    top: 0,
    left: 0,
    bottom: height,
    right: 1200,
    width: 1200,
    height,
    toJSON: () => ({}),
  } as DOMRect;
};
const height = (el: HTMLElement) => (el.classList.contains('timeline') ? 800 : 120);
for (const [key, size] of [
  ['offsetHeight', height],
  ['clientHeight', height],
  ['offsetWidth', () => 1200],
  ['clientWidth', () => 1200],
] as const) {
  Object.defineProperty(window.HTMLElement.prototype, key, {
    configurable: true,
    get(this: HTMLElement) {
      return size(this);
    },
  });
}

// jsdom's ElementInternals lacks the form methods vscode-elements' fields call; they do nothing here.
const internals = (window as unknown as { ElementInternals?: { prototype: Record<string, unknown> } }).ElementInternals
  ?.prototype;
for (const method of ['setFormValue', 'setValidity', 'checkValidity', 'reportValidity']) {
  if (internals && typeof internals[method] !== 'function') internals[method] = () => true;
}
