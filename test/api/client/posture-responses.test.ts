import type { ZitiEvent } from '../../../src/events/event-types.js';
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../../support/test-app.js';
import { assertError, type CallResult } from '../../support/conformance.js';
import { createEntity, createUser, login, type UserFixture } from '../../support/factories.js';
import {
  createSession,
  grantService,
  openEdgeRouter,
  requestSession,
  type GrantedService,
} from '../../support/sessions.js';
import { PostureMonitor } from '../../../src/posture/posture-monitor.js';
import { loadPosture } from '../../../src/posture/reported-posture.js';
import { CLIENT as client, MANAGEMENT as management } from '../../support/api-paths.js';

interface PostureQueries {
  policyId: string;
  isPassing: boolean;
  postureQueries: { id: string; queryType: string; isPassing: boolean; timeout: number; timeoutRemaining: number }[];
}

describe('posture responses and posture evaluation', () => {
  let t: TestApp;
  let admin: string;
  let os: string;
  let mac: string;
  let mfa: string;

  before(async () => {
    t = await buildTestApp();
    admin = await t.loginAsAdmin();
    await openEdgeRouter(t, admin);
    os = await createEntity(t, admin, 'posture-checks', {
      name: 'linux-5',
      typeId: 'OS',
      roleAttributes: ['device'],
      operatingSystems: [{ type: 'Linux', versions: ['>=5.0.0'] }],
    });
    mac = await createEntity(t, admin, 'posture-checks', {
      name: 'known-nic',
      typeId: 'MAC',
      roleAttributes: ['device'],
      macAddresses: ['AA:BB:CC:DD:EE:FF'],
    });
    mfa = await createEntity(t, admin, 'posture-checks', {
      name: 'mfa',
      typeId: 'MFA',
      roleAttributes: ['mfa'],
      timeoutSeconds: 300,
      promptOnWake: true,
    });
  });
  after(() => t.close());

  const post = (token: string, payload: unknown, bulk = Array.isArray(payload)) =>
    t.call({ method: 'POST', url: `${client}/posture-response${bulk ? '-bulk' : ''}`, token, payload });
  /** What a compliant device reports; the check ids exist once `before` ran. */
  const goodDevice = () => [
    { id: os, typeId: 'OS', type: 'Linux', version: '6.1.0', build: '42' },
    { id: mac, typeId: 'MAC', macAddresses: ['11:22:33:44:55:66', 'aa-bb-cc-dd-ee-ff'] },
  ];
  const report = async (token: string, payload: unknown) => {
    const result = await post(token, payload);
    assert.equal(result.status, 201, result.text);
  };
  const postureQueriesOf = async (token: string, serviceId: string) => {
    const result = await t.call({ method: 'GET', url: `${client}/services/${serviceId}`, token });
    assert.equal(result.status, 200, result.text);
    return (result.body as { data: { postureQueries: PostureQueries[] } }).data.postureQueries;
  };
  const lastChangeAt = async (token: string) =>
    (
      (await t.call({ method: 'GET', url: `${client}/current-api-session/service-updates`, token })).body as {
        data: { lastChangeAt: string };
      }
    ).data.lastChangeAt;
  const exists = async (id: string) =>
    (await t.call({ method: 'GET', url: `${management}/sessions/${id}`, token: admin })).status === 200;

  interface Device {
    user: UserFixture;
    token: string;
    granted: GrantedService;
  }

  /** A user whose Dial policy on a new service requires the posture checks of `roles`. */
  async function device(roles = ['#device']): Promise<Device> {
    const user = await createUser(t, admin);
    const granted = await grantService(t, admin, user.id, ['Dial'], roles);
    return { user, token: await login(t, user.username, user.password), granted };
  }

  beforeEach(() => t.clock.advance(1000));

  describe('createPostureResponse and createPostureResponseBulk', () => {
    it('accept every response type and answer 201 with no services to prompt', async () => {
      const { token } = await device();
      const single = [
        { id: os, typeId: 'OS', type: 'Linux', version: '6.1.0' },
        { id: mac, typeId: 'MAC', macAddresses: ['aa:bb:cc:dd:ee:ff'] },
        { id: 'domain-check', typeId: 'DOMAIN', domain: 'corp.example' },
        {
          id: 'process-check',
          typeId: 'PROCESS',
          path: '/usr/bin/agent',
          isRunning: true,
          hash: 'ab',
          signerFingerprints: ['cd'],
        },
        { id: 'state', typeId: 'ENDPOINT_STATE', woken: true, unlocked: false },
      ];
      for (const payload of single) {
        const result = await post(token, payload);
        assert.equal(result.status, 201, result.text);
        assert.deepEqual((result.body as { data: unknown }).data, { services: [] });
      }
      const bulk = await post(token, single);
      assert.equal(bulk.status, 201, bulk.text);
      assert.equal((await post(token, [])).status, 201);
    });

    it('refuses what upstream cannot parse or validate', async () => {
      const { token } = await device();
      const unknown = await post(token, { id: 'x', typeId: 'MFA' });
      assertError(unknown, 400, 'COULD_NOT_PARSE_BODY');
      assert.deepEqual((unknown.body as { error: { cause: unknown } }).error.cause, {
        code: 'UNHANDLED',
        message: 'invalid typeId value: "MFA"',
      });
      assertError(await post(token, [{ id: 'x', typeId: 'PROCESS_MULTI' }]), 400, 'COULD_NOT_PARSE_BODY');
      assertError(
        await post(token, { typeId: 'OS', type: 'Linux', version: '1.0.0' }),
        400,
        'COULD_NOT_VALIDATE',
        'id',
      );
      assertError(
        await post(token, { id: 'x', typeId: 'MAC', macAddresses: null }),
        400,
        'COULD_NOT_VALIDATE',
        'macAddresses',
      );
      assertError(
        await post(token, { id: 'x', typeId: 'OS', type: 'Linux', version: '1.0.0' }, true),
        400,
        'COULD_NOT_PARSE_BODY',
      );
      assertError(await post('not-a-session', { id: 'x', typeId: 'DOMAIN', domain: 'd' }), 401, 'UNAUTHORIZED');
    });
  });

  describe('postureQueries in the client service list', () => {
    it('evaluate each check against what the caller reported', async () => {
      const { token, granted } = await device();
      const before = await postureQueriesOf(token, granted.serviceId);
      assert.equal(before.length, 1);
      assert.equal(before[0]!.policyId, granted.policies.Dial);
      assert.equal(before[0]!.isPassing, false);
      const queries = Object.fromEntries(
        before[0]!.postureQueries.map((q) => [q.queryType, [q.isPassing, q.timeout, q.timeoutRemaining]]),
      );
      assert.deepEqual(queries, { OS: [false, -1, -1], MAC: [false, -1, -1] });
      await report(token, goodDevice());
      const after = await postureQueriesOf(token, granted.serviceId);
      assert.equal(after[0]!.isPassing, true);
      assert.ok(after[0]!.postureQueries.every((q) => q.isPassing));
    });

    it('report an MFA check as failing with its timeout (no identity has MFA yet: fail closed)', async () => {
      const { token, granted } = await device(['#mfa']);
      const [policy] = await postureQueriesOf(token, granted.serviceId);
      assert.deepEqual(
        policy!.postureQueries.map((q) => [q.id, q.isPassing, q.timeout, q.timeoutRemaining]),
        [[mfa, false, 300, 0]],
      );
    });
  });

  describe('createSession with posture checks', () => {
    it('refuses with 409 INVALID_POSTURE and records the refusal, then creates once posture passes', async () => {
      const { user, token, granted } = await device();
      const refused = await requestSession(t, token, granted.serviceId, 'Dial');
      assertError(refused, 409, 'INVALID_POSTURE');
      const cause = (
        refused.body as {
          error: {
            cause: { message: string; data: Record<string, { id: string; typeId: string; isPassing: boolean }[]> };
          };
        }
      ).error.cause;
      assert.equal(cause.message, `Failed to pass posture checks for service policies: [${granted.policies.Dial}]`);
      assert.deepEqual(cause.data[granted.policies.Dial!]!.map((c) => c.id).sort(), [os, mac].sort());

      const failures = await t.call({
        method: 'GET',
        url: `${management}/identities/${user.id}/failed-service-requests`,
        token: admin,
      });
      assert.equal(failures.status, 200, failures.text);
      const [failure] = (
        failures.body as {
          data: {
            serviceId: string;
            sessionType: string;
            policyFailures: { policyId: string; checks: { postureCheckType: string }[] }[];
          }[];
        }
      ).data;
      assert.equal(failure!.serviceId, granted.serviceId);
      assert.equal(failure!.sessionType, 'Dial');
      assert.deepEqual(failure!.policyFailures[0]!.checks.map((c) => c.postureCheckType).sort(), ['MAC', 'OS']);

      await report(token, goodDevice());
      const session = await createSession(t, token, granted.serviceId, 'Dial');
      const detail = await t.call({ method: 'GET', url: `${management}/sessions/${session.id}`, token: admin });
      assert.deepEqual(
        (detail.body as { data: { servicePolicies: { id: string }[] } }).data.servicePolicies.map((p) => p.id),
        [granted.policies.Dial],
      );
    });

    it('passes when any one policy of the type passes', async () => {
      const { user, token, granted } = await device();
      await createEntity(t, admin, 'service-policies', {
        name: 'no-checks',
        type: 'Dial',
        semantic: 'AnyOf',
        identityRoles: [`@${user.id}`],
        serviceRoles: [`@${granted.serviceId}`],
      });
      await createSession(t, token, granted.serviceId, 'Dial');
    });

    it('refuses an MFA-checked service: MFA cannot pass on this controller yet', async () => {
      const { token, granted } = await device(['#mfa']);
      assertError(await requestSession(t, token, granted.serviceId), 409, 'INVALID_POSTURE');
    });
  });

  describe('keeping sessions and service lists in line with posture', () => {
    it('a response that changes an outcome moves lastChangeAt and drops sessions that stop passing', async () => {
      const { token, granted } = await device();
      await report(token, goodDevice());
      const session = await createSession(t, token, granted.serviceId);
      t.clock.advance(1000);
      const unchanged = await lastChangeAt(token);
      await report(token, goodDevice());
      await post(token, { id: 'elsewhere', typeId: 'DOMAIN', domain: 'no-check-reads-this' });
      assert.equal(await lastChangeAt(token), unchanged, 'responses that change no outcome leave it alone');
      assert.equal(await exists(session.id), true);

      t.clock.advance(1000);
      await report(token, { id: os, typeId: 'OS', type: 'Windows', version: '10.0.0' });
      assert.equal(await lastChangeAt(token), t.clock().toISOString());
      assert.equal(await exists(session.id), false, 'the OS no longer passes');
    });

    it('a policy change that adds a failing check drops the session at the next sweep', async () => {
      const { token, granted } = await device([]);
      const session = await createSession(t, token, granted.serviceId);
      await t.call({
        method: 'PATCH',
        url: `${management}/service-policies/${granted.policies.Dial}`,
        token: admin,
        payload: { postureCheckRoles: ['#device'] },
      });
      assert.equal(await exists(session.id), true, 'not within the write');
      t.clock.advance(1000);
      const ended: ZitiEvent[] = [];
      const subscriber = t.events.dispatcher.subscribe([{ type: 'entityChange' }, { type: 'edge.sessions' }], {
        accept: (event) => ended.push(event),
      });
      await t.deps.posture.sweep();
      subscriber.unsubscribe();
      assert.equal(await exists(session.id), false);
      assert.equal(await lastChangeAt(token), t.clock().toISOString());
      // Recorded as upstream's session store records a delete: the entity change and the edge.sessions event.
      assert.deepEqual(
        ended.map((event) => [
          event.namespace,
          'eventType' in event ? event.eventType : 'event_type' in event ? event.event_type : '',
        ]),
        [
          ['entityChange', 'deleted'],
          ['edge.sessions', 'deleted'],
          ['entityChange', 'committed'],
        ],
      );
    });

    it('a posture check change that fails the reported data drops the session at the next sweep', async () => {
      const { token, granted } = await device();
      await report(token, goodDevice());
      const session = await createSession(t, token, granted.serviceId);
      const check = await createEntity(t, admin, 'posture-checks', {
        name: 'strict-domain',
        typeId: 'DOMAIN',
        roleAttributes: ['strict'],
        domains: ['corp.example'],
      });
      await report(token, { id: check, typeId: 'DOMAIN', domain: 'corp.example' });
      await t.call({
        method: 'PATCH',
        url: `${management}/service-policies/${granted.policies.Dial}`,
        token: admin,
        payload: { postureCheckRoles: ['#device', '#strict'] },
      });
      await t.deps.posture.sweep();
      assert.equal(await exists(session.id), true, 'still passing');
      await t.call({
        method: 'PATCH',
        url: `${management}/posture-checks/${check}`,
        token: admin,
        payload: { typeId: 'DOMAIN', domains: ['other.example'] },
      });
      await t.deps.posture.sweep();
      assert.equal(await exists(session.id), false);
    });

    it('after a restart (or on another instance), reported posture is still there: sessions that pass it stay', async () => {
      const withChecks = await device();
      await report(withChecks.token, goodDevice());
      const checked = await createSession(t, withChecks.token, withChecks.granted.serviceId);
      const plain = await device([]);
      const unchecked = await createSession(t, plain.token, plain.granted.serviceId);
      // A new monitor over the same database is what a restarted controller (or another instance) starts with:
      // reports are shared state in the database, unlike upstream's per-process cache.
      const restarted = new PostureMonitor({
        store: t.deps.store,
        clock: t.clock,
        onError: (error) => assert.fail(String(error)),
      });
      await restarted.start(3_600_000);
      await restarted.sweep();
      await restarted.stop();
      assert.equal(await exists(checked.id), true);
      assert.equal(await exists(unchecked.id), true);
      // And what the reports no longer pass still drops the session there.
      await report(withChecks.token, { id: os, typeId: 'OS', type: 'Windows', version: '10.0.0' });
      assert.equal(await exists(checked.id), false);
    });
  });

  describe('what is kept of reports', () => {
    it("drops an ended API session's endpoint state and a deleted identity's data", async () => {
      const { user, token } = await device();
      await report(token, { id: 'state', typeId: 'ENDPOINT_STATE', unlocked: true });
      await report(token, goodDevice());
      const apiSessionId = (
        (await t.call({ method: 'GET', url: `${client}/current-api-session`, token })).body as { data: { id: string } }
      ).data.id;
      await t.call({ method: 'DELETE', url: `${client}/current-api-session`, token });
      await t.deps.posture.prune();
      const data = await t.deps.store.read((db) => loadPosture(db, user.id));
      assert.equal(data?.endpointStates.has(apiSessionId), false, 'the API session ended');
      assert.equal(data?.os?.version, '6.1.0', 'identity-wide data stays');

      await t.call({ method: 'DELETE', url: `${management}/identities/${user.id}`, token: admin });
      const shown = await t.call({
        method: 'GET',
        url: `${management}/identities/${user.id}/posture-data`,
        token: admin,
      });
      assert.equal(
        (shown.body as { data: { os: { type: unknown } } }).data.os.type,
        null,
        'a deleted identity shows nothing',
      );
      await t.deps.posture.prune();
      assert.equal(await t.deps.store.read((db) => loadPosture(db, user.id)), undefined);
    });
  });

  describe('getIdentityPostureData and getIdentityFailedServiceRequests', () => {
    it('show what the identity reported, per API session for endpoint state', async () => {
      const { user, token } = await device();
      await report(token, goodDevice());
      await report(token, {
        id: 'p',
        typeId: 'PROCESS',
        path: '/bin/agent',
        isRunning: true,
        hash: 'AB:CD',
        signerFingerprints: ['EF'],
      });
      await report(token, { id: 'state', typeId: 'ENDPOINT_STATE', woken: true });
      const apiSessionId = (
        (await t.call({ method: 'GET', url: `${client}/current-api-session`, token })).body as { data: { id: string } }
      ).data.id;
      const result = await t.call({
        method: 'GET',
        url: `${management}/identities/${user.id}/posture-data`,
        token: admin,
      });
      assert.equal(result.status, 200, result.text);
      const data = (result.body as { data: Record<string, Record<string, unknown>> }).data;
      const at = t.clock().toISOString();
      assert.deepEqual(data.os, {
        lastUpdatedAt: at,
        postureCheckId: os,
        timedOut: false,
        build: '42',
        type: 'Linux',
        version: '6.1.0',
      });
      assert.deepEqual(data.mac, {
        lastUpdatedAt: at,
        postureCheckId: mac,
        timedOut: false,
        addresses: ['112233445566', 'aabbccddeeff'],
      });
      assert.deepEqual(data.domain, { lastUpdatedAt: null, postureCheckId: '', timedOut: false, domain: null });
      assert.deepEqual(data.processes, [
        {
          lastUpdatedAt: at,
          postureCheckId: 'p',
          timedOut: false,
          binaryHash: 'abcd',
          isRunning: true,
          signerFingerprints: ['ef'],
        },
      ]);
      // A stopped process without a hash shows neither (upstream's omitempty).
      await report(token, {
        id: 'p',
        typeId: 'PROCESS',
        path: '/bin/agent',
        isRunning: false,
        hash: '',
        signerFingerprints: [],
      });
      const stopped = (
        await t.call({ method: 'GET', url: `${management}/identities/${user.id}/posture-data`, token: admin })
      ).body as { data: { processes: unknown[] } };
      assert.deepEqual(stopped.data.processes, [
        { lastUpdatedAt: at, postureCheckId: 'p', timedOut: false, signerFingerprints: [] },
      ]);
      assert.deepEqual(data.apiSessionPostureData, {
        [apiSessionId]: {
          endpointState: { unlockedAt: null, wokenAt: at },
          mfa: { apiSessionId, passedAt: null, passedMfa: false, passedOnUnlock: null, passedOnWake: null },
        },
      });
    });

    it('answer an empty document for an identity without data or unknown, and refuse non-admins', async () => {
      const result = await t.call({
        method: 'GET',
        url: `${management}/identities/unknown/posture-data`,
        token: admin,
      });
      assert.equal(result.status, 200, result.text);
      assert.deepEqual(
        (result.body as { data: { apiSessionPostureData: unknown; processes: unknown } }).data.processes,
        [],
      );
      const failures: CallResult = await t.call({
        method: 'GET',
        url: `${management}/identities/unknown/failed-service-requests`,
        token: admin,
      });
      assert.deepEqual((failures.body as { data: unknown }).data, []);
      const { token, user } = await device();
      assertError(
        await t.call({ method: 'GET', url: `${management}/identities/${user.id}/posture-data`, token }),
        401,
        'UNAUTHORIZED',
      );
    });
  });
});
