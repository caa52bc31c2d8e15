import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BoltzValueError, decodeField } from './boltz-values.js';

const typed = (type: number, payload: number[] | Buffer) => Buffer.concat([Buffer.from([type]), Buffer.from(payload)]);

describe('decodeField', () => {
  it('decodes each boltz type', () => {
    assert.equal(decodeField(typed(1, [1])), true);
    assert.equal(decodeField(typed(1, [0])), false);
    assert.equal(decodeField(typed(2, [0xfe, 0xff, 0xff, 0xff])), -2);
    const int64 = Buffer.alloc(8);
    int64.writeBigInt64LE(5_000_000_000n);
    assert.equal(decodeField(typed(3, int64)), 5_000_000_000);
    const float = Buffer.alloc(8);
    float.writeDoubleLE(1.5);
    assert.equal(decodeField(typed(4, float)), 1.5);
    assert.equal(decodeField(typed(5, Buffer.from('héllo'))), 'héllo');
    assert.equal(decodeField(typed(7, [])), null);
    assert.equal(decodeField(Buffer.alloc(0)), null);
  });

  it("decodes Go's MarshalBinary time of a UTC instant", () => {
    // 2024-05-06T07:08:09.123456789Z: seconds since year 1, nanoseconds, zone -1 (UTC).
    const payload = Buffer.alloc(15);
    payload[0] = 1;
    payload.writeBigInt64BE(BigInt(Date.UTC(2024, 4, 6, 7, 8, 9) / 1000) + 62135596800n, 1);
    payload.writeInt32BE(123456789, 9);
    payload.writeInt16BE(-1, 13);
    assert.equal((decodeField(typed(6, payload)) as Date).toISOString(), '2024-05-06T07:08:09.123Z');
  });

  it('refuses what it cannot read exactly', () => {
    assert.throws(() => decodeField(typed(2, [1, 2])), BoltzValueError);
    assert.throws(() => decodeField(typed(9, [1])), /unknown field type 9/);
    const huge = Buffer.alloc(8);
    huge.writeBigInt64LE(2n ** 62n);
    assert.throws(() => decodeField(typed(3, huge)), /beyond/);
    assert.throws(() => decodeField(typed(6, [1, 2, 3])), /not a Go time/);
  });
});
