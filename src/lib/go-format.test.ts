import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseGoDuration } from './go-format.js';

describe('parseGoDuration', () => {
  it('reads what Go reads, in milliseconds', () => {
    const cases: Array<[string, number]> = [
      ['30m', 1_800_000], ['1h30m', 5_400_000], ['1.5h', 5_400_000], ['300ms', 300], ['-5m', -300_000], ['+1s', 1000],
      ['.5s', 500], ['5.s', 5000], ['0', 0], ['-0', 0], ['2us', 0.002], ['2µs', 0.002], ['1500ns', 0.0015], ['1h0m0s', 3_600_000],
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
