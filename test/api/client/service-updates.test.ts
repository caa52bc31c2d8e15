import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../../support/test-app.js';
import { assertError } from '../../support/conformance.js';
import { createEdgeRouter, createEntity, createService, createUser, login, type UserFixture } from '../../support/factories.js';

const client = '/edge/client/v1';
const management = '/edge/management/v1';

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
    const result = await t.call({ method, url: `${management}/${path}`, token: admin, ...(payload !== undefined ? { payload } : {}) });
    assert.ok(result.status === 200 || result.status === 201, `${method} ${path}: ${result.status} ${result.text}`);
    return (result.body as { data: { id?: string } }).data.id;
  };
  const moved = async (what: string) => assert.equal(await lastChangeAt(), now, `${what} moves lastChangeAt`);
  const unmoved = async (what: string) => assert.notEqual(await lastChangeAt(), now, `${what} leaves lastChangeAt alone`);

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

  it('starts at the API session\'s creation, and answers 401 without a session', async () => {
    assert.equal(await lastChangeAt(), sessionCreatedAt);
    assertError(await t.call({ method: 'GET', url: `${client}/current-api-session/service-updates` }), 401, 'UNAUTHORIZED');
  });

  it('moves when a policy grants or removes access, and when a policy\'s type changes', async () => {
    const service = await createService(t, admin, { roleAttributes: ['updates-svc'] });
    const policy = await send('POST', 'service-policies', { name: 'updates-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#updates'], serviceRoles: ['#updates-svc'] });
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

  describe('with access to a service', () => {
    let service: string;
    let config: string;
    let configType: string;

    before(async () => {
      configType = await createEntity(t, admin, 'config-types', { name: 'updates-type' });
      config = await createEntity(t, admin, 'configs', { name: 'updates-config', configTypeId: configType, data: { v: 1 } });
      service = await createService(t, admin, { configs: [config] });
      await createEntity(t, admin, 'service-policies', { name: 'updates-access', type: 'Dial', semantic: 'AnyOf', identityRoles: [`@${user.id}`], serviceRoles: [`@${service}`], postureCheckRoles: ['#updates-pc'] });
    });

    it('moves when the service or a config attached to it changes', async () => {
      await send('PATCH', `services/${service}`, { name: 'updates-renamed' });
      await moved('renaming the service');
      await send('PATCH', `configs/${config}`, { data: { v: 2 } });
      await moved('changing an attached config');
    });

    it('moves when the identity\'s overrides change, and when an override\'s config changes', async () => {
      const override = await createEntity(t, admin, 'configs', { name: 'updates-override', configTypeId: configType, data: { o: 1 } });
      await send('POST', `identities/${user.id}/service-configs`, [{ serviceId: service, configId: override }]);
      await moved('assigning an override');
      await send('PATCH', `configs/${override}`, { data: { o: 2 } });
      await moved('changing an override\'s config');
      await send('DELETE', `identities/${user.id}/service-configs`, [{ serviceId: service, configId: override }]);
      await moved('removing an override');
    });

    it('moves when a posture check of a policy changes or joins one', async () => {
      const check = await send('POST', 'posture-checks', { name: 'updates-pc', typeId: 'DOMAIN', domains: ['example.com'], roleAttributes: ['updates-pc'] });
      await moved('a posture check joining a policy');
      await send('PATCH', `posture-checks/${check}`, { typeId: 'DOMAIN', domains: ['example.org'] });
      await moved('changing the posture check');
      await send('DELETE', `posture-checks/${check}`);
      await moved('deleting the posture check');
    });

    it('ignores changes that do not touch this identity\'s services', async () => {
      const stranger = await createUser(t, admin);
      const elsewhere = await createService(t, admin);
      await send('POST', 'service-policies', { name: 'updates-stranger', type: 'Dial', semantic: 'AnyOf', identityRoles: [`@${stranger.id}`], serviceRoles: [`@${elsewhere}`] });
      await unmoved('another identity\'s policy');
      await send('PATCH', `services/${elsewhere}`, { name: 'updates-elsewhere' });
      await unmoved('a service the identity cannot use');
      const router = await createEdgeRouter(t, admin);
      await send('POST', 'edge-router-policies', { name: 'updates-erp', semantic: 'AnyOf', identityRoles: [`@${user.id}`], edgeRouterRoles: [`@${router}`] });
      await unmoved('an edge router policy');
      await send('POST', 'service-edge-router-policies', { name: 'updates-serp', semantic: 'AnyOf', serviceRoles: [`@${service}`], edgeRouterRoles: [`@${router}`] });
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
