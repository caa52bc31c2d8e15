// Go's fmt renderings (%v, %q) of decoded JSON values, because upstream error causes carry that text.

/** Go's `%v` of a float64: shortest digits, exponent form from 1e+06 or below 1e-04 (`strconv` 'g', precision -1). */
export function goFloat(value: number): string {
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : value < 0 ? '-Inf' : 'NaN';
  if (value === 0) return '0';
  const [mantissa = '0', exponentText = '0'] = value.toExponential().split('e');
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 6) {
    const digits = String(Math.abs(exponent)).padStart(2, '0');
    return `${mantissa}e${exponent < 0 ? '-' : '+'}${digits}`;
  }
  return String(value);
}

/**
 * Go's `%v` of a value decoded from JSON: `<nil>`, strings raw, `[a b]`, `map[k:v]` with sorted keys.
 * Numbers decode to float64 unless the schema made the field an integer.
 */
export function goValue(value: unknown, isInteger = false): string {
  if (value === null || value === undefined) return '<nil>';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return isInteger && Number.isInteger(value) ? String(BigInt(value)) : goFloat(value);
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map((item) => goValue(item)).join(' ')}]`;
  if (typeof value === 'object') {
    const keys = Object.keys(value).sort();
    const record = value as Record<string, unknown>;
    return `map[${keys.map((key) => `${key}:${goValue(record[key])}`).join(' ')}]`;
  }
  // Only JSON values reach here; a bigint is the one other value worth printing.
  return typeof value === 'bigint' ? value.toString() : '';
}

const shortEscapes: Record<string, string> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v' };

/** Go's `%q` of a string (strconv.Quote): double quotes, backslash escapes, printable Unicode kept. */
export function goQuote(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (char === '"' || char === '\\') out += `\\${char}`;
    else if (shortEscapes[char]) out += shortEscapes[char];
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (code >= 0x80 && code < 0xa0) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += char;
  }
  return `${out}"`;
}

/** Go's `%v` of a string slice, as in `should be one of [AllOf AnyOf]`. */
export function goList(values: readonly unknown[]): string {
  return `[${values.map((value) => goValue(value)).join(' ')}]`;
}

/** Go's `time.Time.String()` of a UTC instant: `2006-01-02 15:04:05.999999999 +0000 UTC` (fraction without trailing zeros). */
export function goTime(date: Date): string {
  const [day, clock] = date.toISOString().replace('Z', '').split('T') as [string, string];
  const [whole, fraction = ''] = clock.split('.');
  const digits = fraction.replace(/0+$/, '');
  return `${day} ${whole}${digits ? `.${digits}` : ''} +0000 UTC`;
}
