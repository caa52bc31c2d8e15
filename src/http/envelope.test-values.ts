// Values whose JSON text must come out exactly as JSON.stringify writes it: for tests of anything that writes JSON
// other than through one JSON.stringify of the whole body (envelope.test.ts).

/** Quotes, backslashes, every control character, separators JSON leaves raw, emoji, lone surrogates, markup, long text. */
export const hostileStrings: readonly string[] = [
  '',
  'plain',
  'quote " and \\ backslash',
  Array.from({ length: 32 }, (_, code) => String.fromCharCode(code)).join(''),
  'del \u007f nbsp \u00a0 bom \ufeff',
  'line separators \u2028 \u2029',
  'emoji 😀 flag 🇩🇪 family 👨‍👩‍👧',
  'lone high \ud800 end',
  'lone low \udfff end',
  'reversed pair \udc00\ud800',
  'high at end \ud83d',
  '</script><script>alert(1)</script> &amp; <!--',
  'é ü 中文 العربية',
  'x'.repeat(1_999),
  'y'.repeat(2_000),
  `${'z'.repeat(70_000)}"\u0001`,
  '\u0000',
  '1e21',
  '__proto__',
];

/** Free-form JSON around a string: nested objects and arrays, numbers JSON writes specially, null, booleans. */
export function hostileValue(text: string): Record<string, unknown> {
  return {
    [text]: text,
    '10': 'integer-like keys come first',
    text,
    numbers: [
      0,
      -0,
      1.5,
      0.1 + 0.2,
      1e21,
      1e-7,
      -1e300,
      Number.MAX_SAFE_INTEGER,
      2 ** 64,
      Number.NaN,
      Number.POSITIVE_INFINITY,
    ],
    flags: [true, false, null],
    nested: { list: [text, { deeper: [text] }], empty: {}, none: [] },
    absent: undefined,
  };
}
