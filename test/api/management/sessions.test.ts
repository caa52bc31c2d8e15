import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../../support/test-app.js';
import { assertError } from '../../support/conformance.js';
import {
  createEdgeRouter,
  createEntity,
  createService,
  createUser,
  login,
  type UserFixture,
} from '../../support/factories.js';
import { createSession, grantService, openEdgeRouter, sessionIds, type SessionBody } from '../../support/sessions.js';
import { CLIENT as client, MANAGEMENT as management } from '../../support/api-paths.js';

describe('management sessions', () => {
  let t: TestApp;
  let admin: string;

  before(async () => {
    t = await buildTestApp();
    admin = await t.loginAsAdmin();
    await openEdgeRouter(t, admin);
  });
  after(() => t.close());

  const send = async (method: 'POST' | 'PATCH' | 'PUT' | 'DELETE', path: string, payload?: unknown) => {
    const result = await t.call({
      method,
      url: `${management}/${path}`,
      token: admin,
      ...(payload !== undefined ? { payload } : {}),
    });
    assert.ok(result.status === 200 || result.status === 201, `${method} ${path}: ${result.status} ${result.text}`);
    return result;
  };
  const exists = async (id: string) =>
    (await t.call({ method: 'GET', url: `${management}/sessions/${id}`, token: admin })).status === 200;

  interface Scenario {
    user: UserFixture;
    token: string;
    serviceId: string;
    policies: Partial<Record<'Dial' | 'Bind', string>>;
    dial: SessionBody;
  }

  /** A user with a Dial (and Bind) grant on a new service, logged in, holding a Dial session. */
  async function scenario(types: ('Dial' | 'Bind')[] = ['Dial']): Promise<Scenario> {
    const user = await createUser(t, admin, { roleAttributes: ['people'] });
    const { serviceId, policies } = await grantService(t, admin, user.id, types);
    const token = await login(t, user.username, user.password);
    return { user, token, serviceId, policies, dial: await createSession(t, token, serviceId, 'Dial') };
  }

  describe('listSessions, detailSession, deleteSession, detailSessionRoutePath', () => {
    let one: Scenario;
    let two: Scenario;

    before(async () => {
      one = await scenario(['Dial', 'Bind']);
      two = await scenario();
    });

    const filtered = (filter: string) => sessionIds(t, admin, 'management', `&filter=${encodeURIComponent(filter)}`);

    it('lists every session for an admin, with the filterable fields upstream names', async () => {
      const all = await sessionIds(t, admin, 'management');
      assert.ok(all.includes(one.dial.id) && all.includes(two.dial.id));
      const page = await t.call({ method: 'GET', url: `${management}/sessions`, token: admin });
      const fields = (page.body as { meta: { filterableFields: string[] } }).meta.filterableFields;
      for (const field of [
        'id',
        'createdAt',
        'updatedAt',
        'tags',
        'isSystem',
        'service',
        'token',
        'apiSession',
        'type',
      ])
        assert.ok(fields.includes(field), field);
    });

    it('filters on token, apiSession, service, identity, type and apiSession.identity', async () => {
      const bind = await createSession(t, one.token, one.serviceId, 'Bind');
      assert.deepEqual(await filtered(`token = "${one.dial.token}"`), [one.dial.id]);
      assert.deepEqual(await filtered(`apiSession = "${one.dial.apiSessionId}"`), [one.dial.id, bind.id].sort());
      assert.deepEqual(await filtered(`service = "${two.serviceId}"`), [two.dial.id]);
      assert.deepEqual(await filtered(`identity = "${one.user.id}" and type = "Bind"`), [bind.id]);
      assert.deepEqual(await filtered(`apiSession.identity = "${two.user.id}"`), [two.dial.id]);
      assertError(
        await t.call({
          method: 'GET',
          url: `${management}/sessions?filter=${encodeURIComponent('anyOf(servicePolicies) = "x"')}`,
          token: admin,
        }),
        400,
        'INVALID_FILTER',
      );
    });

    it('shows a session with its service policies: none while no posture check exists, as upstream evaluates none', async () => {
      const result = await t.call({ method: 'GET', url: `${management}/sessions/${one.dial.id}`, token: admin });
      assert.equal(result.status, 200, result.text);
      const data = (result.body as { data: SessionBody }).data;
      assert.deepEqual(data.servicePolicies, []);
      assertError(
        await t.call({ method: 'GET', url: `${management}/sessions/unknown`, token: admin }),
        404,
        'NOT_FOUND',
      );
    });

    it('answers an empty route path for a session without circuits and for an unknown id', async () => {
      for (const id of [one.dial.id, 'unknown']) {
        const result = await t.call({ method: 'GET', url: `${management}/sessions/${id}/route-path`, token: admin });
        assert.equal(result.status, 200, result.text);
        assert.deepEqual((result.body as { data: unknown }).data, { routePath: [] });
      }
    });

    it('deletes any session for an admin; 404 for an unknown one', async () => {
      const session = await createSession(t, two.token, two.serviceId, 'Dial');
      await send('DELETE', `sessions/${session.id}`);
      assert.equal(await exists(session.id), false);
      assertError(
        await t.call({ method: 'DELETE', url: `${management}/sessions/${session.id}`, token: admin }),
        404,
        'NOT_FOUND',
      );
    });

    it('is admin-only on the management API', async () => {
      assertError(
        await t.call({ method: 'GET', url: `${management}/sessions`, token: one.token }),
        401,
        'UNAUTHORIZED',
      );
      assertError(
        await t.call({ method: 'GET', url: `${management}/sessions/${one.dial.id}`, token: one.token }),
        401,
        'UNAUTHORIZED',
      );
    });

    it('gives a session at most 25 edge routers', async () => {
      const user = await createUser(t, admin, { roleAttributes: ['many-routers'] });
      for (let n = 0; n < 26; n++) await createEdgeRouter(t, admin, { roleAttributes: ['crowd'] });
      await createEntity(t, admin, 'edge-router-policies', {
        name: 'crowd-erp',
        semantic: 'AnyOf',
        identityRoles: ['#many-routers'],
        edgeRouterRoles: ['#crowd'],
      });
      await createEntity(t, admin, 'service-edge-router-policies', {
        name: 'crowd-serp',
        semantic: 'AnyOf',
        serviceRoles: ['#all'],
        edgeRouterRoles: ['#crowd'],
      });
      const { serviceId } = await grantService(t, admin, user.id, ['Dial']);
      const session = await createSession(t, await login(t, user.username, user.password), serviceId);
      assert.equal(session.edgeRouters.length, 25);
    });
  });

  describe('sessions go when their ground goes', () => {
    it('logout ends the API session and its sessions', async () => {
      const { token, dial } = await scenario();
      assert.equal((await t.call({ method: 'DELETE', url: `${client}/current-api-session`, token })).status, 200);
      assert.equal(await exists(dial.id), false);
    });

    it('an admin deleting the API session', async () => {
      const { dial } = await scenario();
      await send('DELETE', `api-sessions/${dial.apiSessionId}`);
      assert.equal(await exists(dial.id), false);
    });

    it('the API session expiring', async () => {
      const { dial } = await scenario();
      const active = await scenario();
      t.clock.advance(20 * 60_000);
      // Activity keeps the second one (and the admin's) alive.
      assert.equal(
        (await t.call({ method: 'GET', url: `${client}/current-identity`, token: active.token })).status,
        200,
      );
      assert.equal((await t.call({ method: 'GET', url: `${management}/current-identity`, token: admin })).status, 200);
      t.clock.advance(11 * 60_000);
      await t.deps.apiSessions.flush();
      assert.equal(await exists(dial.id), false);
      assert.equal(await exists(active.dial.id), true);
    });

    it('the identity being disabled or deleted', async () => {
      const disabled = await scenario();
      await send('POST', `identities/${disabled.user.id}/disable`, { durationMinutes: 0 });
      assert.equal(await exists(disabled.dial.id), false);
      const deleted = await scenario();
      await send('DELETE', `identities/${deleted.user.id}`);
      assert.equal(await exists(deleted.dial.id), false);
    });

    it('the service being deleted', async () => {
      const { serviceId, dial } = await scenario();
      await send('DELETE', `services/${serviceId}`);
      assert.equal(await exists(dial.id), false);
    });

    it('losing the permission of its type: the policy deleted, only that type goes', async () => {
      const { token, serviceId, policies, dial } = await scenario(['Dial', 'Bind']);
      const bind = await createSession(t, token, serviceId, 'Bind');
      await send('DELETE', `service-policies/${policies.Dial}`);
      assert.equal(await exists(dial.id), false);
      assert.equal(await exists(bind.id), true, 'Bind is still granted');
    });

    it('losing the permission through an identity attribute, a service attribute or the policy type', async () => {
      const byIdentity = await scenario();
      await send('PATCH', `service-policies/${byIdentity.policies.Dial}`, { identityRoles: ['#dialers'] });
      assert.equal(await exists(byIdentity.dial.id), false, 'the policy no longer selects the identity');

      const user = await createUser(t, admin, { roleAttributes: ['attribute-dialers'] });
      const service = await createService(t, admin, { roleAttributes: ['attribute-dialed'] });
      await createEntity(t, admin, 'service-policies', {
        name: 'by-attributes',
        type: 'Dial',
        semantic: 'AnyOf',
        identityRoles: ['#attribute-dialers'],
        serviceRoles: ['#attribute-dialed'],
      });
      const token = await login(t, user.username, user.password);
      const first = await createSession(t, token, service);
      await send('PATCH', `identities/${user.id}`, { roleAttributes: [] });
      assert.equal(await exists(first.id), false, 'the identity lost its attribute');
      await send('PATCH', `identities/${user.id}`, { roleAttributes: ['attribute-dialers'] });
      const second = await createSession(t, token, service);
      await send('PATCH', `services/${service}`, { roleAttributes: [] });
      assert.equal(await exists(second.id), false, 'the service lost its attribute');

      const retyped = await scenario();
      await send('PATCH', `service-policies/${retyped.policies.Dial}`, { type: 'Bind' });
      assert.equal(await exists(retyped.dial.id), false, 'the policy became a Bind policy');
    });

    it('stays while another policy still grants the permission, and for admins', async () => {
      const { user, serviceId, policies, dial } = await scenario();
      await createEntity(t, admin, 'service-policies', {
        name: 'second-grant',
        type: 'Dial',
        semantic: 'AnyOf',
        identityRoles: [`@${user.id}`],
        serviceRoles: [`@${serviceId}`],
      });
      await send('DELETE', `service-policies/${policies.Dial}`);
      assert.equal(await exists(dial.id), true);

      const adminIdentity = (
        (await t.call({ method: 'GET', url: `${management}/current-identity`, token: admin })).body as {
          data: { id: string };
        }
      ).data.id;
      const granted = await grantService(t, admin, adminIdentity, ['Dial']);
      const adminSession = await createSession(t, admin, granted.serviceId);
      await send('DELETE', `service-policies/${granted.policies.Dial}`);
      assert.equal(await exists(adminSession.id), true, 'upstream exempts admins');
    });

    it('stays when only edge router policies change', async () => {
      const { user, dial } = await scenario();
      await send('PATCH', `identities/${user.id}`, { roleAttributes: ['people', 'more'] });
      const erps = await t.call({ method: 'GET', url: `${management}/edge-router-policies?limit=-1`, token: admin });
      for (const policy of (erps.body as { data: { id: string; isSystem: boolean }[] }).data.filter(
        (p) => !p.isSystem,
      )) {
        await send('DELETE', `edge-router-policies/${policy.id}`);
      }
      assert.equal(await exists(dial.id), true);
    });
  });
});
