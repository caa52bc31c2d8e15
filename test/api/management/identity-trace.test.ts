import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../support/conformance.js';
import { createIdentity, createUser, login } from '../../support/factories.js';
import { buildTestApp, testTime, type TestApp } from '../../support/test-app.js';
import { selectRows } from '../../../src/store/queries/table-rows.js';
import { MANAGEMENT as api } from '../../support/api-paths.js';

describe('updateIdentityTracing', () => {
  let t: TestApp;
  let token: string;
  const trace = (id: string, payload: unknown, as = token) =>
    t.call({ method: 'PUT', url: `${api}/identities/${id}/trace`, token: as, payload });
  const stored = (id: string) =>
    t.deps.store.read(async (db) => (await selectRows(db, 'identity_traces', { identity_id: id }))[0]);

  before(async () => {
    t = await buildTestApp();
    token = await t.loginAsAdmin();
  });
  after(() => t.close());

  it('records a trace on the identity until now + duration, with a new trace id and both channels by default', async () => {
    const id = await createIdentity(t, token);
    // The body as the generated clients send it: unset fields as "" and null.
    const result = await trace(id, { enabled: true, duration: '30m', traceId: '', channels: null });
    assert.equal(result.status, 200, result.text);
    const data = (result.body as { data: { enabled: boolean; traceId: string; until: string } }).data;
    assert.equal(data.enabled, true);
    assert.match(data.traceId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(data.until, testTime(30 * 60_000));
    const row = await stored(id);
    assert.deepEqual(row && { traceId: row.trace_id, until: row.until, channels: JSON.parse(row.channels) }, {
      traceId: data.traceId,
      until: data.until,
      channels: ['selectPath', 'establishPath'],
    });
  });

  it('keeps the trace id and the known channels it is given, and replaces an earlier trace', async () => {
    const id = await createIdentity(t, token);
    assert.equal((await trace(id, { enabled: true, duration: '1m' })).status, 200);
    const result = await trace(id, {
      enabled: true,
      duration: '1h30m',
      traceId: 'my-trace',
      channels: ['establishPath', 'noSuchChannel'],
    });
    assert.deepEqual((result.body as { data: unknown }).data, {
      enabled: true,
      traceId: 'my-trace',
      until: testTime(90 * 60_000),
    });
    assert.deepEqual(JSON.parse((await stored(id))!.channels), ['establishPath']);
  });

  it('turns tracing off with Go’s zero time as `until` and nothing else', async () => {
    const id = await createIdentity(t, token);
    await trace(id, { enabled: true, duration: '10m' });
    const result = await trace(id, { enabled: false, duration: '', traceId: '', channels: [] });
    assert.equal(result.status, 200, result.text);
    assert.deepEqual(result.body, {
      data: { until: '0001-01-01T00:00:00.000Z' },
      meta: { apiEnrollmentVersion: '0.0.1', apiVersion: '0.0.1' },
    });
    assert.equal(await stored(id), undefined);
    assert.equal((await trace(id, {})).status, 200, 'an empty body turns it off too');
  });

  it('expires: a trace past its time is gone by the next trace written', async () => {
    const first = await createIdentity(t, token);
    const second = await createIdentity(t, token);
    await trace(first, { enabled: true, duration: '1m' });
    t.clock.advance(61_000);
    await trace(second, { enabled: true, duration: '1m' });
    assert.equal(await stored(first), undefined);
    assert.ok(await stored(second));
  });

  it('answers a bad duration with 400 and Go’s reason (upstream: 500), and an unknown identity with 404', async () => {
    const id = await createIdentity(t, token);
    for (const [duration, reason] of [
      ['bogus', 'time: invalid duration "bogus"'],
      ['', 'time: invalid duration ""'],
      ['5d', 'time: unknown unit "d" in duration "5d"'],
    ]) {
      const result = await trace(id, { enabled: true, duration });
      assertError(result, 400, 'COULD_NOT_VALIDATE', 'duration');
      assert.deepEqual((result.body as { error: { cause: unknown } }).error.cause, {
        field: 'duration',
        reason,
        value: duration,
      });
    }
    assert.equal(await stored(id), undefined);
    assertError(await trace('no-such-identity', { enabled: true, duration: '1m' }), 404, 'NOT_FOUND');
    assertError(await trace('no-such-identity', { enabled: false }), 404, 'NOT_FOUND');
  });

  it('is admin only', async () => {
    const user = await createUser(t, token);
    const userToken = await login(t, user.username, user.password, 'management');
    assertError(await trace(user.id, { enabled: true, duration: '1m' }, userToken), 401, 'UNAUTHORIZED');
  });
});
