// Turns ZitiQL literal tokens into values (strings, numbers, datetimes) and formats them back for messages.
import { FilterError, type Literal } from './filter-types.js';

const ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', f: '\f', n: '\n', r: '\r', t: '\t' };

/**
 * Removes the quotes and resolves the escapes of a string token in one left-to-right pass.
 * Upstream (storage zitiql) first replaces `\\` with `\` and only then resolves the other escapes, so
 * there `"a\\n"` becomes `a` + newline. We deliberately unescape correctly: `"a\\n"` is `a\n` (backslash, n).
 */
export function unescapeString(token: string): string {
  return token.slice(1, -1).replace(/\\(["\\fnrt])/g, (_escape, letter: string) => ESCAPES[letter] ?? letter);
}

export function parseNumber(token: string): Literal {
  return { kind: 'number', value: Number(token) };
}

const RFC3339_PARTS =
  /^([0-9]+)-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]+))?(?:[Zz]|([+-])([0-9]{2}):([0-9]{2}))$/;

function invalidTime(text: string, reason: string): FilterError {
  // Wording follows Go's time.Parse errors, which upstream passes through.
  return new FilterError('filter', `parsing time "${text}": ${reason}`);
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/**
 * Parses the body of a `datetime(...)` token into the stored form: UTC, ISO-8601, exactly three
 * fractional digits and `Z` (e.g. `2024-07-19T14:03:12.345Z`), so that text comparison is chronological.
 */
export function parseDatetime(token: string): Literal {
  const text = token.slice('datetime('.length, -1).trim();
  const parts = RFC3339_PARTS.exec(text);
  if (!parts) throw invalidTime(text, 'not an RFC 3339 date-time');
  const yearText = parts[1] ?? '';
  const [month = 0, day = 0, hour = 0, minute = 0, second = 0] = parts.slice(2, 7).map(Number);
  const fraction = parts[7] ?? '';
  if (yearText.length !== 4) throw invalidTime(text, 'year must have four digits');
  const year = Number(yearText);
  if (day > daysInMonth(year, month)) throw invalidTime(text, 'day out of range');
  if (second > 59) throw invalidTime(text, 'second out of range');
  const offsetMinutes = parts[8] ? (parts[8] === '-' ? -1 : 1) * (Number(parts[9]) * 60 + Number(parts[10])) : 0;
  const instant = new Date(0);
  instant.setUTCFullYear(year, month - 1, day);
  instant.setUTCHours(hour, minute - offsetMinutes, second, Number(fraction.slice(0, 3).padEnd(3, '0')));
  return { kind: 'datetime', iso: instant.toISOString(), hasSubMillis: /[1-9]/.test(fraction.slice(3)), source: text };
}

/** The stored form of the first whole millisecond after a datetime literal that has sub-millisecond digits. */
export function nextMillisecond(iso: string): string {
  return new Date(Date.parse(iso) + 1).toISOString();
}

/**
 * A number in plain decimal notation, as Go's strconv.FormatFloat(v, 'f', -1, 64) / FormatInt write it.
 * Upstream compares a number with a string field, and tests `contains`, on this text form.
 */
export function numberAsText(value: number): string {
  const shortest = String(value);
  const [mantissa = '', exponentText] = shortest.split('e');
  if (exponentText === undefined) return shortest;
  const sign = mantissa.startsWith('-') ? '-' : '';
  const [integerDigits = '', fractionDigits = ''] = mantissa.replace('-', '').split('.');
  const digits = integerDigits + fractionDigits;
  const point = integerDigits.length + Number(exponentText);
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return sign + digits + '0'.repeat(point - digits.length);
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** A literal as upstream prints it inside `operation <expr> is not supported ...` messages. */
export function describeLiteral(literal: Literal): string {
  switch (literal.kind) {
    case 'string':
      return literal.value;
    case 'number':
      return String(literal.value);
    case 'bool':
      return String(literal.value);
    case 'null':
      return 'null';
    case 'datetime':
      return describeDatetime(literal.source);
  }
}

/** Go's time.Time String() form, e.g. `2024-01-31 23:59:59.5 +0200 +0200` or `2024-01-31 23:59:59 +0000 UTC`. */
function describeDatetime(source: string): string {
  const parts = /^(.{10})[Tt](.{8})(?:\.([0-9]+))?(.+)$/.exec(source);
  if (!parts) return source;
  const fraction = (parts[3] ?? '').slice(0, 9).replace(/0+$/, '');
  const zone = parts[4] ?? '';
  const offset = /^[Zz]$/.test(zone) ? '+0000 UTC' : `${zone.replace(':', '')} ${zone.replace(':', '')}`;
  return `${parts[1]} ${parts[2]}${fraction ? `.${fraction}` : ''} ${offset}`;
}
