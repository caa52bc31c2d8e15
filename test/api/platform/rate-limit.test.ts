import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertError, type CallResult } from '../../support/conformance.js';
import { buildTestApp, type TestApp } from '../../support/test-app.js';
import { MANAGEMENT as api } from '../../support/api-paths.js';

/** Holds the store's one connection with an open write, as a slow write would, until `release()`. */
function holdWrites(t: TestApp): { release: () => void; held: Promise<unknown> } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  return { release, held: t.deps.store.transaction(() => gate) };
}

/** Sends `count` identity creates at once; resolves `refused` once `expectRefused` of them have answered. */
function burst(t: TestApp, token: string, count: number, expectRefused: number) {
  const answered: CallResult[] = [];
  let onRefused!: () => void;
  const refused = new Promise<void>((resolve) => (onRefused = resolve));
  if (expectRefused === 0) onRefused();
  const all = Array.from({ length: count }, (_, index) =>
    t
      .call({
        method: 'POST',
        url: `${api}/identities`,
        token,
        payload: { name: `burst-${Math.random()}-${index}`, type: 'User', isAdmin: false },
      })
      .then((result) => {
        answered.push(result);
        if (answered.length === expectRefused) onRefused();
        return result;
      }),
  );
  return { refused, all: Promise.all(all) };
}

describe('the write queue (upstream’s command rate limiter)', () => {
  it('refuses model changes past the queue with 429 SERVER_TOO_MANY_REQUESTS, keeps serving reads, and recovers', async () => {
    const t = await buildTestApp({ settings: { commandRateLimiterMaxQueued: 10 } });
    try {
      const token = await t.loginAsAdmin();
      // The session lookup is cached from here on: the burst needs the store only for its writes.
      assert.equal((await t.call({ method: 'GET', url: `${api}/identities`, token })).status, 200);

      // 1. One write runs (held open); ten may wait behind it; the other twenty are refused at once.
      const { release, held } = holdWrites(t);
      const writes = burst(t, token, 30, 20);
      const read = t.call({ method: 'GET', url: `${api}/identities?limit=1`, token });
      await writes.refused;

      // 2. The queue drains once the running write ends; the read was only delayed, never refused.
      release();
      await held;
      const results = await writes.all;
      const refused = results.filter((r) => r.status === 429);
      assert.equal(refused.length, 20);
      for (const result of refused) assertError(result, 429, 'SERVER_TOO_MANY_REQUESTS');
      assert.equal(results.filter((r) => r.status === 201).length, 10);
      assert.equal((await read).status, 200);

      // 3. After the burst, writes go through again.
      const after = await burst(t, token, 5, 0).all;
      assert.deepEqual(
        after.map((r) => r.status),
        [201, 201, 201, 201, 201],
      );
    } finally {
      await t.close();
    }
  });

  it('refuses nothing when commandRateLimiter.enabled is false', async () => {
    const t = await buildTestApp({ settings: { commandRateLimiterEnabled: false, commandRateLimiterMaxQueued: 10 } });
    try {
      const token = await t.loginAsAdmin();
      assert.equal((await t.call({ method: 'GET', url: `${api}/identities`, token })).status, 200);
      const { release, held } = holdWrites(t);
      const writes = burst(t, token, 30, 0);
      // Let the burst reach the store (where an enabled queue would refuse twenty at once) before releasing it.
      for (let turn = 0; turn < 50; turn++) await new Promise((resolve) => setImmediate(resolve));
      release();
      await held;
      assert.ok((await writes.all).every((r) => r.status === 201));
    } finally {
      await t.close();
    }
  });
});
