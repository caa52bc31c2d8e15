import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { goTime } from './go-format.js';

describe('goTime', () => {
  it('prints a UTC instant as Go time.Time.String() does, trimming the fraction', () => {
    assert.equal(goTime(new Date('2026-11-23T22:21:53.042Z')), '2026-11-23 22:21:53.042 +0000 UTC');
    assert.equal(goTime(new Date('2026-11-23T22:21:53.040Z')), '2026-11-23 22:21:53.04 +0000 UTC');
    assert.equal(goTime(new Date('2026-11-23T22:21:53.000Z')), '2026-11-23 22:21:53 +0000 UTC');
  });
});
