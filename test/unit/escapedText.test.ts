import assert from 'node:assert/strict';
import fc from 'fast-check';
import { BadEscape, EscapedText } from '../../server/src/core/retain/escapedText';
import { LIFT_MIN_BYTES, liftRetainText } from '../../server/src/lsp/liftText';

/** The inside of `text`'s JSON string, as a client sends it, in an EscapedText with a small window. */
function escaped(text: string, window: number): EscapedText {
  const bytes = Buffer.from(`xx${JSON.stringify(text)}yy`);
  return new EscapedText(bytes, 3, bytes.length - 3, window);
}

const joined = (e: EscapedText) => Buffer.concat([...e.chunks()]);

describe('a text left escaped', () => {
  it('property: its pieces are the UTF-8 of the text JSON.parse would give, for any window', () => {
    const unit = fc.constantFrom(
      'a',
      '\n',
      '\t',
      '"',
      '\\',
      '/',
      '\u0001',
      '\u001f',
      '\b',
      '\f',
      '\r',
      'é',
      '✗',
      '😀',
      '\ud800',
      '\udc00',
      '\u2028',
    );
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 200 }), fc.integer({ min: 1, max: 40 }), (units, window) => {
        const text = units.join('');
        const e = escaped(text, window);
        assert.deepEqual(joined(e), Buffer.from(text, 'utf8'));
        // Whole, as its UTF-8 reads (a lone surrogate has none: U+FFFD), after its pieces or without them.
        assert.equal(e.decode(), Buffer.from(text, 'utf8').toString());
        assert.equal(escaped(text, window).decode(), Buffer.from(text, 'utf8').toString());
      }),
      { numRuns: 1000 },
    );
  });

  it('takes escapes a client may write another way: \\/, \\u for plain letters, upper-case hex', () => {
    const bytes = Buffer.from('"a\\/b\\u0041\\u00E9\\uD83D\\uDE00"');
    const e = new EscapedText(bytes, 1, bytes.length - 1, 3);
    assert.equal(joined(e).toString('utf8'), 'a/bAé😀');
  });

  it('refuses an escape JSON does not have, naming it', () => {
    for (const [inside, named] of [
      ['ab\\x', /\\x/],
      ['ab\\u12', /ends inside a \\u escape/],
      ['ab\\u12zz', /\\u12zz/],
      ['ab\\', /ends inside an escape/],
    ] as const) {
      const bytes = Buffer.from(inside);
      const e = new EscapedText(bytes, 0, bytes.length);
      assert.throws(
        () => joined(e),
        (err: Error) => err instanceof BadEscape && named.test(err.message),
        inside,
      );
    }
  });
});

describe('lifting a big text out of a retain message', () => {
  const big = `${'line "quoted" \\ back\tslash é 😀\n'.repeat(LIFT_MIN_BYTES / 30)}end`;
  const frame = (message: object) => Buffer.from(JSON.stringify(message));

  it('leaves params.text as its bytes and parses the rest', () => {
    const body = frame({
      jsonrpc: '2.0',
      id: 7,
      method: 'retained/retain',
      params: { runId: 'r', arguments: { text: 'not this one', nested: [{ a: '}' }] }, text: big, tool: 't' },
    });
    const lifted = liftRetainText(body);
    assert.ok(lifted);
    assert.deepEqual(lifted.message, {
      jsonrpc: '2.0',
      id: 7,
      method: 'retained/retain',
      params: { runId: 'r', arguments: { text: 'not this one', nested: [{ a: '}' }] }, text: '', tool: 't' },
    });
    assert.deepEqual(joined(lifted.text), Buffer.from(big));
  });

  it('leaves anything else to the ordinary decoding', () => {
    const cases: [string, Buffer][] = [
      ['another method', frame({ jsonrpc: '2.0', id: 1, method: 'retained/append', params: { text: big } })],
      ['a short text', frame({ jsonrpc: '2.0', id: 1, method: 'retained/retain', params: { text: 'short' } })],
      ['text outside params', frame({ jsonrpc: '2.0', id: 1, method: 'retained/retain', text: big, params: {} })],
      [
        'two texts',
        Buffer.from(
          `{"jsonrpc":"2.0","id":1,"method":"retained/retain","params":{"text":${JSON.stringify(big)},"text":"x"}}`,
        ),
      ],
      [
        'invalid UTF-8',
        Buffer.concat([
          Buffer.from(
            `{"jsonrpc":"2.0","id":1,"method":"retained/retain","params":{"text":"${'a'.repeat(LIFT_MIN_BYTES)}`,
          ),
          Buffer.from([0xff, 0xfe]),
          Buffer.from('"}}'),
        ]),
      ],
      [
        'not JSON after the text',
        Buffer.from(`{"method":"retained/retain","params":{"text":${JSON.stringify(big)}}, }`),
      ],
      ['an array', Buffer.from(`[{"method":"retained/retain","params":{"text":${JSON.stringify(big)}}}]`)],
    ];
    for (const [what, body] of cases) assert.equal(liftRetainText(body), undefined, what);
  });
});
