import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../../support/test-app.js';
import { assertError } from '../../support/conformance.js';
import {
  createEdgeRouter,
  createEntity,
  createIdentity,
  createService,
  createTransitRouter,
  createUser,
  login,
} from '../../support/factories.js';
import { updateRows } from '../../../src/store/queries/table-rows.js';
import { MANAGEMENT as api } from '../../support/api-paths.js';

interface ListBody {
  data: { id: string; name: string }[];
  meta: { pagination: { limit: number; offset: number; totalCount: number }; filterableFields?: string[] };
}

/** Every sub-list this file covers, by the parent collection it hangs off. */
const SUB_LISTS: Record<string, string[]> = {
  identities: ['service-policies', 'edge-router-policies', 'services', 'edge-routers'],
  services: ['identities', 'edge-routers', 'service-policies', 'service-edge-router-policies'],
  'edge-routers': ['edge-router-policies', 'service-edge-router-policies', 'identities', 'services'],
  'service-policies': ['identities', 'services', 'posture-checks'],
  'edge-router-policies': ['edge-routers', 'identities'],
  'service-edge-router-policies': ['edge-routers', 'services'],
};

describe('policy and entity sub-lists, read from the link tables', () => {
  let t: TestApp;
  let token: string;
  const ids: Record<string, string> = {};

  const get = (path: string, callerToken = token) =>
    t.call({ method: 'GET', url: `${api}/${path}`, token: callerToken });
  /** The ids a sub-list answers, sorted, after checking it answered 200. */
  const listed = async (path: string): Promise<string[]> => {
    const result = await get(path);
    assert.equal(result.status, 200, `${path}: ${result.text}`);
    return (result.body as ListBody).data.map((entity) => entity.id).sort();
  };
  const sorted = (...names: string[]) => names.map((name) => ids[name]!).sort();
  const patch = async (path: string, body: unknown) => {
    const result = await t.call({ method: 'PATCH', url: `${api}/${path}`, token, payload: body });
    assert.equal(result.status, 200, result.text);
  };

  before(async () => {
    t = await buildTestApp();
    token = await t.loginAsAdmin();
    ids.i1 = await createIdentity(t, token, { name: 'pl-identity-1', roleAttributes: ['pl-a'] });
    ids.i2 = await createIdentity(t, token, { name: 'pl-identity-2', roleAttributes: ['pl-a', 'pl-b'] });
    ids.i3 = await createIdentity(t, token, { name: 'pl-identity-3', roleAttributes: [] });
    ids.s1 = await createService(t, token, { name: 'pl-service-1', roleAttributes: ['pl-s'] });
    ids.s2 = await createService(t, token, { name: 'pl-service-2', roleAttributes: ['pl-s'] });
    ids.r1 = await createEdgeRouter(t, token, { name: 'pl-router-1', roleAttributes: ['pl-r'] });
    ids.r2 = await createEdgeRouter(t, token, { name: 'pl-router-2', roleAttributes: [] });
    ids.pc = await createEntity(t, token, 'posture-checks', {
      name: 'pl-check',
      typeId: 'DOMAIN',
      domains: ['example.com'],
      roleAttributes: ['pl-p'],
    });
    ids.dial = await createEntity(t, token, 'service-policies', {
      name: 'pl-dial',
      type: 'Dial',
      semantic: 'AnyOf',
      identityRoles: ['#pl-a'],
      serviceRoles: [`@${ids.s1}`],
      postureCheckRoles: ['#pl-p'],
    });
    ids.bind = await createEntity(t, token, 'service-policies', {
      name: 'pl-bind',
      type: 'Bind',
      semantic: 'AnyOf',
      identityRoles: ['#pl-b'],
      serviceRoles: ['#pl-s'],
    });
    ids.erp = await createEntity(t, token, 'edge-router-policies', {
      name: 'pl-erp',
      semantic: 'AnyOf',
      identityRoles: ['#pl-a'],
      edgeRouterRoles: ['#pl-r'],
    });
    ids.serp = await createEntity(t, token, 'service-edge-router-policies', {
      name: 'pl-serp',
      semantic: 'AnyOf',
      serviceRoles: ['#pl-s'],
      edgeRouterRoles: ['#pl-r'],
    });
  });
  after(() => t.close());

  it("lists a service policy's identities, services and posture checks", async () => {
    assert.deepEqual(await listed(`service-policies/${ids.dial}/identities`), sorted('i1', 'i2'));
    assert.deepEqual(await listed(`service-policies/${ids.dial}/services`), sorted('s1'));
    assert.deepEqual(await listed(`service-policies/${ids.dial}/posture-checks`), sorted('pc'));
    assert.deepEqual(await listed(`service-policies/${ids.bind}/identities`), sorted('i2'));
    assert.deepEqual(await listed(`service-policies/${ids.bind}/services`), sorted('s1', 's2'));
    assert.deepEqual(await listed(`service-policies/${ids.bind}/posture-checks`), []);
  });

  it("lists an edge router policy's and a service edge router policy's members", async () => {
    assert.deepEqual(await listed(`edge-router-policies/${ids.erp}/identities`), sorted('i1', 'i2'));
    assert.deepEqual(await listed(`edge-router-policies/${ids.erp}/edge-routers`), sorted('r1'));
    assert.deepEqual(await listed(`service-edge-router-policies/${ids.serp}/services`), sorted('s1', 's2'));
    assert.deepEqual(await listed(`service-edge-router-policies/${ids.serp}/edge-routers`), sorted('r1'));
  });

  it("lists an identity's policies, services and edge routers, restricting services by policyType", async () => {
    assert.deepEqual(await listed(`identities/${ids.i1}/service-policies`), sorted('dial'));
    assert.deepEqual(await listed(`identities/${ids.i2}/service-policies`), sorted('dial', 'bind'));
    assert.deepEqual(await listed(`identities/${ids.i2}/edge-router-policies`), sorted('erp'));
    assert.deepEqual(await listed(`identities/${ids.i3}/edge-router-policies`), []);
    assert.deepEqual(await listed(`identities/${ids.i2}/services`), sorted('s1', 's2'));
    assert.deepEqual(await listed(`identities/${ids.i2}/services?policyType=dial`), sorted('s1'));
    assert.deepEqual(await listed(`identities/${ids.i2}/services?policyType=bind`), sorted('s1', 's2'));
    assert.deepEqual(await listed(`identities/${ids.i1}/services?policyType=bind`), []);
    assert.deepEqual(await listed(`identities/${ids.i1}/edge-routers`), sorted('r1'));
    assert.deepEqual(await listed(`identities/${ids.i3}/edge-routers`), []);
  });

  it('filters service policies by the identities and services they select (set symbols, as upstream)', async () => {
    const filtered = async (filter: string) => listed(`service-policies?limit=-1&filter=${encodeURIComponent(filter)}`);
    assert.deepEqual(await filtered(`anyOf(identities) = "${ids.i1}"`), sorted('dial'));
    assert.deepEqual(await filtered(`anyOf(identities) = "${ids.i2}"`), sorted('dial', 'bind'));
    assert.deepEqual(await filtered(`anyOf(services) = "${ids.s2}"`), sorted('bind'));
    assert.deepEqual(await filtered(`anyOf(services) = "${ids.s1}" and count(identities) = 1`), sorted('bind'));
    const misused = await get(`service-policies?filter=${encodeURIComponent('identities = "x"')}`);
    assertError(misused, 400, 'INVALID_FILTER');
    assert.match(misused.text, /symbol 'identities' is a set symbol but is used in non-set function context/);
  });

  it("shows services listed under another entity without the caller's permissions, as upstream's detail lister", async () => {
    for (const path of [
      `identities/${ids.i2}/services`,
      `service-policies/${ids.bind}/services`,
      `service-edge-router-policies/${ids.serp}/services`,
    ]) {
      const result = await get(path);
      for (const service of (result.body as { data: Array<{ permissions: unknown; postureQueries: unknown }> }).data) {
        assert.deepEqual(service.permissions, ['Invalid'], `${path}: the stand-in for upstream's nil list`);
        assert.deepEqual(service.postureQueries, [], `${path}: no placeholder query sets without permissions`);
      }
    }
    // Read directly, the service is the caller's view, placeholder included.
    const detail = (await get(`services/${ids.s1}`)).body as {
      data: { postureQueries: Array<{ policyType: string }> };
    };
    assert.deepEqual(
      detail.data.postureQueries.map((query) => query.policyType),
      ['Invalid'],
    );
  });

  it("lists a service's identities (by policyType), edge routers and policies", async () => {
    assert.deepEqual(await listed(`services/${ids.s1}/identities`), sorted('i1', 'i2'));
    assert.deepEqual(await listed(`services/${ids.s1}/identities?policyType=dial`), sorted('i1', 'i2'));
    assert.deepEqual(await listed(`services/${ids.s1}/identities?policyType=bind`), sorted('i2'));
    assert.deepEqual(await listed(`services/${ids.s2}/identities?policyType=dial`), []);
    assert.deepEqual(await listed(`services/${ids.s1}/edge-routers`), sorted('r1'));
    assert.deepEqual(await listed(`services/${ids.s1}/service-policies`), sorted('dial', 'bind'));
    assert.deepEqual(await listed(`services/${ids.s2}/service-policies`), sorted('bind'));
    assert.deepEqual(await listed(`services/${ids.s1}/service-edge-router-policies`), sorted('serp'));
  });

  it("lists an edge router's policies, identities and services", async () => {
    assert.deepEqual(await listed(`edge-routers/${ids.r1}/edge-router-policies`), sorted('erp'));
    assert.deepEqual(await listed(`edge-routers/${ids.r1}/service-edge-router-policies`), sorted('serp'));
    assert.deepEqual(await listed(`edge-routers/${ids.r1}/identities`), sorted('i1', 'i2'));
    assert.deepEqual(await listed(`edge-routers/${ids.r1}/services`), sorted('s1', 's2'));
    assert.deepEqual(await listed(`edge-routers/${ids.r2}/identities`), []);
  });

  it('answers each entity in its own detail shape', async () => {
    const policies = (await get(`identities/${ids.i2}/service-policies?sort=name`)).body as ListBody;
    const bind = policies.data.find((policy) => policy.id === ids.bind) as unknown as Record<string, unknown>;
    assert.equal(bind.type, 'Bind');
    assert.deepEqual(bind.identityRolesDisplay, [{ name: '#pl-b', role: '#pl-b' }]);
    const detail = await get(`service-policies/${ids.bind}`);
    assert.deepEqual(bind, (detail.body as { data: unknown }).data);
    const routers = (await get(`identities/${ids.i1}/edge-routers`)).body as ListBody;
    const router = await get(`edge-routers/${ids.r1}`);
    assert.deepEqual(routers.data[0], (router.body as { data: unknown }).data);
    assert.ok(routers.meta.filterableFields?.includes('isTunnelerEnabled'), "the listed entity's symbols");
  });

  it('filters, sorts and pages within a sub-list', async () => {
    const byName = await get(
      `edge-router-policies/${ids.erp}/identities?filter=${encodeURIComponent('name = "pl-identity-2"')}`,
    );
    assert.deepEqual(
      (byName.body as ListBody).data.map((i) => i.id),
      [ids.i2],
    );
    assert.equal((byName.body as ListBody).meta.pagination.totalCount, 1);
    const page = await get(`identities/${ids.i2}/services?sort=${encodeURIComponent('name desc')}&limit=1&offset=1`);
    const body = page.body as ListBody;
    assert.deepEqual(
      body.data.map((s) => s.name),
      ['pl-service-1'],
    );
    assert.deepEqual(body.meta.pagination, { limit: 1, offset: 1, totalCount: 2 });
    const typed = await get(
      `services/${ids.s1}/identities?policyType=bind&filter=${encodeURIComponent('name contains "identity"')}`,
    );
    assert.deepEqual(
      (typed.body as ListBody).data.map((i) => i.id),
      [ids.i2],
    );
    const all = await get(`service-policies/${ids.bind}/services?limit=-1`);
    assert.equal((all.body as ListBody).data.length, 2);
  });

  it('follows attribute and role changes', async () => {
    await patch(`identities/${ids.i3}`, { roleAttributes: ['pl-a'] });
    assert.deepEqual(await listed(`service-policies/${ids.dial}/identities`), sorted('i1', 'i2', 'i3'));
    assert.deepEqual(await listed(`identities/${ids.i3}/services?policyType=dial`), sorted('s1'));
    assert.deepEqual(await listed(`edge-routers/${ids.r1}/identities`), sorted('i1', 'i2', 'i3'));
    assert.deepEqual(await listed(`services/${ids.s1}/identities?policyType=dial`), sorted('i1', 'i2', 'i3'));

    await patch(`services/${ids.s2}`, { roleAttributes: [] });
    assert.deepEqual(await listed(`service-edge-router-policies/${ids.serp}/services`), sorted('s1'));
    assert.deepEqual(await listed(`edge-routers/${ids.r1}/services`), sorted('s1'));
    assert.deepEqual(await listed(`identities/${ids.i2}/services`), sorted('s1'));
    assert.deepEqual(await listed(`services/${ids.s2}/identities`), []);

    await patch(`edge-routers/${ids.r2}`, { roleAttributes: ['pl-r'] });
    assert.deepEqual(await listed(`identities/${ids.i1}/edge-routers`), sorted('r1', 'r2'));
    assert.deepEqual(await listed(`services/${ids.s1}/edge-routers`), sorted('r1', 'r2'));

    await patch(`service-policies/${ids.dial}`, { type: 'Bind' });
    assert.deepEqual(await listed(`identities/${ids.i1}/services?policyType=dial`), []);
    assert.deepEqual(await listed(`identities/${ids.i1}/services?policyType=bind`), sorted('s1'));
    await patch(`service-policies/${ids.dial}`, { type: 'Dial' });

    await patch(`identities/${ids.i3}`, { roleAttributes: [] });
    await patch(`services/${ids.s2}`, { roleAttributes: ['pl-s'] });
    await patch(`edge-routers/${ids.r2}`, { roleAttributes: [] });
    assert.deepEqual(await listed(`edge-routers/${ids.r1}/services`), sorted('s1', 's2'));
    assert.deepEqual(await listed(`identities/${ids.i3}/services`), []);
  });

  it('answers 404 for a parent that does not exist, and for a transit router as an edge router', async () => {
    for (const [parent, children] of Object.entries(SUB_LISTS)) {
      for (const child of children) assertError(await get(`${parent}/no-such-id/${child}`), 404, 'NOT_FOUND');
    }
    const transit = await createTransitRouter(t, token);
    for (const child of SUB_LISTS['edge-routers']!)
      assertError(await get(`edge-routers/${transit}/${child}`), 404, 'NOT_FOUND');
  });

  it("refuses a bad filter, sort or page, and a policyType outside the contract's enum", async () => {
    const parents: Record<string, string> = {
      identities: ids.i1!,
      services: ids.s1!,
      'edge-routers': ids.r1!,
      'service-policies': ids.dial!,
      'edge-router-policies': ids.erp!,
      'service-edge-router-policies': ids.serp!,
    };
    for (const [parent, children] of Object.entries(SUB_LISTS)) {
      for (const child of children) {
        assertError(
          await get(`${parent}/${parents[parent]!}/${child}?filter=${encodeURIComponent('name = ')}`),
          400,
          'INVALID_FILTER',
        );
        assertError(
          await get(`${parent}/${parents[parent]!}/${child}?filter=${encodeURIComponent('noSuchField = 1')}`),
          400,
          'INVALID_FILTER',
        );
      }
    }
    assertError(
      await get(`services/${ids.s1}/identities?sort=${encodeURIComponent('noSuchField')}`),
      400,
      'INVALID_SORT_IDENTIFIER',
    );
    // A posture check's role attributes are not a public symbol upstream, so they cannot be filtered here either.
    assertError(
      await get(
        `service-policies/${ids.dial}/posture-checks?filter=${encodeURIComponent('anyOf(roleAttributes) = "pl-p"')}`,
      ),
      400,
      'INVALID_FILTER',
    );
    assertError(await get(`identities/${ids.i1}/service-policies?offset=x`), 400, 'INVALID_PAGINATION');
    assertError(await get(`identities/${ids.i1}/services?policyType=both`), 400, 'COULD_NOT_VALIDATE', 'policyType');
    assertError(await get(`services/${ids.s1}/identities?policyType=DIAL`), 400, 'COULD_NOT_VALIDATE', 'policyType');
  });

  it('is admin-only', async () => {
    const user = await createUser(t, token);
    const ordinary = await login(t, user.username, user.password, 'management');
    for (const [parent, children] of Object.entries(SUB_LISTS)) {
      for (const child of children)
        assertError(await get(`${parent}/no-such-id/${child}`, ordinary), 401, 'UNAUTHORIZED');
    }
  });
});

describe('GET /current-identity/edge-routers (client)', () => {
  let t: TestApp;
  let token: string;
  let userToken: string;
  const routers: Record<string, string> = {};
  const client = (path: string, callerToken: string | undefined) =>
    t.call({ method: 'GET', url: `/edge/client/v1/${path}`, ...(callerToken ? { token: callerToken } : {}) });
  const listed = async (callerToken: string, query = '') => {
    const result = await client(`current-identity/edge-routers${query}`, callerToken);
    assert.equal(result.status, 200, result.text);
    return result.body as ListBody;
  };
  /** Edge router enrollment is not built yet, so the test marks routers verified as enrollment would. */
  const verify = (...names: string[]) =>
    t.deps.store.transaction((tx) =>
      updateRows(tx, 'routers', { is_verified: 1 }, { id: names.map((name) => routers[name]!) }),
    );

  before(async () => {
    t = await buildTestApp();
    token = await t.loginAsAdmin();
    const user = await createUser(t, token, { roleAttributes: ['ci-a'] });
    userToken = await login(t, user.username, user.password);
    routers.granted = await createEdgeRouter(t, token, { name: 'ci-granted', roleAttributes: ['ci-r'], cost: 7 });
    routers.other = await createEdgeRouter(t, token, { name: 'ci-other' });
    routers.unverified = await createEdgeRouter(t, token, { name: 'ci-unverified', roleAttributes: ['ci-r'] });
    await createEntity(t, token, 'edge-router-policies', {
      name: 'ci-erp',
      semantic: 'AnyOf',
      identityRoles: ['#ci-a'],
      edgeRouterRoles: ['#ci-r'],
    });
  });
  after(() => t.close());

  it('lists nothing while no granted router is verified', async () => {
    const body = await listed(userToken);
    assert.deepEqual(body.data, []);
    assert.deepEqual(body.meta.pagination, { limit: 10, offset: 0, totalCount: 0 });
  });

  it('lists the verified edge routers a policy grants the caller, in the client shape', async () => {
    await verify('granted', 'other');
    const body = await listed(userToken);
    assert.deepEqual(
      body.data.map((r) => r.id),
      [routers.granted],
    );
    const router = body.data[0] as unknown as Record<string, unknown>;
    assert.deepEqual(Object.keys(router).sort(), [
      '_links',
      'cost',
      'createdAt',
      'disabled',
      'hostname',
      'id',
      'isOnline',
      'name',
      'noTraversal',
      'supportedProtocols',
      'syncStatus',
      'tags',
      'updatedAt',
    ]);
    assert.equal(router.isOnline, false);
    assert.equal(router.cost, 7);
    assert.equal(router.disabled, false);
    assert.equal(router.name, 'ci-granted');
  });

  it('lists every verified edge router for an admin, as upstream does', async () => {
    const adminClient = await t.loginAsAdmin('client');
    const body = await listed(adminClient, '?sort=name');
    assert.deepEqual(
      body.data.map((r) => r.name),
      ['ci-granted', 'ci-other'],
    );
  });

  it("filters and pages, and follows the caller's attributes", async () => {
    const adminClient = await t.loginAsAdmin('client');
    const page = await listed(adminClient, `?sort=name&limit=1&offset=1`);
    assert.deepEqual(
      page.data.map((r) => r.name),
      ['ci-other'],
    );
    assert.deepEqual(page.meta.pagination, { limit: 1, offset: 1, totalCount: 2 });
    const filtered = await listed(adminClient, `?filter=${encodeURIComponent('name = "ci-granted"')}`);
    assert.deepEqual(
      filtered.data.map((r) => r.name),
      ['ci-granted'],
    );
    const me = (await client('current-identity', userToken)).body as { data: { id: string } };
    const result = await t.call({
      method: 'PATCH',
      url: `${api}/identities/${me.data.id}`,
      token,
      payload: { roleAttributes: [] },
    });
    assert.equal(result.status, 200, result.text);
    assert.deepEqual((await listed(userToken)).data, []);
  });

  it('refuses a bad filter and an anonymous caller', async () => {
    assertError(
      await client(`current-identity/edge-routers?filter=${encodeURIComponent('name =')}`, userToken),
      400,
      'INVALID_FILTER',
    );
    assertError(await client('current-identity/edge-routers', undefined), 401, 'UNAUTHORIZED');
  });
});
