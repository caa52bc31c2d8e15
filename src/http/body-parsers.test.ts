import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tooDeepAt } from './body-parsers.js';

describe('tooDeepAt', () => {
  it('finds the bracket that nests past the limit', () => {
    assert.equal(tooDeepAt('[[[1]]]', 3), undefined);
    assert.equal(tooDeepAt('[[[[1]]]]', 3), '[');
    assert.equal(tooDeepAt('{"a":{"a":{"a":{"a":1}}}}', 3), '{');
    assert.equal(tooDeepAt('[{"a":[{}]}]', 3), '{');
  });

  it('counts depth, not brackets: siblings do not add up', () => {
    assert.equal(tooDeepAt(`[${'[],'.repeat(1000)}[]]`, 2), undefined);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    assert.equal(tooDeepAt(`["${'['.repeat(100)}"]`, 2), undefined);
    assert.equal(tooDeepAt(`["\\"${'['.repeat(100)}"]`, 2), undefined);
    assert.equal(tooDeepAt(`["\\\\", [[[]]]]`, 2), '[');
  });
});
