import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareVersions, parseRange, parseVersion, rangeIncludes, SemverError } from './semver-range.js';

const matches = (range: string, version: string) => rangeIncludes(parseRange(range), parseVersion(version));
const rangeError = (range: string) => {
  try {
    parseRange(range);
  } catch (error) {
    assert.ok(error instanceof SemverError, String(error));
    return error.message;
  }
  assert.fail(`${range} parsed`);
};

describe('parseVersion', () => {
  it('reads major.minor.patch with pre-release and build parts', () => {
    assert.deepEqual(parseVersion('1.2.3'), { major: 1n, minor: 2n, patch: 3n, pre: [] });
    assert.deepEqual(parseVersion('1.2.3-beta.2+build.7'), { major: 1n, minor: 2n, patch: 3n, pre: ['beta', 2n] });
    assert.equal(parseVersion('18446744073709551615.0.0').major, 18446744073709551615n);
  });

  it('refuses what blang refuses, with its messages', () => {
    const cases: [string, string][] = [
      ['', 'Version string empty'],
      ['10', 'No Major.Minor.Patch elements found'],
      ['4.14', 'No Major.Minor.Patch elements found'],
      ['a.1.1', 'Invalid character(s) found in major number "a"'],
      ['01.1.1', 'Major number must not contain leading zeroes "01"'],
      ['1.01.1', 'Minor number must not contain leading zeroes "01"'],
      ['1.1.01', 'Patch number must not contain leading zeroes "01"'],
      ['1.1.1-', 'Prerelease is empty'],
      ['1.1.1-01', 'Numeric PreRelease version must not contain leading zeroes "01"'],
      ['1.1.1-b_c', 'Invalid character(s) found in prerelease "b_c"'],
      ['1.1.1+', 'Build meta data is empty'],
      ['1.1.1+a_b', 'Invalid character(s) found in build meta data "a_b"'],
      ['.1.1', 'strconv.ParseUint: parsing "": invalid syntax'],
      ['18446744073709551616.0.0', 'strconv.ParseUint: parsing "18446744073709551616": value out of range'],
    ];
    for (const [text, message] of cases) assert.throws(() => parseVersion(text), { message }, text);
  });
});

describe('compareVersions', () => {
  it('orders numbers, then pre-releases (numeric before text, a release after its pre-releases)', () => {
    const ordered = [
      '1.0.0-1',
      '1.0.0-2',
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-beta',
      '1.0.0',
      '1.0.1',
      '1.1.0',
      '2.0.0',
    ];
    for (let i = 0; i < ordered.length - 1; i++) {
      const [a, b] = [parseVersion(ordered[i]!), parseVersion(ordered[i + 1]!)];
      assert.equal(compareVersions(a, b), -1, `${ordered[i]} < ${ordered[i + 1]}`);
      assert.equal(compareVersions(b, a), 1);
      assert.equal(compareVersions(a, a), 0);
    }
    assert.equal(compareVersions(parseVersion('1.0.0+a'), parseVersion('1.0.0+b')), 0);
  });
});

describe('parseRange', () => {
  it('accepts every comparator blang knows', () => {
    const cases: [string, string, boolean][] = [
      ['>1.2.3', '1.2.4', true],
      ['>1.2.3', '1.2.3', false],
      ['>=1.2.3', '1.2.3', true],
      ['>=1.2.3', '1.2.2', false],
      ['<1.2.3', '1.2.2', true],
      ['<1.2.3', '1.2.3', false],
      ['<=1.2.3', '1.2.3', true],
      ['<=1.2.3', '1.2.4', false],
      ['1.2.3', '1.2.3', true],
      ['=1.2.3', '1.2.4', false],
      ['==1.2.3', '1.2.3', true],
      ['!=1.2.3', '1.2.3', false],
      ['!1.2.3', '1.2.2', true],
    ];
    for (const [range, version, expected] of cases)
      assert.equal(matches(range, version), expected, `${range} ∋ ${version}`);
  });

  it('joins with spaces (AND) and || (OR), AND binding tighter', () => {
    const range = '>1.2.2 <1.2.4 || >=2.0.0 <3.0.0';
    for (const [version, expected] of [
      ['1.2.2', false],
      ['1.2.3', true],
      ['2.9.9', true],
      ['3.0.0', false],
    ] as const) {
      assert.equal(matches(range, version), expected, version);
    }
    assert.equal(matches('>1.2.2 <1.2.5 !=1.2.4', '1.2.4'), false);
    assert.equal(matches('  >=   1.2.3   ', '1.2.3'), true, 'spaces after an operator are joined to it');
  });

  it('expands x wildcards as blang does', () => {
    assert.equal(matches('1.2.x', '1.2.9'), true);
    assert.equal(matches('1.2.x', '1.3.0'), false);
    assert.equal(matches('1.x', '1.9.0'), true);
    assert.equal(matches('1.x', '2.0.0'), false);
    assert.equal(matches('>1.2.x', '1.3.0'), true);
    assert.equal(matches('>1.2.x', '1.2.9'), false);
    assert.equal(matches('<=1.x', '1.99.0'), true);
    // Quirks kept: != expands to `<1.2.0 >=1.3.0` in one AND group, which nothing satisfies; 1.x.x counts as a
    // patch wildcard; an unknown operator before a wildcard is dropped.
    assert.equal(matches('!=1.2.x', '1.2.5'), false);
    assert.equal(matches('!=1.2.x', '1.3.0'), false);
    assert.equal(matches('>1.x.x', '1.1.0'), true);
    assert.equal(matches('~1.2.x', '1.2.0'), true);
  });

  it('refuses what blang refuses, with its messages', () => {
    assert.equal(rangeError(''), "Last element in range is '||'");
    assert.equal(rangeError('1'), "Last element in range is '||'", 'a one-character part is dropped');
    assert.equal(rangeError('>1.0.0 ||'), "Last element in range is '||'");
    assert.equal(rangeError('|| >1.0.0'), "First element in range is '||'");
    assert.equal(rangeError('abc'), 'Could not get version from string: "abc"');
    assert.equal(
      rangeError('10'),
      'Could not parse Range "10": Could not parse version "10" in "10": No Major.Minor.Patch elements found',
    );
    assert.equal(
      rangeError('>>1.2.3'),
      'Could not parse Range ">>1.2.3": Could not parse comparator ">>" in ">>1.2.3"',
    );
    assert.equal(rangeError('~1.2.0'), 'Could not parse Range "~1.2.0": Could not parse comparator "~" in "~1.2.0"');
    assert.equal(rangeError('1.0.0-xyz'), 'Could not get version from string: "<"', 'a bare pre-release with an x');
    assert.equal(
      rangeError('>=1.0.0 <2.0'),
      'Could not parse Range "<2.0": Could not parse version "2.0" in "<2.0": No Major.Minor.Patch elements found',
    );
  });
});
