/**
 * The scan of a big stream on a thread of its own, beside the storing: while one piece is
 * written and hashed, the one before it is scanned, so a 1 GB output costs the slower of the
 * two rather than their sum. A stream is scanned in place until it is big enough to be worth a
 * thread (a few tens of ms and MB to start); a thread that cannot start, or fails, leaves the
 * scan to this one, so the result is the same either way.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { LandmarkKind } from '../../../../shared/settings';
import { withTokens } from '../history/tokens';
import { Scan, type ScanFigures, type ScanResult } from './scan';

/** A stream shorter than this is scanned in place. */
const THREAD_MIN_BYTES = 8 << 20;
/** Bytes sent to the thread and not yet scanned, past which the sender waits: memory stays flat. */
const IN_FLIGHT_MAX_BYTES = 2 << 20;

export interface ScanOptions {
  headLines: number;
  tailLines: number;
  overrides?: Partial<Record<LandmarkKind, string>>;
}

/** Messages to the thread: a piece, or the end. From it: a piece scanned, the figures, or a failure. */
export type ToThread = { piece: Uint8Array } | { end: true };
export type FromThread = { scanned: number } | { figures: ScanFigures } | { failed: string };

/** The thread's script: the bundle's sibling, or the source under tsx (tests). */
function threadScript(): string | undefined {
  for (const name of ['scanWorker.js', 'scanWorker.ts']) {
    const path = join(__dirname, name);
    if (existsSync(path)) return path;
  }
  return undefined;
}

export class StreamScan {
  private held: Buffer[] = [];
  private heldBytes = 0;
  private inPlace: Scan | undefined;
  private thread: Worker | undefined;
  private inFlight = 0;
  private drained: (() => void) | undefined;
  private ended: { resolve: (figures: ScanFigures) => void; reject: (err: Error) => void } | undefined;
  private failure: Error | undefined;

  constructor(private readonly options: ScanOptions) {}

  /** A piece of the stream (not changed afterwards). Resolves when the sender may go on. */
  async push(part: Buffer): Promise<void> {
    if (this.inPlace) return this.inPlace.pushBytes(part);
    if (!this.thread) {
      this.held.push(part);
      this.heldBytes += part.length;
      if (this.heldBytes >= THREAD_MIN_BYTES) this.start();
      return;
    }
    await this.send(part);
  }

  async finish(): Promise<ScanResult> {
    if (!this.thread && !this.inPlace) this.scanInPlace();
    if (this.inPlace) return withTokens(this.inPlace.figures());
    const figures = new Promise<ScanFigures>((resolve, reject) => {
      this.ended = { resolve, reject };
    });
    if (this.failure) this.ended!.reject(this.failure);
    else this.thread!.postMessage({ end: true } satisfies ToThread);
    try {
      return withTokens(await figures);
    } finally {
      void this.thread!.terminate();
    }
  }

  /** Stops the thread of a scan not finished (the stream failed). */
  dispose(): void {
    void this.thread?.terminate();
  }

  private start(): void {
    const script = threadScript();
    try {
      if (!script) throw new Error('no scan thread script');
      const { headLines, tailLines, overrides } = this.options;
      // The source (tests run the TypeScript) is loaded through tsx's require hook in the thread.
      const source = script.endsWith('.ts');
      this.thread = new Worker(source ? `require('tsx/cjs'); require(${JSON.stringify(script)});` : script, {
        eval: source,
        workerData: { headLines, tailLines, overrides },
        // A small young generation: the thread's garbage (the text of each piece) goes at once.
        resourceLimits: { maxYoungGenerationSizeMb: 2 },
      });
    } catch {
      this.scanInPlace();
      return;
    }
    this.thread.on('message', (message: FromThread) => {
      if ('scanned' in message) {
        this.inFlight -= message.scanned;
        if (this.inFlight <= IN_FLIGHT_MAX_BYTES / 2) this.wake();
      } else if ('figures' in message) this.ended?.resolve(message.figures);
      else this.fail(new Error(`the scan thread failed: ${message.failed}`));
    });
    this.thread.on('error', (err) => this.fail(err));
    this.thread.on('exit', () => this.fail(new Error('the scan thread ended early')));
    // What was held goes at once (at most THREAD_MIN_BYTES and a piece); the sender waits from the next piece on.
    for (const part of this.held) this.post(part);
    this.held = [];
  }

  private scanInPlace(): void {
    this.inPlace = new Scan(this.options.headLines, this.options.tailLines, this.options.overrides);
    for (const part of this.held) this.inPlace.pushBytes(part);
    this.held = [];
  }

  /** Sends a piece; resolves when the thread is not too far behind. */
  private async send(part: Buffer): Promise<void> {
    if (this.failure) throw this.failure;
    this.post(part);
    if (this.inFlight > IN_FLIGHT_MAX_BYTES)
      await new Promise<void>((resolve) => {
        this.drained = resolve;
      });
    if (this.failure) throw this.failure;
  }

  private post(part: Buffer): void {
    // A copy the thread owns: the piece itself may still be being written.
    const piece = new Uint8Array(part);
    this.inFlight += piece.length;
    this.thread!.postMessage({ piece } satisfies ToThread, [piece.buffer]);
  }

  private wake(): void {
    const drained = this.drained;
    this.drained = undefined;
    drained?.();
  }

  private fail(err: Error): void {
    if (this.ended && !this.failure) this.ended.reject(err);
    this.failure ??= err;
    this.wake();
  }
}
