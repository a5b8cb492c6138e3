/**
 * MCP over stdio is one JSON-RPC message per line. A line past the limit is never held: its
 * bytes are dropped as they come, and once it ends the client gets a JSON-RPC error for it
 * (its id cannot be known), and the server reads on. No client of ours sends a line near it.
 */
import { Transform, type TransformCallback } from 'node:stream';

/** The longest input line the MCP server takes (a request's JSON). */
export const MCP_LINE_MAX_BYTES = 4 << 20;

export class LineLimit extends Transform {
  /** The line being read, held until its end (at most the limit). */
  private pending: Buffer[] = [];
  private line = 0;
  private dropping = false;

  constructor(
    private readonly refuse: (bytes: number) => void,
    private readonly max = MCP_LINE_MAX_BYTES,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let from = 0;
    while (from < chunk.length) {
      const nl = chunk.indexOf(0x0a, from);
      const end = nl === -1 ? chunk.length : nl + 1;
      this.line += end - from;
      if (!this.dropping && this.line > this.max) {
        this.dropping = true;
        this.pending = [];
      }
      if (!this.dropping) this.pending.push(chunk.subarray(from, end));
      if (nl !== -1) {
        if (this.dropping) this.refuse(this.line);
        else this.push(Buffer.concat(this.pending));
        this.pending = [];
        this.line = 0;
        this.dropping = false;
      }
      from = end;
    }
    done();
  }

  override _flush(done: TransformCallback): void {
    if (!this.dropping && this.pending.length) this.push(Buffer.concat(this.pending));
    done();
  }
}
