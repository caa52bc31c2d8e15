import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LoopTurns } from './loop-turns.js';

/** The check phase of the current turn has run (and with it the end of the turn). */
const afterTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('LoopTurns', () => {
  it('starts every request at once while a turn stays within its budget', () => {
    let now = 1_000;
    const turns = new LoopTurns(5, () => now);
    for (let i = 0; i < 5; i++) {
      assert.equal(turns.enter(), undefined);
      now += 0.9;
    }
    assert.equal(turns.waiting, 0);
  });

  it('holds requests past the budget for later turns, starts them in arrival order, and sizes batches to the budget', async () => {
    let now = 1_000;
    const turns = new LoopTurns(5, () => now);
    // One turn's I/O: requests of 2 ms each until the budget is spent; the rest wait.
    const started: number[] = [];
    const waits: Promise<void>[] = [];
    for (let i = 0; i < 12; i++) {
      const wait = turns.enter();
      if (wait) waits.push(wait.then(() => void started.push(i)));
      else started.push(i);
      now += 2;
    }
    assert.deepEqual(started, [0, 1, 2]);
    assert.equal(turns.waiting, 9);
    // The turn ends after 24 ms of work: the first batch is one request.
    await afterTurn();
    assert.deepEqual(started, [0, 1, 2, 3]);
    // Turns of 1 ms let the batch grow, at most twofold a turn: 2, then 4, then the last 2.
    const sizes: number[] = [];
    while (turns.waiting > 0) {
      const before = started.length;
      now += 1;
      await afterTurn();
      sizes.push(started.length - before);
    }
    await Promise.all(waits);
    assert.deepEqual(sizes, [2, 4, 2]);
    assert.deepEqual(started, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  it('lets a new request wait behind those already waiting, even with budget left', async () => {
    let now = 1_000;
    const turns = new LoopTurns(5, () => now);
    const order: string[] = [];
    assert.equal(turns.enter(), undefined);
    now += 6;
    for (const name of ['first', 'second', 'third']) void turns.enter()?.then(() => order.push(name));
    now = 2_000;
    // The turn took 1 s: one waiting request starts; in the new turn the budget is fresh, but two still wait.
    await afterTurn();
    assert.equal(turns.waiting, 2);
    const late = turns.enter();
    assert.ok(late, 'a request arriving while others wait does not jump the queue');
    void late.then(() => order.push('late'));
    while (turns.waiting > 0) {
      now += 1;
      await afterTurn();
    }
    await afterTurn();
    assert.deepEqual(order, ['first', 'second', 'third', 'late']);
  });
});
