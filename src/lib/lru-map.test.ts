import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LruMap } from './lru-map.js';

test('an LRU map keeps its capacity and forgets the entry used least recently', () => {
  const map = new LruMap<string, number>(2);
  map.set('a', 1);
  map.set('b', 2);
  assert.equal(map.get('a'), 1);
  map.set('c', 3);
  assert.equal(map.size, 2);
  assert.equal(map.get('b'), undefined);
  assert.equal(map.get('a'), 1);
  assert.equal(map.get('c'), 3);
  map.set('a', 4);
  map.set('d', 5);
  assert.equal(map.get('c'), undefined);
  assert.equal(map.get('a'), 4);
});
