import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
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
import { assertLinksConsistent } from '../../support/policy-oracle.js';
import { CLIENT as client, MANAGEMENT as management } from '../../support/api-paths.js';

describe('listServiceUpdates', () => {
  let t: TestApp;
  let admin: string;
  let user: UserFixture;
  let token: string;
  let sessionCreatedAt: string;
  /** When the last step ran: each step moves the clock a second first, so a touched list reads exactly this. */
  let now: string;

  const lastChangeAt = async (as = token) => {
    const result = await t.call({ method: 'GET', url: `${client}/current-api-session/service-updates`, token: as });
    assert.equal(result.status, 200, result.text);
    return (result.body as { data: { lastChangeAt: string } }).data.lastChangeAt;
  };
  const step = () => {
    t.clock.advance(1000);
    now = t.clock().toISOString();
  };
  const send = async (method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, payload?: unknown) => {
    step();
    const result = await t.call({
      method,
      url: `${management}/${path}`,
      token: admin,
      ...(payload !== undefined ? { payload } : {}),
    });
    assert.ok(result.status === 200 || result.status === 201, `${method} ${path}: ${result.status} ${result.text}`);
    return (result.body as { data: { id?: string } }).data.id;
  };
  const moved = async (what: string) => assert.equal(await lastChangeAt(), now, `${what} moves lastChangeAt`);
  const unmoved = async (what: string) =>
    assert.notEqual(await lastChangeAt(), now, `${what} leaves lastChangeAt alone`);

  before(async () => {
    t = await buildTestApp();
    admin = await t.loginAsAdmin();
    user = await createUser(t, admin, { roleAttributes: ['updates'] });
    t.clock.advance(60_000);
    token = await login(t, user.username, user.password);
    sessionCreatedAt = t.clock().toISOString();
  });
  after(() => t.close());
  beforeEach(() => step());

  it("starts at the API session's creation, and answers 401 without a session", async () => {
    assert.equal(await lastChangeAt(), sessionCreatedAt);
    assertError(
      await t.call({ method: 'GET', url: `${client}/current-api-session/service-updates` }),
      401,
      'UNAUTHORIZED',
    );
  });

  it("moves when a policy grants or removes access, and when a policy's type changes", async () => {
    const service = await createService(t, admin, { roleAttributes: ['updates-svc'] });
    const policy = await send('POST', 'service-policies', {
      name: 'updates-dial',
      type: 'Dial',
      semantic: 'AnyOf',
      identityRoles: ['#updates'],
      serviceRoles: ['#updates-svc'],
    });
    await moved('a granting policy');
    await send('PATCH', `service-policies/${policy}`, { type: 'Bind' });
    await moved('a policy type change');
    await send('PATCH', `identities/${user.id}`, { roleAttributes: [] });
    await moved('losing access through identity attributes');
    await send('PATCH', `identities/${user.id}`, { roleAttributes: ['updates'] });
    await moved('regaining access through identity attributes');
    const another = await createService(t, admin);
    await send('PATCH', `services/${another}`, { roleAttributes: ['updates-svc'] });
    await moved('a service gaining the attribute');
    await send('DELETE', `service-policies/${policy}`);
    await moved('deleting the policy');
    assert.ok(service);
  });

  // Upstream moves an identity's time on its service events: dial or bind access to a service gained or lost (a
  // pair count going 0 ↔ 1), or a service it may use updated (db/policy_common.go, edge_service_store.go).
  describe('only when the identity gains or loses a service', () => {
    let role: string;
    let counter = 0;
    const named = (what: string) => `only-${what}-${++counter}`;
    before(() => {
      role = named('role');
    });

    it('ignores a policy that selects the identity but no service, or a service role no service has', async () => {
      await send('POST', 'service-policies', {
        name: named('no-services'),
        type: 'Dial',
        semantic: 'AnyOf',
        identityRoles: [`@${user.id}`],
        serviceRoles: [],
      });
      await unmoved('a policy without services');
      const emptyRole = await send('POST', 'service-policies', {
        name: named('empty-role'),
        type: 'Bind',
        semantic: 'AnyOf',
        identityRoles: ['#updates'],
        serviceRoles: [`#${role}`],
      });
      await unmoved('a policy naming a service role no service has');
      await send('POST', 'services', {
        name: named('svc-without-role'),
        encryptionRequired: true,
        roleAttributes: ['not-the-role'],
      });
      await unmoved("a service without the policy's role");
      await send('PATCH', `identities/${user.id}`, { roleAttributes: ['updates', named('attr')] });
      await unmoved('an attribute change that grants nothing new');
      const check = await send('POST', 'posture-checks', {
        name: named('pc'),
        typeId: 'DOMAIN',
        domains: ['example.com'],
        roleAttributes: [role],
      });
      await send('PATCH', `service-policies/${emptyRole}`, { postureCheckRoles: [`#${role}`] });
      await unmoved('a posture check joining a policy without services');
      await send('PATCH', `posture-checks/${check}`, { typeId: 'DOMAIN', domains: ['example.org'] });
      await unmoved('changing a posture check of a policy without services');
      await send('POST', 'services', {
        name: named('svc-with-role'),
        encryptionRequired: true,
        roleAttributes: [role],
      });
      await moved("a service with the policy's role (bind gained)");
      await send('PATCH', `posture-checks/${check}`, { typeId: 'DOMAIN', domains: ['example.net'] });
      await moved('changing a posture check of a policy that grants a service');
      // The integrity scan's bound on the change time agrees: nothing to repair.
      await assertLinksConsistent(t.deps.store);
    });

    it('ignores a second grant of a permission the identity holds, but not a new permission', async () => {
      const service = await createService(t, admin);
      const first = await send('POST', 'service-policies', {
        name: named('first'),
        type: 'Dial',
        semantic: 'AnyOf',
        identityRoles: [`@${user.id}`],
        serviceRoles: [`@${service}`],
      });
      await moved('the first dial grant');
      const second = await send('POST', 'service-policies', {
        name: named('second'),
        type: 'Dial',
        semantic: 'AnyOf',
        identityRoles: ['#updates'],
        serviceRoles: [`@${service}`],
      });
      await unmoved('a second dial grant');
      const check = await send('POST', 'posture-checks', {
        name: named('pc'),
        typeId: 'DOMAIN',
        domains: ['example.com'],
        roleAttributes: [named('pc-role')],
      });
      await unmoved('a posture check no policy requires');
      await send('PATCH', `service-policies/${second}`, { postureCheckRoles: [`@${check}`] });
      await moved('the second grant requiring a posture check (a posture query the identity now answers)');
      await send('DELETE', `service-policies/${first}`);
      await unmoved('losing one of two dial grants');
      await send('POST', 'service-policies', {
        name: named('bind'),
        type: 'Bind',
        semantic: 'AnyOf',
        identityRoles: [`@${user.id}`],
        serviceRoles: [`@${service}`],
      });
      await moved('a bind grant beside the dial one');
      await send('PATCH', `service-policies/${second}`, { serviceRoles: [] });
      await moved('losing the last dial grant');
      await assertLinksConsistent(t.deps.store);
    });
  });

  describe('with access to a service', () => {
    let service: string;
    let config: string;
    let configType: string;

    before(async () => {
      configType = await createEntity(t, admin, 'config-types', { name: 'updates-type' });
      config = await createEntity(t, admin, 'configs', {
        name: 'updates-config',
        configTypeId: configType,
        data: { v: 1 },
      });
      service = await createService(t, admin, { configs: [config] });
      await createEntity(t, admin, 'service-policies', {
        name: 'updates-access',
        type: 'Dial',
        semantic: 'AnyOf',
        identityRoles: [`@${user.id}`],
        serviceRoles: [`@${service}`],
        postureCheckRoles: ['#updates-pc'],
      });
    });

    it('moves when the service or a config attached to it changes', async () => {
      await send('PATCH', `services/${service}`, { name: 'updates-renamed' });
      await moved('renaming the service');
      await send('PATCH', `configs/${config}`, { data: { v: 2 } });
      await moved('changing an attached config');
    });

    it("moves when the identity's overrides change, and when an override's config changes", async () => {
      const override = await createEntity(t, admin, 'configs', {
        name: 'updates-override',
        configTypeId: configType,
        data: { o: 1 },
      });
      await send('POST', `identities/${user.id}/service-configs`, [{ serviceId: service, configId: override }]);
      await moved('assigning an override');
      await send('PATCH', `configs/${override}`, { data: { o: 2 } });
      await moved("changing an override's config");
      await send('DELETE', `identities/${user.id}/service-configs`, [{ serviceId: service, configId: override }]);
      await moved('removing an override');
    });

    it('moves when a posture check of a policy changes or joins one', async () => {
      const check = await send('POST', 'posture-checks', {
        name: 'updates-pc',
        typeId: 'DOMAIN',
        domains: ['example.com'],
        roleAttributes: ['updates-pc'],
      });
      await moved('a posture check joining a policy');
      await send('PATCH', `posture-checks/${check}`, { typeId: 'DOMAIN', domains: ['example.org'] });
      await moved('changing the posture check');
      await send('DELETE', `posture-checks/${check}`);
      await moved('deleting the posture check');
    });

    it("ignores changes that do not touch this identity's services", async () => {
      const stranger = await createUser(t, admin);
      const elsewhere = await createService(t, admin);
      await send('POST', 'service-policies', {
        name: 'updates-stranger',
        type: 'Dial',
        semantic: 'AnyOf',
        identityRoles: [`@${stranger.id}`],
        serviceRoles: [`@${elsewhere}`],
      });
      await unmoved("another identity's policy");
      await send('PATCH', `services/${elsewhere}`, { name: 'updates-elsewhere' });
      await unmoved('a service the identity cannot use');
      const router = await createEdgeRouter(t, admin);
      await send('POST', 'edge-router-policies', {
        name: 'updates-erp',
        semantic: 'AnyOf',
        identityRoles: [`@${user.id}`],
        edgeRouterRoles: [`@${router}`],
      });
      await unmoved('an edge router policy');
      await send('POST', 'service-edge-router-policies', {
        name: 'updates-serp',
        semantic: 'AnyOf',
        serviceRoles: [`@${service}`],
        edgeRouterRoles: [`@${router}`],
      });
      await unmoved('a service edge router policy');
      const unrelatedType = await createEntity(t, admin, 'config-types', { name: 'updates-unrelated-type' });
      await send('POST', 'configs', { name: 'updates-unattached', configTypeId: unrelatedType, data: {} });
      await unmoved('a config nobody uses');
    });

    it('moves when the service is deleted', async () => {
      await send('DELETE', `services/${service}`);
      await moved('deleting the service');
    });
  });

  it('never answers a time before the session began', async () => {
    const fresh = await login(t, user.username, user.password);
    assert.equal(await lastChangeAt(fresh), t.clock().toISOString());
  });
});
