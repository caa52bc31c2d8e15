import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { goFloat, goQuote, goTime, goValue, parseGoDuration } from './go-format.js';

describe('parseGoDuration', () => {
  it('reads what Go reads, in milliseconds', () => {
    const cases: Array<[string, number]> = [
      ['30m', 1_800_000],
      ['1h30m', 5_400_000],
      ['1.5h', 5_400_000],
      ['300ms', 300],
      ['-5m', -300_000],
      ['+1s', 1000],
      ['.5s', 500],
      ['5.s', 5000],
      ['0', 0],
      ['-0', 0],
      ['2us', 0.002],
      ['2µs', 0.002],
      ['1500ns', 0.0015],
      ['1h0m0s', 3_600_000],
    ];
    for (const [text, ms] of cases) assert.deepEqual(parseGoDuration(text), { ms }, text);
  });

  it("refuses what Go refuses, with Go's messages", () => {
    assert.deepEqual(parseGoDuration(''), { error: 'time: invalid duration ""' });
    assert.deepEqual(parseGoDuration('bogus'), { error: 'time: invalid duration "bogus"' });
    assert.deepEqual(parseGoDuration('.'), { error: 'time: invalid duration "."' });
    assert.deepEqual(parseGoDuration('-'), { error: 'time: invalid duration "-"' });
    assert.deepEqual(parseGoDuration('1'), { error: 'time: missing unit in duration "1"' });
    assert.deepEqual(parseGoDuration('1d'), { error: 'time: unknown unit "d" in duration "1d"' });
    assert.deepEqual(parseGoDuration('1h-1m'), { error: 'time: unknown unit "h-" in duration "1h-1m"' });
    assert.deepEqual(parseGoDuration('3000000h'), { error: 'time: invalid duration "3000000h"' });
  });
});

describe('goValue', () => {
  it("renders decoded JSON as Go's %v does", () => {
    assert.equal(goValue(null), '<nil>');
    assert.equal(goValue('text'), 'text');
    assert.equal(goValue(1e21), '1e+21');
    assert.equal(goValue(42, true), '42');
    assert.equal(goValue([1, 'a', [true]]), '[1 a [true]]');
    assert.equal(goValue({ b: 1, a: { c: null } }), 'map[a:map[c:<nil>] b:1]');
  });

  it('stops at a bounded depth, however deep the value nests', () => {
    let deep: unknown = 1;
    for (let level = 0; level < 100_000; level++) deep = level % 2 ? [deep] : { a: deep };
    const text = goValue(deep);
    assert.ok(text.length < 200, text);
    assert.ok(text.endsWith(']') || text.endsWith('...'));
    assert.match(text, /\.\.\./);
  });

  it('cuts long renderings', () => {
    const text = goValue(Array.from({ length: 2_000_000 }, (_, index) => index));
    assert.equal(text.length, 4096 + 3);
    assert.ok(text.startsWith('[0 1 2 3'));
    assert.ok(text.endsWith('...'));
    assert.equal(goValue('x'.repeat(10_000)).length, 4096 + 3);
  });
});

describe('goFloat and goQuote', () => {
  it('write floats and quoted strings as Go does', () => {
    assert.equal(goFloat(Infinity), '+Inf');
    assert.equal(goFloat(0.0001), '0.0001');
    assert.equal(goFloat(0.00001), '1e-05');
    assert.equal(goQuote('a"\n\u0000'), '"a\\"\\n\\x00"');
  });
});

describe('goTime', () => {
  it('prints a UTC instant as Go time.Time.String() does, trimming the fraction', () => {
    assert.equal(goTime(new Date('2026-11-23T22:21:53.042Z')), '2026-11-23 22:21:53.042 +0000 UTC');
    assert.equal(goTime(new Date('2026-11-23T22:21:53.040Z')), '2026-11-23 22:21:53.04 +0000 UTC');
    assert.equal(goTime(new Date('2026-11-23T22:21:53.000Z')), '2026-11-23 22:21:53 +0000 UTC');
    assert.equal(goTime(new Date('2026-11-23T22:21:53.100Z')), '2026-11-23 22:21:53.1 +0000 UTC');
    assert.equal(goTime(new Date('2026-11-23T22:21:53.007Z')), '2026-11-23 22:21:53.007 +0000 UTC');
    assert.equal(goTime(new Date('+012026-01-02T03:04:05.600Z')), '+012026-01-02 03:04:05.6 +0000 UTC');
  });
});
