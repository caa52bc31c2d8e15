import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deleteOldest, getOrAdd, keysOf, mustAt, mustGet } from './collections.js';

test('mustGet answers a present value, falsy ones included, and throws a clear error for a missing key', () => {
  const map = new Map<string, number | boolean>([
    ['a', 1],
    ['zero', 0],
    ['no', false],
  ]);
  assert.equal(mustGet(map, 'a'), 1);
  assert.equal(mustGet(map, 'zero'), 0);
  assert.equal(mustGet(map, 'no'), false);
  assert.throws(() => mustGet(map, 'b'), /no entry for b/);
});

test('mustAt answers the element at an index (negative from the end) and throws outside the list', () => {
  const list = ['x', 'y', 'z'];
  assert.equal(mustAt(list, 0), 'x');
  assert.equal(mustAt(list, -1), 'z');
  assert.throws(() => mustAt(list, 3), /no element at 3 of a list of 3/);
  assert.throws(() => mustAt([], 0), /no element at 0/);
});

test("keysOf lists an object literal's own keys", () => {
  assert.deepEqual(keysOf({ one: 1, two: 2 }), ['one', 'two']);
});

test('deleteOldest drops the entry inserted first, and nothing from an empty map', () => {
  const map = new Map([
    ['first', 1],
    ['second', 2],
  ]);
  map.set('first', 3); // updating keeps the insertion position
  deleteOldest(map);
  assert.deepEqual([...map.keys()], ['second']);
  const empty = new Map<string, number>();
  deleteOldest(empty);
  assert.equal(empty.size, 0);
});

test('getOrAdd makes a value once and keeps it, a falsy one included', () => {
  const map = new Map<string, boolean>();
  let made = 0;
  const make = () => (made++, false);
  assert.equal(getOrAdd(map, 'k', make), false);
  assert.equal(getOrAdd(map, 'k', make), false);
  assert.equal(made, 1);
});
