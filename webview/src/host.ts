/**
 * The webview's side of the message protocol: typed requests with ids, answered by the
 * extension, and a listener for what the extension pushes (init, changed).
 */
import type { HostToPage, InspectorState, Marks, PageRequests, PageToHost } from '../../shared/messages';
import type { PageRequestMethod } from '../../shared/protocol';

/** The object `acquireVsCodeApi()` returns inside a VS Code webview. */
export interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

export class Host {
  /** When the page first got to each step (ms since it started): reported with the first rows. */
  readonly marks: Marks = { script: Math.round(performance.now()) };
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (result: unknown) => void; reject: (error: Error) => void }>();
  private readonly listeners = new Set<(message: HostToPage) => void>();

  constructor(
    private readonly api: VsCodeApi,
    target: Pick<Window, 'addEventListener'>,
  ) {
    target.addEventListener('message', (event) => this.receive((event as MessageEvent).data));
  }

  post(message: PageToHost): void {
    this.api.postMessage(message);
  }

  request<M extends PageRequestMethod>(
    method: M,
    params: PageRequests[M]['params'],
  ): Promise<PageRequests[M]['result']> {
    const id = this.nextId++;
    this.marks.request ??= Math.round(performance.now());
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (result: unknown) => void, reject });
      this.post({ type: 'request', id, method, params } as PageToHost);
    });
  }

  /** Listens for init and changed; returns the unsubscribe. */
  on(listener: (message: HostToPage) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  getState(): unknown {
    return this.api.getState();
  }

  setState(state: InspectorState): void {
    this.api.setState(state);
  }

  private receive(data: unknown): void {
    if (typeof data !== 'object' || data === null || typeof (data as { type?: unknown }).type !== 'string') return;
    const message = data as HostToPage;
    if (message.type === 'response' || message.type === 'error') {
      const waiting = this.pending.get(message.id);
      if (!waiting) return;
      this.pending.delete(message.id);
      this.marks.answer ??= Math.round(performance.now());
      if (message.type === 'response') waiting.resolve(message.result);
      else waiting.reject(new Error(message.message));
      return;
    }
    if (message.type === 'init') this.marks.init ??= Math.round(performance.now());
    for (const listener of this.listeners) listener(message);
  }
}
