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
  /** Where the escaped bytes not decoded yet start, and where the decoded ones end (never after it). */
  private read: number;
  private written: number;

  /**
   * `bytes[start, end)` is the inside of a JSON string, valid UTF-8 (the caller checked), and
   * this text's alone: it is decoded in place, each decoded piece moved down over the escapes
   * before it (the decoded text is never longer), so decoding allocates nothing.
   */
  constructor(
    private readonly bytes: Buffer,
    private readonly start: number,
    private readonly end: number,
    private readonly window = WINDOW_BYTES,
  ) {
    this.read = start;
    this.written = start;
  }

  /**
   * The text's UTF-8 bytes, a window at a time (an escape is never split; a piece stays as it is
   * once given). Throws BadEscape on an escape JSON does not allow.
   */
  *chunks(): Generator<Buffer> {
    while (this.read < this.end) {
      const from = this.written;
      this.decodeWindow();
      yield this.bytes.subarray(from, this.written);
    }
  }

  /**
   * The whole text, as its UTF-8 reads (a lone surrogate, which has none, as U+FFFD): when it
   * must be held after all (kept verbatim because it could not be stored).
   */
  decode(): string {
    while (this.read < this.end) this.decodeWindow();
    return this.bytes.toString('utf8', this.start, this.written);
  }

  private decodeWindow(): void {
    const { bytes } = this;
    const limit = Math.min(this.end, this.read + this.window);
    while (this.read < limit) {
      const slash = bytes.indexOf(0x5c, this.read);
      const plain = slash === -1 || slash >= limit ? limit : slash;
      if (this.written !== this.read) bytes.copyWithin(this.written, this.read, plain);
      this.written += plain - this.read;
      this.read = plain;
      if (plain < limit) this.escape();
    }
  }

  /** Decodes the escape at `read`, writing what it stands for at `written`. */
  private escape(): void {
    const { bytes } = this;
    const at = this.read;
    const kind = bytes[at + 1];
    if (kind === undefined || at + 1 >= this.end) throw new BadEscape('params.text ends inside an escape');
    const simple = SIMPLE[kind];
    if (simple !== undefined) {
      bytes[this.written++] = simple;
      this.read = at + 2;
      return;
    }
    if (kind !== 0x75) throw new BadEscape(`params.text has the escape \\${String.fromCharCode(kind)}`);
    let unit = this.hex(at + 2);
    let next = at + 6;
    // A surrogate pair is two escapes; a lone surrogate becomes U+FFFD, as it does in UTF-8 from a string.
    if (unit >= 0xd800 && unit <= 0xdbff && bytes[next] === 0x5c && bytes[next + 1] === 0x75) {
      const low = this.hex(next + 2);
      if (low >= 0xdc00 && low <= 0xdfff) {
        unit = 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00);
        next += 6;
      }
    }
    if (unit >= 0xd800 && unit <= 0xdfff) unit = 0xfffd;
    // Read before written: at most 4 bytes for the 6 or 12 read.
    this.written += bytes.write(String.fromCodePoint(unit), this.written, 'utf8');
    this.read = next;
  }

  private hex(at: number): number {
    if (at + 4 > this.end) throw new BadEscape('params.text ends inside a \\u escape');
    const digits = this.bytes.toString('latin1', at, at + 4);
    if (!/^[0-9a-fA-F]{4}$/.test(digits)) throw new BadEscape(`params.text has the escape \\u${digits}`);
    return Number.parseInt(digits, 16);
  }
}
