/**
 * A long loop of pure work (converting a big session) yields to the event loop every few
 * milliseconds, so a server in the middle of it still answers other requests.
 */
import { setImmediate as yieldNow } from 'node:timers/promises';

/** How long work goes on before it lets the event loop run. */
const SLICE_MS = 4;

export class Yielder {
  private since = performance.now();

  /** Yields when the slice is spent; cheap to call on every step of a loop. */
  async maybe(): Promise<void> {
    if (performance.now() - this.since < SLICE_MS) return;
    await yieldNow();
    this.since = performance.now();
  }
}
