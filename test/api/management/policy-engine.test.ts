import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../../support/test-app.js';
import { createEdgeRouter, createEntity, createIdentity, createService } from '../../support/factories.js';
import { assertLinksConsistent } from '../../support/policy-oracle.js';
import { pairRows } from '../../../src/store/queries/pair-rows.js';
import { edgeRouterPolicyKind, servicePolicyKind } from '../../../src/store/queries/policy-tables.js';
import { MANAGEMENT as api } from '../../support/api-paths.js';

describe('the policy engine keeps links equal to a from-scratch evaluation', () => {
  let t: TestApp;
  let token: string;
  const check = (context: string) => assertLinksConsistent(t.deps.store, context);
  const patch = async (path: string, body: unknown) => {
    const result = await t.call({ method: 'PATCH', url: `${api}/${path}`, token, payload: body });
    assert.equal(result.status, 200, result.text);
  };
  const put = async (path: string, body: unknown) => {
    const result = await t.call({ method: 'PUT', url: `${api}/${path}`, token, payload: body });
    assert.equal(result.status, 200, result.text);
  };
  const remove = async (path: string) => {
    const result = await t.call({ method: 'DELETE', url: `${api}/${path}`, token });
    assert.equal(result.status, 200, result.text);
  };
  const dialServices = async (identityId: string) =>
    (await t.deps.store.read((db) => pairRows(servicePolicyKind).select(db, { identity_id: identityId })))
      .filter((r) => Number(r.dial) > 0)
      .map((r) => r.service_id as string)
      .sort();

  before(async () => {
    t = await buildTestApp();
    token = await t.loginAsAdmin();
  });
  after(() => t.close());

  it('AllOf needs every attribute, AnyOf one of them, @id always matches, an empty list matches nothing', async () => {
    const both = await createIdentity(t, token, { roleAttributes: ['a', 'b'] });
    const onlyA = await createIdentity(t, token, { roleAttributes: ['a'] });
    const byId = await createIdentity(t, token, { roleAttributes: [] });
    const svc = await createService(t, token, { roleAttributes: ['s'] });
    await createEntity(t, token, 'service-policies', {
      name: 'all-of',
      type: 'Dial',
      semantic: 'AllOf',
      identityRoles: ['#a', '#b', `@${byId}`],
      serviceRoles: ['#s'],
    });
    assert.deepEqual(await dialServices(both), [svc]);
    assert.deepEqual(await dialServices(onlyA), []);
    assert.deepEqual(await dialServices(byId), [svc]);
    const anyOf = await createEntity(t, token, 'service-policies', {
      name: 'any-of',
      type: 'Dial',
      semantic: 'AnyOf',
      identityRoles: ['#a', '#b'],
      serviceRoles: ['#s'],
    });
    assert.deepEqual(await dialServices(onlyA), [svc]);
    await createEntity(t, token, 'service-policies', {
      name: 'empty',
      type: 'Dial',
      semantic: 'AnyOf',
      identityRoles: [],
      serviceRoles: ['#s'],
    });
    await check('semantics');
    await remove(`service-policies/${anyOf}`);
    assert.deepEqual(await dialServices(onlyA), []);
    await check('after delete');
  });

  it('follows attribute changes both ways, on every participant', async () => {
    const identity = await createIdentity(t, token, { roleAttributes: ['x'] });
    const service = await createService(t, token, { roleAttributes: ['y'] });
    const router = await createEdgeRouter(t, token, { roleAttributes: ['r'] });
    const check1 = await createEntity(t, token, 'posture-checks', {
      name: 'pc-attr',
      typeId: 'DOMAIN',
      domains: ['example.com'],
      roleAttributes: ['p'],
    });
    await createEntity(t, token, 'service-policies', {
      name: 'attr-sp',
      type: 'Bind',
      semantic: 'AllOf',
      identityRoles: ['#x2'],
      serviceRoles: ['#y2'],
      postureCheckRoles: ['#p2'],
    });
    await createEntity(t, token, 'edge-router-policies', {
      name: 'attr-erp',
      semantic: 'AnyOf',
      identityRoles: ['#x2'],
      edgeRouterRoles: ['#r2'],
    });
    await createEntity(t, token, 'service-edge-router-policies', {
      name: 'attr-serp',
      semantic: 'AnyOf',
      serviceRoles: ['#y2'],
      edgeRouterRoles: ['#r2'],
    });
    await check('before');
    await patch(`identities/${identity}`, { roleAttributes: ['x', 'x2'] });
    await check('identity gains');
    await patch(`services/${service}`, { roleAttributes: ['y2'] });
    await check('service gains');
    await patch(`edge-routers/${router}`, { roleAttributes: ['r2'] });
    await check('router gains');
    await patch(`posture-checks/${check1}`, { typeId: 'DOMAIN', roleAttributes: ['p2'] });
    await check('posture check gains');
    await patch(`identities/${identity}`, { roleAttributes: [] });
    await check('identity loses');
    await put(`services/${service}`, { name: 'renamed-attr-service', encryptionRequired: true });
    await check('service loses through PUT');
  });

  it('follows role, semantic and type changes of policies', async () => {
    const i1 = await createIdentity(t, token, { roleAttributes: ['k1'] });
    await createIdentity(t, token, { roleAttributes: ['k1', 'k2'] });
    const s1 = await createService(t, token, { roleAttributes: ['m1'] });
    const policy = await createEntity(t, token, 'service-policies', {
      name: 'changing',
      type: 'Dial',
      semantic: 'AllOf',
      identityRoles: ['#k1', '#k2'],
      serviceRoles: ['#m1'],
    });
    await check('created');
    await patch(`service-policies/${policy}`, { semantic: 'AnyOf' });
    await check('semantic AllOf → AnyOf');
    await patch(`service-policies/${policy}`, { type: 'Bind' });
    await check('type Dial → Bind');
    assert.deepEqual(await dialServices(i1), []);
    await patch(`service-policies/${policy}`, { identityRoles: [`@${i1}`] });
    await check('identity roles replaced');
    await patch(`service-policies/${policy}`, { serviceRoles: ['#all'] });
    await check('#all services');
    await put(`service-policies/${policy}`, {
      name: 'changing',
      type: 'Dial',
      semantic: 'AnyOf',
      identityRoles: ['#k2'],
      serviceRoles: [`@${s1}`],
    });
    await check('PUT');
  });

  it('counts a pair once per joining policy and keeps it until the last one goes', async () => {
    const identity = await createIdentity(t, token, { roleAttributes: ['twice'] });
    const service = await createService(t, token, { roleAttributes: ['twice-svc'] });
    const a = await createEntity(t, token, 'service-policies', {
      name: 'twice-a',
      type: 'Dial',
      semantic: 'AnyOf',
      identityRoles: ['#twice'],
      serviceRoles: ['#twice-svc'],
    });
    await createEntity(t, token, 'service-policies', {
      name: 'twice-b',
      type: 'Dial',
      semantic: 'AnyOf',
      identityRoles: [`@${identity}`],
      serviceRoles: [`@${service}`],
    });
    const row = await t.deps.store.read(
      async (db) => (await pairRows(servicePolicyKind).select(db, { identity_id: identity }))[0],
    );
    assert.equal(row?.dial, 2);
    await remove(`service-policies/${a}`);
    assert.deepEqual(await dialServices(identity), [service]);
    await check('one of two removed');
  });

  it('picks new entities up through #all and drops deleted ones everywhere, stripping @id roles', async () => {
    await createEntity(t, token, 'service-policies', {
      name: 'everyone',
      type: 'Dial',
      semantic: 'AllOf',
      identityRoles: ['#all'],
      serviceRoles: ['#all'],
    });
    await createEntity(t, token, 'edge-router-policies', {
      name: 'everyone-er',
      semantic: 'AllOf',
      identityRoles: ['#all'],
      edgeRouterRoles: ['#all'],
    });
    await createEntity(t, token, 'service-edge-router-policies', {
      name: 'everyone-serp',
      semantic: 'AllOf',
      serviceRoles: ['#all'],
      edgeRouterRoles: ['#all'],
    });
    const identity = await createIdentity(t, token);
    const service = await createService(t, token);
    const router = await createEdgeRouter(t, token);
    await check('new entities');
    const named = await createEntity(t, token, 'service-policies', {
      name: 'names-them',
      type: 'Bind',
      semantic: 'AnyOf',
      identityRoles: [`@${identity}`],
      serviceRoles: [`@${service}`],
    });
    await createEntity(t, token, 'edge-router-policies', {
      name: 'names-router',
      semantic: 'AnyOf',
      identityRoles: [`@${identity}`],
      edgeRouterRoles: [`@${router}`],
    });
    await remove(`identities/${identity}`);
    await remove(`services/${service}`);
    await remove(`edge-routers/${router}`);
    await check('after deletes');
    const policy = await t.call({ method: 'GET', url: `${api}/service-policies/${named}`, token });
    const data = (policy.body as { data: { identityRoles: string[]; serviceRoles: string[] } }).data;
    assert.deepEqual(data.identityRoles, []);
    assert.deepEqual(data.serviceRoles, []);
  });

  it("links a tunneler-enabled router's identity through its system policy", async () => {
    const router = await createEdgeRouter(t, token, { isTunnelerEnabled: true, roleAttributes: ['tunnel'] });
    const linked = await t.deps.store.read(
      async (db) =>
        (await pairRows(edgeRouterPolicyKind).select(db, { identity_id: router, edge_router_id: router }))[0],
    );
    assert.ok(linked && Number(linked.count) >= 1);
    await check('tunneler on');
    await patch(`edge-routers/${router}`, { isTunnelerEnabled: false });
    await check('tunneler off');
  });

  it('stays consistent through a long deterministic sequence of random changes', async () => {
    let seed = 7;
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
    const attributes = ['a1', 'a2', 'a3', 'a4'];
    const pick = () => attributes.filter(() => random(2) === 0);
    const roles = () => {
      const r = random(10);
      return r === 0 ? ['#all'] : r === 1 ? [] : pick().map((a) => `#${a}`);
    };
    const identities = [],
      services = [],
      routers = [],
      policies: string[] = [];
    for (let i = 0; i < 6; i++) identities.push(await createIdentity(t, token, { roleAttributes: pick() }));
    for (let i = 0; i < 5; i++) services.push(await createService(t, token, { roleAttributes: pick() }));
    for (let i = 0; i < 4; i++) routers.push(await createEdgeRouter(t, token, { roleAttributes: pick() }));
    for (let step = 0; step < 60; step++) {
      const action = random(8);
      const semantic = random(2) === 0 ? 'AllOf' : 'AnyOf';
      if (action === 0 || policies.length < 3) {
        const kind = random(3);
        const body =
          kind === 0
            ? { type: random(2) === 0 ? 'Dial' : 'Bind', identityRoles: roles(), serviceRoles: roles() }
            : kind === 1
              ? { identityRoles: roles(), edgeRouterRoles: roles() }
              : { serviceRoles: roles(), edgeRouterRoles: roles() };
        const path = ['service-policies', 'edge-router-policies', 'service-edge-router-policies'][kind]!;
        policies.push(`${path}/${await createEntity(t, token, path, { name: `random-${step}`, semantic, ...body })}`);
      } else if (action === 1) {
        await patch(`identities/${identities[random(identities.length)]!}`, { roleAttributes: pick() });
      } else if (action === 2) {
        await patch(`services/${services[random(services.length)]!}`, { roleAttributes: pick() });
      } else if (action === 3) {
        await patch(`edge-routers/${routers[random(routers.length)]!}`, { roleAttributes: pick() });
      } else if (action === 4) {
        const policy = policies[random(policies.length)]!;
        const field = policy.startsWith('service-policies')
          ? random(2)
            ? 'identityRoles'
            : 'serviceRoles'
          : policy.startsWith('edge-router')
            ? 'edgeRouterRoles'
            : 'serviceRoles';
        await patch(policy, { [field]: roles(), semantic });
      } else if (action === 5) {
        const policy = policies.splice(random(policies.length), 1)[0]!;
        await remove(policy);
      } else if (action === 6) {
        const policy = policies.find((p) => p.startsWith('service-policies'));
        if (policy) await patch(policy, { type: random(2) === 0 ? 'Dial' : 'Bind' });
      } else {
        identities.push(await createIdentity(t, token, { roleAttributes: pick() }));
      }
      await check(`step ${step} (action ${action})`);
    }
  });
});
