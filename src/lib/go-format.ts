// Go's fmt renderings (%v, %q) of decoded JSON values, because upstream error causes carry that text.
import { isJsonObject } from './object-path.js';

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

/** Past this many levels a rendered value shows `...`: Go's `%v` has no bound, a hostile body's nesting has none. */
const MAX_RENDERED_DEPTH = 16;
/** Rendered values are cut here (with `...`), so an error never echoes a megabyte of the body. */
const MAX_RENDERED_LENGTH = 4096;
const CUT = '...';

/**
 * Go's `%v` of a value decoded from JSON: `<nil>`, strings raw, `[a b]`, `map[k:v]` with sorted keys.
 * Numbers decode to float64 unless the schema made the field an integer. Bounded in depth and length (see above);
 * the work is bounded too, as rendering stops once the text is long enough.
 */
export function goValue(value: unknown, isInteger = false): string {
  const out: string[] = [];
  let length = 0;
  const write = (text: string): boolean => {
    out.push(text);
    length += text.length;
    return length <= MAX_RENDERED_LENGTH;
  };
  const render = (item: unknown, depth: number, asInteger: boolean): boolean => {
    if (Array.isArray(item)) return renderList('[', item, ']', depth, (element) => render(element, depth + 1, false));
    if (isJsonObject(item)) {
      const keys = Object.keys(item).sort();
      return renderList('map[', keys, ']', depth, (key) => write(`${key}:`) && render(item[key], depth + 1, false));
    }
    return write(goScalar(item, asInteger));
  };
  const renderList = <T>(
    open: string,
    items: readonly T[],
    close: string,
    depth: number,
    renderItem: (item: T) => boolean,
  ): boolean => {
    if (depth >= MAX_RENDERED_DEPTH) return write(CUT);
    if (!write(open)) return false;
    for (const [index, item] of items.entries()) {
      if ((index > 0 && !write(' ')) || !renderItem(item)) return false;
    }
    return write(close);
  };
  const isComplete = render(value, 0, isInteger);
  const text = out.join('');
  return isComplete ? text : `${text.slice(0, MAX_RENDERED_LENGTH)}${CUT}`;
}

function goScalar(value: unknown, isInteger: boolean): string {
  if (value === null || value === undefined) return '<nil>';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return isInteger && Number.isInteger(value) ? String(BigInt(value)) : goFloat(value);
  if (typeof value === 'boolean') return String(value);
  // Only JSON values reach here; a bigint is the one other value worth printing.
  return typeof value === 'bigint' ? value.toString() : '';
}

const shortEscapes: Record<string, string> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
};

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

const durationUnits: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};
/** Go's time.Duration range: ±2^63 ns. */
const maxDurationMs = 9_223_372_036_854.775;

/**
 * Go's time.ParseDuration (`-1.5h`, `300ms`, `2h45m`), in milliseconds, with Go's error texts, since upstream
 * sends them as the reason of a field error.
 */
export function parseGoDuration(text: string): { ms: number } | { error: string } {
  const invalid = { error: `time: invalid duration ${goQuote(text)}` };
  let rest = text;
  const sign = rest[0] === '-' ? -1 : 1;
  if (rest[0] === '-' || rest[0] === '+') rest = rest.slice(1);
  if (rest === '0') return { ms: 0 };
  if (rest === '') return invalid;
  let total = 0;
  while (rest !== '') {
    const number = /^(\d*)(?:\.(\d*))?/.exec(rest);
    if (number === null || ((number[1] ?? '') === '' && (number[2] ?? '') === '')) return invalid;
    rest = rest.slice(number[0].length);
    const unit = /^[^\d.]*/.exec(rest)?.[0] ?? '';
    if (unit === '') return { error: `time: missing unit in duration ${goQuote(text)}` };
    const scale = durationUnits[unit];
    if (scale === undefined) return { error: `time: unknown unit ${goQuote(unit)} in duration ${goQuote(text)}` };
    rest = rest.slice(unit.length);
    total += Number(`${number[1] || '0'}.${number[2] || '0'}`) * scale;
    if (total > maxDurationMs) return invalid;
  }
  return { ms: sign * total };
}

/** Go's `time.Time.String()` of a UTC instant: `2006-01-02 15:04:05.999999999 +0000 UTC` (fraction without trailing zeros). */
export function goTime(date: Date): string {
  // Sent on every authenticated reply (expires-at), so sliced rather than split: `…THH:MM:SS.mmmZ` ends every ISO text.
  const iso = date.toISOString();
  const at = iso.length - 14;
  const ms = date.getUTCMilliseconds();
  const digits = ms === 0 ? 0 : ms % 100 === 0 ? 1 : ms % 10 === 0 ? 2 : 3;
  const fraction = digits === 0 ? '' : `.${iso.slice(at + 10, at + 10 + digits)}`;
  return `${iso.slice(0, at)} ${iso.slice(at + 1, at + 9)}${fraction} +0000 UTC`;
}

/** Go's `time.RFC3339` of a UTC instant: seconds, no fraction (`2006-01-02T15:04:05Z`). */
export function goRfc3339(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
