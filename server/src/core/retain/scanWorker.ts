/** The scan thread (see scanThread.ts): scans the pieces it is sent, acknowledging each, then answers the figures. */
import { parentPort, workerData } from 'node:worker_threads';
import { Scan } from './scan';
import type { FromThread, ScanOptions, ToThread } from './scanThread';

const port = parentPort!;
const { headLines, tailLines, overrides } = workerData as ScanOptions;
const scan = new Scan(headLines, tailLines, overrides);
port.on('message', (message: ToThread) => {
  try {
    if ('piece' in message) {
      const { piece } = message;
      scan.pushBytes(Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength));
      port.postMessage({ scanned: piece.byteLength } satisfies FromThread);
    } else port.postMessage({ figures: scan.figures() } satisfies FromThread);
  } catch (err) {
    port.postMessage({ failed: (err as Error).message } satisfies FromThread);
  }
});
