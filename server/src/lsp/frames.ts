/**
 * The server's stdio framing: `Content-Length` headers, then that many bytes of JSON. Strict,
 * because a stream that cannot be framed cannot be trusted again: a bad header, a body that is
 * not JSON (a wrong length lands mid-message) or a header block that never ends stops the server
 * with the reason on stderr, and the client restarts it. A well-framed message over the size
 * limit is skipped without being held and refused with an error to its request, so one huge
 * result cannot take the server down.
 */
import { AbstractMessageReader, type DataCallback, type Disposable, type Message } from 'vscode-jsonrpc';
import { MAX_MESSAGE_BYTES } from '../../../shared/protocol';
import { escapedTexts, LIFT_MIN_BYTES, liftRetainText } from './liftText';

/**
 * A length past this is taken for a broken stream, not a message: skipping it would leave the
 * server deaf until that many bytes came. Between MAX_MESSAGE_BYTES and this, a message is
 * skipped and refused.
 */
const ABSURD_MESSAGE_BYTES = 4 * 2 ** 30;
/** Headers are a few dozen bytes; a header block longer than this never ends. */
const MAX_HEADER_BYTES = 8192;
/** How much of a skipped message is kept to find its id and method. */
const SNIFF_BYTES = 4096;

/** A request refused before it was read, answered by the server by id. */
export interface Oversized {
  id: number | string | undefined;
  method: string | undefined;
  bytes: number;
}

export class FrameReader extends AbstractMessageReader {
  private header = Buffer.alloc(0);
  /**
   * The body being read: its length and bytes so far (read straight into one buffer of its
   * length: no list of parts joined at the end, which would hold it twice), or the sniffed
   * head of a body being skipped.
   */
  private body: { length: number; read: number; data: Buffer | undefined; head: Buffer } | undefined;
  private callback: DataCallback | undefined;

  constructor(
    private readonly input: NodeJS.ReadableStream,
    /** Called when the stream breaks: the server ends, naming the reason. */
    private readonly fatal: (reason: string) => void,
    /** Called for each message over the limit. */
    private readonly oversized: (message: Oversized) => void,
  ) {
    super();
  }

  listen(callback: DataCallback): Disposable {
    this.callback = callback;
    const onData = (chunk: Buffer) => this.take(chunk);
    const onEnd = () => this.fireClose();
    const onError = (err: Error) => this.fireError(err);
    this.input.on('data', onData);
    this.input.on('end', onEnd);
    this.input.on('error', onError);
    return {
      dispose: () => {
        this.input.off('data', onData);
        this.input.off('end', onEnd);
        this.input.off('error', onError);
      },
    };
  }

  private take(chunk: Buffer): void {
    let data = chunk;
    while (data.length > 0) {
      if (this.body) {
        data = this.takeBody(data);
        continue;
      }
      this.header = Buffer.concat([this.header, data]);
      data = Buffer.alloc(0);
      const end = this.header.indexOf('\r\n\r\n');
      if (end === -1) {
        if (/\n\r?\n/.test(this.header.toString('latin1'))) {
          this.fatal('a header block ends with a bare "\\n": headers end with "\\r\\n\\r\\n"');
          return;
        }
        if (this.header.length > MAX_HEADER_BYTES) {
          this.fatal(`no end of headers in ${MAX_HEADER_BYTES} bytes`);
          return;
        }
        return;
      }
      const length = this.contentLength(this.header.subarray(0, end).toString('latin1'));
      if (length === undefined) return;
      data = this.header.subarray(end + 4);
      this.header = Buffer.alloc(0);
      if (length === 0) {
        this.fatal('Content-Length is 0: a message has a body');
        return;
      }
      const skip = length > MAX_MESSAGE_BYTES;
      this.body = { length, read: 0, data: skip ? undefined : Buffer.allocUnsafe(length), head: Buffer.alloc(0) };
    }
  }

  /** The length a header block gives, or undefined after stopping the server. */
  private contentLength(headers: string): number | undefined {
    let length: number | undefined;
    for (const line of headers.split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon <= 0)
        return void this.fatal(`a header line is not "Name: value": ${JSON.stringify(line.slice(0, 80))}`);
      if (line.slice(0, colon).trim().toLowerCase() !== 'content-length') continue;
      const value = line.slice(colon + 1).trim();
      if (!/^\d{1,13}$/.test(value))
        return void this.fatal(`Content-Length is not a whole number: ${JSON.stringify(value.slice(0, 40))}`);
      length = Number(value);
    }
    if (length === undefined) return void this.fatal('a message has no Content-Length header');
    if (length > ABSURD_MESSAGE_BYTES) return void this.fatal(`Content-Length ${length} is not a message length`);
    return length;
  }

  private takeBody(data: Buffer): Buffer {
    const body = this.body!;
    const take = Math.min(data.length, body.length - body.read);
    const part = data.subarray(0, take);
    if (body.data) part.copy(body.data, body.read);
    else if (body.head.length < SNIFF_BYTES)
      body.head = Buffer.concat([body.head, part.subarray(0, SNIFF_BYTES - body.head.length)]);
    body.read += take;
    if (body.read === body.length) {
      this.body = undefined;
      if (!body.data) this.oversized({ ...sniff(body.head.toString('utf8')), bytes: body.length });
      else {
        // A big result to retain stays as its bytes, decoded a window at a time into its value.
        const lifted = body.length >= LIFT_MIN_BYTES ? liftRetainText(body.data) : undefined;
        if (lifted) {
          escapedTexts.set(lifted.message.params, lifted.text);
          this.callback?.(lifted.message as unknown as Message);
        } else {
          const json = body.data.toString('utf8');
          // The bytes are garbage once decoded: not held while the JSON is parsed.
          body.data = undefined;
          this.deliver(json);
        }
      }
    }
    return data.subarray(take);
  }

  private deliver(json: string): void {
    let message: unknown;
    try {
      message = JSON.parse(json);
    } catch (err) {
      this.fatal(`a message body is not JSON (is its Content-Length right?): ${(err as Error).message}`);
      return;
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      this.fatal('a message is not a JSON object');
      return;
    }
    this.callback?.(message as Message);
  }
}

/** The id and method of a message from its first bytes, where the client put them first. */
function sniff(head: string): Pick<Oversized, 'id' | 'method'> {
  const id = /"id"\s*:\s*(\d{1,15}|"(?:[^"\\]|\\.){0,200}")/.exec(head)?.[1];
  const method = /"method"\s*:\s*"([^"\\]{1,100})"/.exec(head)?.[1];
  return { id: id === undefined ? undefined : id.startsWith('"') ? (JSON.parse(id) as string) : Number(id), method };
}
