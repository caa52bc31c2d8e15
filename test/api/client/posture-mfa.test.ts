import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../../support/test-app.js';
import { createEntity, createUser, login } from '../../support/factories.js';
import { createSession, grantService, openEdgeRouter, requestSession } from '../../support/sessions.js';
import { enrollVerifiedMfa, totpCode } from '../../support/mfa.js';
import { assertError } from '../../support/conformance.js';
import type { MfaState } from '../../../src/posture/posture-inputs.js';
import { CLIENT as client, MANAGEMENT as management } from '../../support/api-paths.js';

/**
 * These tests stand in for MFA at posture's one MFA seam, to steer exactly when an API session passed MFA and see
 * how posture follows it: timeouts, and the prompts a wake or unlock starts.
 */
describe('MFA posture checks for an API session that passed MFA', () => {
  let t: TestApp;
  let admin: string;
  const mfaStates = new Map<string, MfaState>();

  before(async () => {
    t = await buildTestApp({
      readMfaState: (_db, _identity, apiSessionId) =>
        Promise.resolve(mfaStates.get(apiSessionId) ?? { isEnrolled: false }),
    });
    admin = await t.loginAsAdmin();
    await openEdgeRouter(t, admin);
  });
  after(() => t.close());

  const apiSessionIdOf = async (token: string) =>
    ((await t.call({ method: 'GET', url: `${client}/current-api-session`, token })).body as { data: { id: string } })
      .data.id;
  const exists = async (id: string) =>
    (await t.call({ method: 'GET', url: `${management}/sessions/${id}`, token: admin })).status === 200;
  const mfaQuery = async (token: string, serviceId: string) => {
    const result = await t.call({ method: 'GET', url: `${client}/services/${serviceId}`, token });
    const [policy] = (result.body as { data: { postureQueries: { postureQueries: Record<string, unknown>[] }[] } }).data
      .postureQueries;
    return policy!.postureQueries[0]!;
  };

  /** A user whose Dial policy needs the MFA check `details`, logged in and, as far as posture knows, past MFA. */
  async function passedMfa(details: Record<string, unknown>) {
    const attribute = `mfa-${Math.random().toString(36).slice(2, 8)}`;
    const check = await createEntity(t, admin, 'posture-checks', {
      name: attribute,
      typeId: 'MFA',
      roleAttributes: [attribute],
      ...details,
    });
    const user = await createUser(t, admin);
    const { serviceId } = await grantService(t, admin, user.id, ['Dial'], [`#${attribute}`]);
    const token = await login(t, user.username, user.password);
    const apiSessionId = await apiSessionIdOf(token);
    mfaStates.set(apiSessionId, {
      isEnrolled: true,
      passedAt: t.clock(),
      sdk: { type: 'ziti-sdk-c', version: '1.0.12' },
    });
    await t.deps.posture.postureChanged(user.id);
    return { check, user, serviceId, token, apiSessionId };
  }

  it('passes until the MFA timeout, then the session goes at the next sweep', async () => {
    const { serviceId, token } = await passedMfa({ timeoutSeconds: 600 });
    t.clock.advance(100_000);
    assert.deepEqual(await mfaQuery(token, serviceId).then((q) => [q.isPassing, q.timeout, q.timeoutRemaining]), [
      true,
      600,
      500,
    ]);
    const session = await createSession(t, token, serviceId);
    t.clock.advance(499_000);
    await t.deps.posture.sweep();
    assert.equal(await exists(session.id), true, 'not timed out yet');
    t.clock.advance(1_001);
    await t.deps.posture.sweep();
    assert.equal(await exists(session.id), false, 'timed out');
    assert.deepEqual(await mfaQuery(token, serviceId).then((q) => [q.isPassing, q.timeoutRemaining]), [false, 0]);
  });

  it('a wake starts the prompt: the service is named in the reply, and the session goes after the grace period', async () => {
    const { serviceId, token, user, apiSessionId } = await passedMfa({ timeoutSeconds: 3600, promptOnWake: true });
    const session = await createSession(t, token, serviceId);
    t.clock.advance(60_000);
    const wokenAt = t.clock().toISOString();
    const woken = await t.call({
      method: 'POST',
      url: `${client}/posture-response`,
      token,
      payload: { id: 'state', typeId: 'ENDPOINT_STATE', woken: true },
    });
    assert.equal(woken.status, 201, woken.text);
    const name = (
      (await t.call({ method: 'GET', url: `${management}/services/${serviceId}`, token: admin })).body as {
        data: { name: string };
      }
    ).data.name;
    assert.deepEqual((woken.body as { data: { services: unknown[] } }).data.services, [
      { id: serviceId, name, postureQueryType: 'MFA', timeout: 3600, timeoutRemaining: 300 },
    ]);

    const query = await mfaQuery(token, serviceId);
    assert.equal(query.updatedAt, wokenAt, "the wake shows as the query's updatedAt");
    assert.deepEqual([query.isPassing, query.timeoutRemaining], [true, 300]);
    assert.equal(
      (
        (await t.call({ method: 'GET', url: `${client}/current-api-session/service-updates`, token })).body as {
          data: { lastChangeAt: string };
        }
      ).data.lastChangeAt,
      wokenAt,
    );

    t.clock.advance(300_000);
    await t.deps.posture.sweep();
    assert.equal(await exists(session.id), false, 'the prompt was not answered within 5 minutes');

    const data = await t.call({ method: 'GET', url: `${management}/identities/${user.id}/posture-data`, token: admin });
    const sessionData = (
      data.body as {
        data: {
          apiSessionPostureData: Record<
            string,
            { mfa: { passedMfa: boolean; passedAt: string }; endpointState: { wokenAt: string } }
          >;
        };
      }
    ).data.apiSessionPostureData[apiSessionId]!;
    assert.equal(sessionData.mfa.passedMfa, true);
    assert.equal(sessionData.endpointState.wokenAt, wokenAt);
  });

  it('an unlock prompts only checks that prompt on unlock, and only with enough timeout left', async () => {
    const unlock = await passedMfa({ timeoutSeconds: -1, promptOnUnlock: true });
    const reply = await t.call({
      method: 'POST',
      url: `${client}/posture-response-bulk`,
      token: unlock.token,
      payload: [{ id: 's', typeId: 'ENDPOINT_STATE', unlocked: true }],
    });
    assert.deepEqual(
      (reply.body as { data: { services: { id: string; timeout: number }[] } }).data.services.map((s) => [
        s.id,
        s.timeout,
      ]),
      [[unlock.serviceId, -1]],
    );

    const wakeOnly = await passedMfa({ timeoutSeconds: -1, promptOnWake: true });
    const notPrompted = await t.call({
      method: 'POST',
      url: `${client}/posture-response`,
      token: wakeOnly.token,
      payload: { id: 's', typeId: 'ENDPOINT_STATE', unlocked: true },
    });
    assert.deepEqual((notPrompted.body as { data: { services: unknown[] } }).data.services, []);

    const short = await passedMfa({ timeoutSeconds: 400, promptOnWake: true });
    t.clock.advance(200_000);
    const tooLate = await t.call({
      method: 'POST',
      url: `${client}/posture-response`,
      token: short.token,
      payload: { id: 's', typeId: 'ENDPOINT_STATE', woken: true },
    });
    assert.deepEqual(
      (tooLate.body as { data: { services: unknown[] } }).data.services,
      [],
      '200 s left is within the grace period already',
    );
  });
});

/** The same checks wired to real TOTP MFA: enrolling, passing and removing it move posture, nothing stands in. */
describe('MFA posture checks with real TOTP MFA', () => {
  let t: TestApp;
  let admin: string;

  before(async () => {
    t = await buildTestApp();
    admin = await t.loginAsAdmin();
    await openEdgeRouter(t, admin);
  });
  after(() => t.close());

  const isPassing = async (token: string, serviceId: string) => {
    const result = await t.call({ method: 'GET', url: `${client}/services/${serviceId}`, token });
    const [policy] = (result.body as { data: { postureQueries: { postureQueries: { isPassing: boolean }[] }[] } }).data
      .postureQueries;
    return policy!.postureQueries[0]!.isPassing;
  };

  async function userBehindMfaCheck() {
    const attribute = `real-mfa-${Math.random().toString(36).slice(2, 8)}`;
    await createEntity(t, admin, 'posture-checks', {
      name: attribute,
      typeId: 'MFA',
      roleAttributes: [attribute],
      timeoutSeconds: -1,
    });
    const user = await createUser(t, admin);
    const { serviceId } = await grantService(t, admin, user.id, ['Dial'], [`#${attribute}`]);
    return { user, serviceId, token: await login(t, user.username, user.password) };
  }

  it('fails without MFA, passes once MFA is enrolled and verified in the session, and fails again when an admin removes it', async () => {
    const { user, serviceId, token } = await userBehindMfaCheck();
    assert.equal(await isPassing(token, serviceId), false);
    assertError(await requestSession(t, token, serviceId), 409, 'INVALID_POSTURE');

    await enrollVerifiedMfa(t, token);
    assert.equal(await isPassing(token, serviceId), true, 'verifying MFA passes it for the current session');
    const session = await createSession(t, token, serviceId);

    const removed = await t.call({ method: 'DELETE', url: `${management}/identities/${user.id}/mfa`, token: admin });
    assert.equal(removed.status, 200, removed.text);
    assert.equal(await isPassing(token, serviceId), false);
    const lookup = await t.call({ method: 'GET', url: `${management}/sessions/${session.id}`, token: admin });
    assert.equal(lookup.status, 404, 'the session went with the MFA it stood on');
  });

  it('a new login passes the check only after POST /authenticate/mfa', async () => {
    const { user, serviceId, token } = await userBehindMfaCheck();
    const { secret } = await enrollVerifiedMfa(t, token);
    const second = await login(t, user.username, user.password);
    const mfa = await t.call({
      method: 'POST',
      url: `${client}/authenticate/mfa`,
      token: second,
      payload: { code: totpCode(secret, t.clock()) },
    });
    assert.equal(mfa.status, 200, mfa.text);
    assert.equal(await isPassing(second, serviceId), true);
    await createSession(t, second, serviceId);
  });
});
