import assert from 'node:assert/strict';
import { it } from 'node:test';
import { BurstReport } from './burst-report.js';

it('reports the first occurrence at once, then at most once an interval with the count since the last report', () => {
  let now = 1000;
  const reports: number[] = [];
  const burst = new BurstReport(
    1000,
    () => now,
    (count) => reports.push(count),
  );
  burst.hit();
  for (let index = 0; index < 500; index++) burst.hit();
  assert.deepEqual(reports, [1]);
  now += 999;
  burst.hit();
  assert.deepEqual(reports, [1]);
  now += 1;
  burst.hit();
  assert.deepEqual(reports, [1, 502]);
});
