import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as codecs from './header-codecs.js';
import { FrameError } from './message.js';

describe('header codecs', () => {
  it('encodes the capability mask as upstream does (bits 1, 2, 3: 0x0e)', () => {
    assert.deepEqual([...codecs.encodeBitmask([1, 2, 3])], [0x0e]);
    assert.deepEqual([...codecs.decodeBitmask(Uint8Array.of(0x0e))].sort(), [1, 2, 3]);
    assert.deepEqual([...codecs.encodeBitmask([9])], [0x02, 0x00]);
    assert.deepEqual([...codecs.decodeBitmask(Uint8Array.of(0x02, 0x00))], [9]);
  });

  it('round-trips string slices and both maps, empty ones as no bytes', () => {
    assert.deepEqual(codecs.decodeStringSlice(codecs.encodeStringSlice(['a', 'héllo', ''])), ['a', 'héllo', '']);
    assert.equal(codecs.encodeStringSlice([]).length, 0);
    assert.deepEqual(codecs.decodeStringSlice(new Uint8Array(0)), []);
    const map = new Map([
      [3, Uint8Array.of(1, 2)],
      [1110, Uint8Array.of()],
    ]);
    assert.deepEqual(
      [...codecs.decodeU32ToBytesMap(codecs.encodeU32ToBytesMap(map))].map(([key, value]) => [key, [...value]]),
      [
        [3, [1, 2]],
        [1110, []],
      ],
    );
    assert.deepEqual(codecs.decodeStringToStringMap(codecs.encodeStringToStringMap({ a: '1', b: '' })), {
      a: '1',
      b: '',
    });
    assert.equal(Buffer.from(codecs.encodeStringSlice(['ab'])).toString('hex'), '01000000020000006162');
  });

  it('refuses collections that run past their bytes or claim more than 128 entries', () => {
    assert.throws(() => codecs.decodeStringSlice(Uint8Array.of(1, 0, 0, 0, 9, 0, 0, 0, 0x61)), FrameError);
    assert.throws(() => codecs.decodeStringSlice(Uint8Array.of(0xff, 0xff, 0xff, 0xff)), /at most 128/);
    assert.throws(() => codecs.decodeU32ToBytesMap(Uint8Array.of(1, 0)), FrameError);
  });

  it('reads integers little-endian and refuses wrong lengths', () => {
    assert.equal(codecs.decodeU64(codecs.encodeU64(1_700_000_000_000_000_000n)), 1_700_000_000_000_000_000n);
    assert.equal(codecs.decodeI32(codecs.encodeI32(-1)), -1);
    assert.deepEqual([...codecs.encodeU32(1)], [1, 0, 0, 0]);
    assert.throws(() => codecs.decodeU32(Uint8Array.of(1)), FrameError);
    assert.equal(codecs.decodeBool(Uint8Array.of(1)), true);
    assert.equal(codecs.decodeBool(Uint8Array.of(2)), false);
  });
});
