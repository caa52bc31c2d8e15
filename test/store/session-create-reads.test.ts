// A session create reads everything its checks look at in one statement (src/store/queries/session-create.ts,
// issue 26.3): it must answer exactly what the separate reads it replaced answer, on either store (this file runs on
// SQLite in `npm test` and on PostgreSQL in `npm run test:postgres`), and the create answers the row as stored.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { formatTimestamp } from '../../src/lib/clock.js';
import { postureChecksOfPolicies, servicePoliciesLinking } from '../../src/store/queries/posture.js';
import { markRoutersConnected, routerPresence } from '../../src/store/queries/router-presence.js';
import { sessionCreateReads } from '../../src/store/queries/session-create.js';
import { servicePair, sharedEdgeRouterRows } from '../../src/store/queries/service-access.js';
import type { Db } from '../../src/store/store.js';
import { createEntity, createService, createUser, login } from '../support/factories.js';
import { createSession, grantService, openEdgeRouter, requestSession } from '../support/sessions.js';
import { buildTestApp, type TestApp } from '../support/test-app.js';

describe('what a session create reads, in one statement', () => {
  let t: TestApp;
  let userId: string;
  let token: string;
  let serviceId: string;
  let connected: string;

  before(async () => {
    t = await buildTestApp();
    const admin = await t.loginAsAdmin();
    // Three routers, the last one made connected: it is listed first, the others by id.
    await openEdgeRouter(t, admin);
    await openEdgeRouter(t, admin);
    connected = await openEdgeRouter(t, admin);
    // Held by this app's instance: a live one (on PostgreSQL, one whose liveness lock is held, migration 025).
    const at = formatTimestamp(t.clock());
    const instanceId = t.deps.instanceId;
    await t.deps.store.transaction((tx) =>
      markRoutersConnected(tx, [
        { routerId: connected, instanceId, connectedAt: at, versionInfo: '{"os":"linux"}', linkListeners: '[]' },
      ]),
    );
    const user = await createUser(t, admin);
    userId = user.id;
    ({ serviceId } = await grantService(t, admin, userId, ['Dial']));
    // A Bind policy behind two posture checks links the same identity and service: its checks are read too.
    for (const name of ['os-b', 'os-a'])
      await createEntity(t, admin, 'posture-checks', {
        name,
        typeId: 'OS',
        roleAttributes: ['checked'],
        operatingSystems: [{ type: 'Linux', versions: ['>=5.0.0'] }],
      });
    await createEntity(t, admin, 'service-policies', {
      name: 'bind-checked',
      type: 'Bind',
      semantic: 'AnyOf',
      identityRoles: [`@${userId}`],
      serviceRoles: [`@${serviceId}`],
      postureCheckRoles: ['#checked'],
    });
    token = await login(t, user.username, user.password);
  });
  after(() => t.close());

  /** What the separate queries answer, as the combined read shapes it. */
  async function separately(db: Db, apiSessionId: string, service: string) {
    const policies = await servicePoliciesLinking(db, userId, [service]);
    const rows = await sharedEdgeRouterRows(db, userId, service, 25);
    const presence = await routerPresence(
      db,
      rows.map((row) => row.id),
    );
    return {
      pair: await servicePair(db, userId, service),
      policies,
      checks: await postureChecksOfPolicies(
        db,
        policies.map((policy) => policy.policyId),
      ),
      routers: rows.map((router) => ({ router, presence: presence.get(router.id) })),
      apiSessionId,
    };
  }

  it('answers the reuse, the grant, the posture policies and checks and the shared routers as the separate reads', async () => {
    const created = await createSession(t, token, serviceId, 'Dial');
    const { apiSessionId } = created;
    const [reads, bindReads, expected] = await t.deps.store.read(async (db) => [
      await sessionCreateReads(db, userId, apiSessionId, serviceId, 'Dial', 25),
      await sessionCreateReads(db, userId, apiSessionId, serviceId, 'Bind', 25),
      await separately(db, apiSessionId, serviceId),
    ]);
    assert.equal(reads.reusable?.id, created.id);
    assert.equal(bindReads.reusable, undefined);
    assert.deepEqual(
      { dial: reads.service?.dial, bind: reads.service?.bind },
      { dial: expected.pair?.dial, bind: expected.pair?.bind },
    );
    assert.deepEqual(reads.policies, expected.policies);
    assert.equal(reads.policies.length, 2);
    assert.deepEqual(reads.checks, expected.checks);
    assert.deepEqual(reads.checks.map((check) => check.name).sort(), ['os-a', 'os-b']);
    assert.deepEqual(reads.routers, expected.routers);
    assert.equal(reads.routers.length, 3);
    assert.equal(reads.routers[0]?.router.id, connected);
    assert.equal(reads.routers[0]?.presence?.version_info, '{"os":"linux"}');
    assert.equal(reads.routers[1]?.presence, undefined);
    // At most the limit, connected first.
    const one = await t.deps.store.read((db) => sessionCreateReads(db, userId, apiSessionId, serviceId, 'Dial', 1));
    assert.deepEqual(
      one.routers.map((entry) => entry.router.id),
      [connected],
    );
  });

  it('tells a service that does not exist from one no policy grants', async () => {
    const admin = await t.loginAsAdmin();
    const ungranted = await createService(t, admin);
    const [missing, other] = await t.deps.store.read(async (db) => [
      await sessionCreateReads(db, userId, 'no-api-session', 'no-such-service', 'Dial', 25),
      await sessionCreateReads(db, userId, 'no-api-session', ungranted, 'Dial', 25),
    ]);
    assert.deepEqual(missing, { reusable: undefined, service: undefined, policies: [], checks: [], routers: [] });
    assert.equal(other.service?.dial, null);
    assert.equal(other.reusable, undefined);
    assert.deepEqual(other.policies, []);
  });

  it('answers a create with the session as stored', async () => {
    const admin = await t.loginAsAdmin();
    const { serviceId: another } = await grantService(t, admin, userId, ['Dial']);
    const create = await requestSession(t, token, another, 'Dial');
    assert.equal(create.status, 201, create.text);
    // Both are the API's envelope around a session's detail.
    const created = (create.body as { data: Record<string, unknown> }).data;
    const read = await t.call({ method: 'GET', url: `/edge/client/v1/sessions/${String(created.id)}`, token });
    assert.equal(read.status, 200, read.text);
    const stored = (read.body as { data: Record<string, unknown> }).data;
    for (const key of ['id', 'createdAt', 'updatedAt', 'tags', 'token', 'type', 'apiSessionId', 'identityId'])
      assert.deepEqual(created[key], stored[key], key);
  });
});
