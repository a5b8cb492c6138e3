/**
 * A text still in the form of its JSON string: the bytes between the quotes, escapes and all, as
 * they came in a message. A big result passed to retained/retain is held this way only (once,
 * as the message's bytes) and decoded a window at a time on its way into its value, instead of
 * being held three times over (the bytes, the decoded JSON, the parsed string).
 */

/** Raw bytes decoded per piece: one staging batch. */
const WINDOW_BYTES = 1 << 20;

const SIMPLE: Readonly<Record<number, number>> = {
  34: 0x22, // \"
  92: 0x5c, // \\
  47: 0x2f, // \/
  98: 0x08, // \b
  102: 0x0c, // \f
  110: 0x0a, // \n
  114: 0x0d, // \r
  116: 0x09, // \t
};

/** A JSON string with an escape JSON does not have. */
export class BadEscape extends Error {}

export class EscapedText {
  /**
   * `bytes[start, end)` is the inside of a JSON string, valid UTF-8 (the caller checked): the
   * decoded text's UTF-8 is those bytes with each escape replaced by what it stands for.
   */
  constructor(
    private readonly bytes: Buffer,
    private readonly start: number,
    private readonly end: number,
    private readonly window = WINDOW_BYTES,
  ) {}

  /** The text's UTF-8 bytes, a window at a time (an escape is never split). Throws BadEscape on one JSON does not allow. */
  *chunks(): Generator<Buffer> {
    for (let at = this.start; at < this.end; ) {
      const limit = Math.min(this.end, at + this.window);
      // Decoded text is never longer than its escaped form (\uXXXX is 6 bytes for at most 3).
      const out = Buffer.allocUnsafe(limit - at + 12);
      let written = 0;
      while (at < limit) {
        const slash = this.bytes.indexOf(0x5c, at);
        const plain = slash === -1 || slash >= limit ? limit : slash;
        out.set(this.bytes.subarray(at, plain), written);
        written += plain - at;
        at = plain;
        if (at >= limit) break;
        [at, written] = this.escape(at, out, written);
      }
      yield out.subarray(0, written);
    }
  }

  /** The whole text (when it must be held after all: kept verbatim because it could not be stored). */
  decode(): string {
    return JSON.parse(`"${this.bytes.toString('utf8', this.start, this.end)}"`) as string;
  }

  /** Decodes the escape at `at` into `out`; returns where the text goes on and the bytes written. */
  private escape(at: number, out: Buffer, written: number): [number, number] {
    const kind = this.bytes[at + 1];
    if (kind === undefined || at + 1 >= this.end) throw new BadEscape('params.text ends inside an escape');
    const simple = SIMPLE[kind];
    if (simple !== undefined) {
      out[written] = simple;
      return [at + 2, written + 1];
    }
    if (kind !== 0x75) throw new BadEscape(`params.text has the escape \\${String.fromCharCode(kind)}`);
    let unit = this.hex(at + 2);
    let next = at + 6;
    // A surrogate pair is two escapes; a lone surrogate becomes U+FFFD, as it does in UTF-8 from a string.
    if (unit >= 0xd800 && unit <= 0xdbff && this.bytes[next] === 0x5c && this.bytes[next + 1] === 0x75) {
      const low = this.hex(next + 2);
      if (low >= 0xdc00 && low <= 0xdfff) {
        unit = 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00);
        next += 6;
      }
    }
    if (unit >= 0xd800 && unit <= 0xdfff) unit = 0xfffd;
    return [next, written + out.write(String.fromCodePoint(unit), written, 'utf8')];
  }

  private hex(at: number): number {
    if (at + 4 > this.end) throw new BadEscape('params.text ends inside a \\u escape');
    const digits = this.bytes.toString('latin1', at, at + 4);
    if (!/^[0-9a-fA-F]{4}$/.test(digits)) throw new BadEscape(`params.text has the escape \\u${digits}`);
    return Number.parseInt(digits, 16);
  }
}
