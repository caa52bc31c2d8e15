// Semantic versions and version ranges exactly as the Go library upstream uses (github.com/blang/semver v3.5.1,
// `Parse` and `ParseRange`), quirks and error texts included: OS posture checks store ranges that it accepts.
// npm's semver is a different dialect ("10" and "~1.2.0" are ranges there, not here), so it cannot stand in.
import { mustAt } from './collections.js';
import { goQuote } from './go-format.js';

export interface SemanticVersion {
  major: bigint;
  minor: bigint;
  patch: bigint;
  /** Pre-release identifiers: numbers as bigint, others as text. */
  pre: (bigint | string)[];
}

export type Comparison = '=' | '!=' | '>' | '>=' | '<' | '<=';

/** OR of AND groups: `>1.0.0 <2.0.0 || >3.0.0` is two groups. */
export type VersionRange = { comparison: Comparison; version: SemanticVersion }[][];

export class SemverError extends Error {}

const NUMBERS = /^[0-9]*$/;
const ALPHANUMERIC = /^[0-9A-Za-z-]*$/;
const UINT64_MAX = 18446744073709551615n;

/** Go's strconv.ParseUint(text, 10, 64), with its error texts. */
function parseUint(text: string): bigint {
  if (!/^[0-9]+$/.test(text)) throw new SemverError(`strconv.ParseUint: parsing ${goQuote(text)}: invalid syntax`);
  const value = BigInt(text);
  if (value > UINT64_MAX) throw new SemverError(`strconv.ParseUint: parsing ${goQuote(text)}: value out of range`);
  return value;
}

function parseNumber(text: string, name: string): bigint {
  if (!NUMBERS.test(text)) throw new SemverError(`Invalid character(s) found in ${name} number ${goQuote(text)}`);
  if (text.length > 1 && text.startsWith('0')) {
    throw new SemverError(
      `${name.charAt(0).toUpperCase()}${name.slice(1)} number must not contain leading zeroes ${goQuote(text)}`,
    );
  }
  return parseUint(text);
}

function parsePrerelease(text: string): bigint | string {
  if (text === '') throw new SemverError('Prerelease is empty');
  if (NUMBERS.test(text)) {
    if (text.length > 1 && text.startsWith('0')) {
      throw new SemverError(`Numeric PreRelease version must not contain leading zeroes ${goQuote(text)}`);
    }
    return parseUint(text);
  }
  if (ALPHANUMERIC.test(text)) return text;
  throw new SemverError(`Invalid character(s) found in prerelease ${goQuote(text)}`);
}

/** A strict `major.minor.patch[-pre][+build]` version (blang `Parse`). */
export function parseVersion(text: string): SemanticVersion {
  if (text === '') throw new SemverError('Version string empty');
  const [majorText, minorText, rest] = splitN(text, '.', 3);
  if (majorText === undefined || minorText === undefined || rest === undefined) {
    throw new SemverError('No Major.Minor.Patch elements found');
  }
  const major = parseNumber(majorText, 'major');
  const minor = parseNumber(minorText, 'minor');
  let patchText = rest;
  let build: string[] = [];
  let pre: string[] = [];
  const buildAt = patchText.indexOf('+');
  if (buildAt !== -1) [build, patchText] = [patchText.slice(buildAt + 1).split('.'), patchText.slice(0, buildAt)];
  const preAt = patchText.indexOf('-');
  if (preAt !== -1) [pre, patchText] = [patchText.slice(preAt + 1).split('.'), patchText.slice(0, preAt)];
  const patch = parseNumber(patchText, 'patch');
  const version: SemanticVersion = { major, minor, patch, pre: pre.map(parsePrerelease) };
  for (const part of build) {
    if (part === '') throw new SemverError('Build meta data is empty');
    if (!ALPHANUMERIC.test(part))
      throw new SemverError(`Invalid character(s) found in build meta data ${goQuote(part)}`);
  }
  return version;
}

/** Go's strings.SplitN: at most n parts, the last holding the rest. */
function splitN(text: string, separator: string, n: number): string[] {
  const parts = text.split(separator);
  return parts.length <= n ? parts : [...parts.slice(0, n - 1), parts.slice(n - 1).join(separator)];
}

const comparisons: Record<string, Comparison> = {
  '': '=',
  '=': '=',
  '==': '=',
  '!': '!=',
  '!=': '!=',
  '>': '>',
  '>=': '>=',
  '<': '<',
  '<=': '<=',
};

/** blang `ParseRange`: space-separated comparators (AND), groups joined by `||` (OR), `x` wildcards expanded. */
export function parseRange(text: string): VersionRange {
  const groups = splitOrParts(splitAndTrim(text)).map((group) => group.flatMap(expandWildcard));
  return groups.map((group) =>
    group.map((part) => {
      const [operator, versionText] = splitComparatorVersion(part);
      const comparison = comparisons[operator];
      if (comparison === undefined) {
        const parsing = `Could not parse comparator ${goQuote(operator)} in ${goQuote(operator + versionText)}`;
        throw new SemverError(`Could not parse Range ${goQuote(part)}: ${parsing}`);
      }
      try {
        return { comparison, version: parseVersion(versionText) };
      } catch (error) {
        const reason = error instanceof SemverError ? error.message : String(error);
        const parsing = `Could not parse version ${goQuote(versionText)} in ${goQuote(operator + versionText)}: ${reason}`;
        throw new SemverError(`Could not parse Range ${goQuote(part)}: ${parsing}`);
      }
    }),
  );
}

/**
 * Splits on spaces, except after `>`, `<` or `=` (so `>= 1.0.0` stays one part), then removes the spaces inside
 * each part. As upstream, a part of a single character is dropped, so `1` and `*` leave nothing.
 */
function splitAndTrim(text: string): string[] {
  const bytes = Buffer.from(text, 'utf8');
  const result: string[] = [];
  let last = 0;
  let lastChar = 0;
  for (const [i, byte] of bytes.entries()) {
    if (byte === 0x20 && lastChar !== 0x3e && lastChar !== 0x3c && lastChar !== 0x3d) {
      if (last < i - 1) result.push(bytes.subarray(last, i).toString('utf8'));
      last = i + 1;
    } else if (byte !== 0x20) {
      lastChar = byte;
    }
  }
  if (last < bytes.length - 1) result.push(bytes.subarray(last).toString('utf8'));
  return result.map((part) => part.replaceAll(' ', ''));
}

function splitOrParts(parts: string[]): string[][] {
  const groups: string[][] = [];
  let last = 0;
  parts.forEach((part, index) => {
    if (part !== '||') return;
    if (index === 0) throw new SemverError("First element in range is '||'");
    groups.push(parts.slice(last, index));
    last = index + 1;
  });
  // An empty text ends here too: blang reports it with this message.
  if (last === parts.length) throw new SemverError("Last element in range is '||'");
  groups.push(parts.slice(last));
  return groups;
}

function splitComparatorVersion(part: string): [string, string] {
  const digitAt = part.search(/\p{Nd}/u);
  if (digitAt === -1) throw new SemverError(`Could not get version from string: ${goQuote(part)}`);
  return [part.slice(0, digitAt).trim(), part.slice(digitAt)];
}

/** Go's strconv.Atoi followed by +1 on one dot-separated element; blang ignores the error and yields "". */
function incrementElement(version: string, index: number): string {
  const parts = version.split('.');
  const element = parts[index];
  if (element === undefined || !/^[+-]?[0-9]+$/.test(element)) return '';
  const value = BigInt(element);
  if (value > 9223372036854775807n || value < -9223372036854775808n) return '';
  parts[index] = String(value + 1n);
  return parts.join('.');
}

/**
 * blang's wildcard expansion, for any part containing an `x`: `>=1.2.x` → `>=1.2.0`, `<=1.2.x` → `<1.3.0`,
 * `1.x` → `>=1.0.0 <2.0.0`. Its oddities are kept: `1.x.x` counts as a patch wildcard, an unknown operator is
 * dropped, and a bare `1.0.0-xyz` expands to a comparator without a version (which then fails).
 */
function expandWildcard(part: string): string[] {
  if (!part.includes('x')) return [part];
  const [operator, versionText] = splitComparatorVersion(part);
  const elements = versionText.split('.');
  const wildcard = elements[elements.length - 1] === 'x' ? elements.length : 0;
  let flat = versionText.replace('.x.x', '.x').replace('.x', '.0');
  if (flat.split('.').length === 2) flat += '.0';
  const increment = () =>
    wildcard === 3 ? incrementElement(flat, 1) : wildcard === 2 ? incrementElement(flat, 0) : '';
  switch (operator) {
    case '>':
      return [`>=${increment()}`];
    case '>=':
      return [`>=${flat}`];
    case '<':
      return [`<${flat}`];
    case '<=':
      return [`<${increment()}`];
    case '':
    case '=':
    case '==':
      return [`>=${flat}`, `<${increment()}`];
    case '!=':
    case '!':
      return [`<${flat}`, `>=${increment()}`];
    default:
      return [flat];
  }
}

/** blang `Version.Compare`: -1, 0 or 1; a version without pre-release identifiers sorts after one with them. */
export function compareVersions(a: SemanticVersion, b: SemanticVersion): number {
  for (const key of ['major', 'minor', 'patch'] as const) if (a[key] !== b[key]) return a[key] > b[key] ? 1 : -1;
  if (a.pre.length === 0 || b.pre.length === 0) return Math.sign(b.pre.length - a.pre.length);
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const [x, y] = [mustAt(a.pre, i), mustAt(b.pre, i)];
    if (x === y) continue;
    if (typeof x !== typeof y) return typeof x === 'bigint' ? -1 : 1;
    return x > y ? 1 : -1;
  }
  return Math.sign(a.pre.length - b.pre.length);
}

const tests: Record<Comparison, (order: number) => boolean> = {
  '=': (order) => order === 0,
  '!=': (order) => order !== 0,
  '>': (order) => order === 1,
  '>=': (order) => order >= 0,
  '<': (order) => order === -1,
  '<=': (order) => order <= 0,
};

/** Whether a version satisfies a range; an empty AND group (from `a || || b`) matches nothing. */
export function rangeIncludes(range: VersionRange, version: SemanticVersion): boolean {
  return range.some(
    (group) =>
      group.length > 0 &&
      group.every(({ comparison, version: bound }) => tests[comparison](compareVersions(version, bound))),
  );
}
