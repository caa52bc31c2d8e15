import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeGoTime, encodeGoTime } from './go-time.js';

describe('Go binary time (the service list token)', () => {
  it('writes time.Unix(0, 0).UTC().MarshalBinary() as Go does', () => {
    assert.deepEqual([...encodeGoTime(0)], [1, 0, 0, 0, 14, 119, 145, 247, 0, 0, 0, 0, 0, 255, 255]);
  });

  it('reads back what it writes, to the millisecond, and Go’s version 2 form', () => {
    const ms = Date.parse('2026-11-29T09:16:33.123Z');
    assert.equal(decodeGoTime(encodeGoTime(ms)), ms);
    const v2 = Buffer.concat([Buffer.from([2]), Buffer.from(encodeGoTime(ms)).subarray(1), Buffer.from([30])]);
    assert.equal(decodeGoTime(v2), ms);
  });

  it('reads nothing from what is not a Go time', () => {
    assert.equal(decodeGoTime(new Uint8Array(0)), undefined);
    assert.equal(decodeGoTime(Uint8Array.of(1, 2, 3)), undefined);
    assert.equal(decodeGoTime(new Uint8Array(15).fill(9)), undefined);
  });
});
