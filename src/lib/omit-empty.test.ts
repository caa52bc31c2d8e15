import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isGoEmpty, omitEmpty } from './omit-empty.js';

describe('omitEmpty', () => {
  it("leaves out what Go's omitempty does: false, 0, empty text, nil and empty slices", () => {
    for (const empty of [undefined, null, false, 0, -0, '', []]) assert.equal(isGoEmpty(empty), true, String(empty));
  });

  it('keeps every other value, objects included (a struct is never left out)', () => {
    for (const kept of [true, 1, -1, 'x', [0], {}, { a: 1 }, new Date(0)]) assert.equal(isGoEmpty(kept), false);
  });

  it('keeps the fields that stay in their order', () => {
    const fields = omitEmpty({ b: 'x', a: 0, c: [1], d: false, e: null, f: true, g: undefined, h: '' });
    assert.deepEqual(fields, { b: 'x', c: [1], f: true });
    assert.deepEqual(Object.keys(fields), ['b', 'c', 'f']);
  });
});
