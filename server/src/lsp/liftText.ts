/**
 * The one message the framing does not decode whole: a retained/retain whose `params.text` is
 * big. The text is left as the bytes of its JSON string (an EscapedText, decoded a window at a
 * time into its value); the rest of the message is parsed as any other. Anything unusual (not
 * that method, a second `text`, invalid UTF-8, a shape the walk does not follow) is left to the
 * ordinary decoding, which judges it.
 */
import { isUtf8 } from 'node:buffer';
import { EscapedText } from '../core/retain/escapedText';

/** A `params.text` this long as JSON is left escaped. */
export const LIFT_MIN_BYTES = 1 << 20;

/** The texts left escaped, by the params object of their message (what the request handler gets). */
export const escapedTexts = new WeakMap<object, EscapedText>();

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The message with its text lifted out (an empty string in its place), or undefined. */
export function liftRetainText(body: Buffer): { message: { params: object }; text: EscapedText } | undefined {
  const found = findText(body);
  if (!found || found.end - found.start < LIFT_MIN_BYTES) return undefined;
  const { start, end } = found;
  if (!isUtf8(body.subarray(start, end))) return undefined;
  let message: unknown;
  try {
    message = JSON.parse(Buffer.concat([body.subarray(0, start), body.subarray(end)]).toString('utf8'));
  } catch {
    return undefined;
  }
  const m = message as { method?: unknown; params?: { text?: unknown } };
  if (typeof message !== 'object' || message === null || m.method !== 'retained/retain') return undefined;
  if (typeof m.params !== 'object' || m.params === null || m.params.text !== '') return undefined;
  return { message: message as { params: object }, text: new EscapedText(body, start, end) };
}

/** Where the one `params.text` string's inside is in the message's bytes. */
function findText(body: Buffer): { start: number; end: number } | undefined {
  let found: { start: number; end: number } | undefined;
  let duplicate = false;
  /** Walks the members of the object at `at` (its `{`); `params` is walked into, `text` in it taken. */
  const members = (at: number, inParams: boolean): number | undefined => {
    let pos = space(body, at + 1);
    if (body[pos] === 0x7d) return pos + 1;
    for (;;) {
      if (body[pos] !== QUOTE) return undefined;
      const keyEnd = stringEnd(body, pos);
      if (keyEnd === undefined) return undefined;
      const key = body.toString('utf8', pos + 1, keyEnd);
      pos = space(body, keyEnd + 1);
      if (body[pos] !== 0x3a) return undefined;
      pos = space(body, pos + 1);
      let next: number | undefined;
      if (!inParams && key === 'params' && body[pos] === 0x7b) next = members(pos, true);
      else if (inParams && key === 'text' && body[pos] === QUOTE) {
        const close = stringEnd(body, pos);
        if (close === undefined) return undefined;
        duplicate ||= found !== undefined;
        found = { start: pos + 1, end: close };
        next = close + 1;
      } else next = skipValue(body, pos);
      if (next === undefined) return undefined;
      pos = space(body, next);
      if (body[pos] === 0x2c) pos = space(body, pos + 1);
      else if (body[pos] === 0x7d) return pos + 1;
      else return undefined;
    }
  };
  const start = space(body, 0);
  if (body[start] !== 0x7b) return undefined;
  const end = members(start, false);
  return end !== undefined && space(body, end) === body.length && !duplicate ? found : undefined;
}

function space(body: Buffer, at: number): number {
  let pos = at;
  while (body[pos] === 0x20 || body[pos] === 0x0a || body[pos] === 0x0d || body[pos] === 0x09) pos++;
  return pos;
}

/** The index of the quote that ends the string opening at `at`. */
function stringEnd(body: Buffer, at: number): number | undefined {
  for (let from = at + 1; ; ) {
    const quote = body.indexOf(QUOTE, from);
    if (quote === -1) return undefined;
    let slashes = 0;
    while (body[quote - 1 - slashes] === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return quote;
    from = quote + 1;
  }
}

/** Where the value at `at` ends: strings jumped over, brackets counted (no recursion, however deep). */
function skipValue(body: Buffer, at: number): number | undefined {
  let depth = 0;
  for (let pos = at; pos < body.length; ) {
    const byte = body[pos]!;
    if (byte === QUOTE) {
      const close = stringEnd(body, pos);
      if (close === undefined) return undefined;
      pos = close + 1;
    } else if (byte === 0x7b || byte === 0x5b) {
      depth++;
      pos++;
    } else if (byte === 0x7d || byte === 0x5d) {
      if (depth === 0) return pos;
      depth--;
      pos++;
    } else if (byte === 0x2c && depth === 0) return pos;
    else pos++;
    if (depth === 0 && (byte === QUOTE || byte === 0x7d || byte === 0x5d)) return pos;
  }
  return depth === 0 ? body.length : undefined;
}
