import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../../support/test-app.js';
import { assertError } from '../../support/conformance.js';
import {
  createEdgeRouter,
  createEntity,
  createService,
  createTerminator,
  createUser,
  type UserFixture,
} from '../../support/factories.js';
import { CLIENT as client, MANAGEMENT as management } from '../../support/api-paths.js';

interface ServiceView {
  id: string;
  name: string;
  permissions: string[];
  config: Record<string, unknown>;
  configs: string[];
  postureQueries: {
    policyId: string;
    policyType: string;
    isPassing: boolean;
    postureQueries: Record<string, unknown>[];
  }[];
}

interface Page {
  data: ServiceView[];
  meta: { pagination: { limit: number; offset: number; totalCount: number }; filterableFields: string[] };
}

async function loginWith(t: TestApp, user: UserFixture, configTypes?: string[]): Promise<string> {
  const payload = { username: user.username, password: user.password, ...(configTypes ? { configTypes } : {}) };
  const result = await t.call({ method: 'POST', url: `${client}/authenticate?method=password`, payload });
  assert.equal(result.status, 200, result.text);
  return (result.body as { data: { token: string } }).data.token;
}

const policy = (
  t: TestApp,
  admin: string,
  type: 'Dial' | 'Bind',
  identityId: string,
  serviceRoles: string[],
  extra: Record<string, unknown> = {},
) =>
  createEntity(t, admin, 'service-policies', {
    name: `sp-${Math.random().toString(36).slice(2)}`,
    type,
    semantic: 'AnyOf',
    identityRoles: [`@${identityId}`],
    serviceRoles,
    ...extra,
  });

describe('client services', () => {
  let t: TestApp;
  let admin: string;
  let user: UserFixture;
  let token: string;
  let dialOnly: string;
  let both: string;
  let hidden: string;

  const list = async (query = '', as = token) => {
    const result = await t.call({ method: 'GET', url: `${client}/services${query}`, token: as });
    assert.equal(result.status, 200, result.text);
    return result.body as Page;
  };
  const detail = (id: string, as = token) => t.call({ method: 'GET', url: `${client}/services/${id}`, token: as });

  before(async () => {
    t = await buildTestApp();
    admin = await t.loginAsAdmin();
    user = await createUser(t, admin);
    dialOnly = await createService(t, admin, { name: 'svc-dial-only' });
    both = await createService(t, admin, { name: 'svc-both', roleAttributes: ['both'] });
    hidden = await createService(t, admin, { name: 'svc-hidden' });
    await policy(t, admin, 'Dial', user.id, [`@${dialOnly}`, '#both']);
    await policy(t, admin, 'Bind', user.id, ['#both']);
    token = await loginWith(t, user);
  });
  after(() => t.close());

  describe('listServices', () => {
    it('lists only the services a policy grants, with Bind before Dial', async () => {
      const page = await list();
      assert.deepEqual(page.data.map((s) => s.name).sort(), ['svc-both', 'svc-dial-only']);
      assert.deepEqual(page.data.find((s) => s.id === both)?.permissions, ['Bind', 'Dial']);
      assert.deepEqual(page.data.find((s) => s.id === dialOnly)?.permissions, ['Dial']);
      assert.equal(page.meta.pagination.totalCount, 2);
      assert.ok(page.meta.filterableFields.includes('name'));
    });

    it('applies filter, limit and offset within the visible services only', async () => {
      const filtered = await list(`?filter=${encodeURIComponent('name contains "svc-"')}`);
      assert.equal(filtered.meta.pagination.totalCount, 2);
      const paged = await list(`?limit=1&offset=1&filter=${encodeURIComponent('true sort by name')}`);
      assert.deepEqual(
        paged.data.map((s) => s.name),
        ['svc-dial-only'],
      );
      assert.deepEqual(paged.meta.pagination, { limit: 1, offset: 1, totalCount: 2 });
      const none = await list(`?filter=${encodeURIComponent(`id = "${hidden}"`)}`);
      assert.equal(none.data.length, 0);
    });

    it('counts a full page and a page past the end among the visible services only', async () => {
      const full = await list('?limit=1');
      assert.deepEqual(
        full.data.map((s) => s.id),
        [[both, dialOnly].sort()[0]],
      );
      assert.deepEqual(full.meta.pagination, { limit: 1, offset: 0, totalCount: 2 });
      const past = await list('?limit=5&offset=7');
      assert.deepEqual(past.data, []);
      assert.deepEqual(past.meta.pagination, { limit: 5, offset: 7, totalCount: 2 });
      const bySet = await list(`?limit=1&filter=${encodeURIComponent('anyOf(roleAttributes) = "both"')}`);
      assert.deepEqual([bySet.data.map((s) => s.id), bySet.meta.pagination.totalCount], [[both], 1]);
    });

    it('shows every service to an admin, Invalid where no policy grants it', async () => {
      const adminClient = await t.loginAsAdmin('client');
      const page = await list('?limit=-1', adminClient);
      const view = page.data.find((s) => s.id === hidden);
      assert.deepEqual(view?.permissions, ['Invalid']);
      assert.deepEqual(view?.postureQueries, [
        {
          isPassing: true,
          policyId: 'dummy invalid policy: no posture checks defined',
          policyType: 'Invalid',
          postureQueries: [],
        },
      ]);
    });

    it('answers 400 for a bad filter and 401 without a session', async () => {
      assertError(
        await t.call({ method: 'GET', url: `${client}/services?filter=${encodeURIComponent('nope = 1')}`, token }),
        400,
        'INVALID_FILTER',
      );
      assertError(await t.call({ method: 'GET', url: `${client}/services` }), 401, 'UNAUTHORIZED');
    });

    it('follows policy changes at once', async () => {
      const other = await createUser(t, admin);
      const otherToken = await loginWith(t, other);
      assert.equal((await list('', otherToken)).data.length, 0);
      const granted = await policy(t, admin, 'Dial', other.id, [`@${hidden}`]);
      assert.deepEqual(
        (await list('', otherToken)).data.map((s) => s.id),
        [hidden],
      );
      await t.call({ method: 'DELETE', url: `${management}/service-policies/${granted}`, token: admin });
      assert.equal((await list('', otherToken)).data.length, 0);
    });
  });

  describe('detailService', () => {
    it('answers a granted service with its permissions and placeholder posture queries', async () => {
      const result = await detail(both);
      assert.equal(result.status, 200, result.text);
      const view = (result.body as { data: ServiceView }).data;
      assert.deepEqual(view.permissions, ['Bind', 'Dial']);
      assert.deepEqual(
        view.postureQueries.map((q) => [q.policyId, q.policyType, q.isPassing]),
        [
          ['dummy bind policy: no posture checks defined', 'Bind', true],
          ['dummy dial policy: no posture checks defined', 'Dial', true],
        ],
      );
      assert.deepEqual(view.config, {});
      assert.deepEqual(view.configs, []);
    });

    it("answers 404 for another identity's service and for one that does not exist", async () => {
      assertError(await detail(hidden), 404, 'NOT_FOUND');
      assertError(await detail('no-such-service'), 404, 'NOT_FOUND');
    });

    it('lets an admin read any service', async () => {
      const result = await detail(hidden, await t.loginAsAdmin('client'));
      assert.equal(result.status, 200, result.text);
      assert.deepEqual((result.body as { data: ServiceView }).data.permissions, ['Invalid']);
    });
  });

  describe('config expansion', () => {
    let typeA: string;
    let typeB: string;
    let service: string;
    let viewer: UserFixture;

    before(async () => {
      typeA = await createEntity(t, admin, 'config-types', { name: 'ct-a' });
      typeB = await createEntity(t, admin, 'config-types', { name: 'ct-b' });
      const configA = await createEntity(t, admin, 'configs', {
        name: 'cfg-a',
        configTypeId: typeA,
        data: { from: 'service', n: 1 },
      });
      const configB = await createEntity(t, admin, 'configs', {
        name: 'cfg-b',
        configTypeId: typeB,
        data: { b: true },
      });
      service = await createService(t, admin, { name: 'svc-configured', configs: [configA, configB] });
      viewer = await createUser(t, admin);
      await policy(t, admin, 'Dial', viewer.id, [`@${service}`]);
    });

    const configOf = async (configTypes: string[] | undefined, query = '') => {
      const session = await loginWith(t, viewer, configTypes);
      const page = await list(query, session);
      return page.data.find((s) => s.id === service)!.config;
    };

    it('keys configs by type name, for types named at login by name or by id', async () => {
      assert.deepEqual(await configOf(['ct-a']), { 'ct-a': { from: 'service', n: 1 } });
      assert.deepEqual(await configOf([typeB]), { 'ct-b': { b: true } });
      assert.deepEqual(await configOf(['ct-a', typeB]), { 'ct-a': { from: 'service', n: 1 }, 'ct-b': { b: true } });
    });

    it('expands every type for all, none without types, and ignores unknown names', async () => {
      assert.deepEqual(Object.keys(await configOf(['all'])), ['ct-a', 'ct-b']);
      assert.deepEqual(await configOf(undefined), {});
      assert.deepEqual(await configOf(['no-such-type', 'ct-b']), { 'ct-b': { b: true } });
    });

    it("stores the login's config types as ids", async () => {
      const result = await t.call({
        method: 'POST',
        url: `${client}/authenticate?method=password`,
        payload: { username: viewer.username, password: viewer.password, configTypes: ['ct-a', 'nope', typeB] },
      });
      assert.deepEqual((result.body as { data: { configTypes: string[] } }).data.configTypes, [typeA, typeB]);
    });

    it("lets the list request replace the session's types; the detail does not", async () => {
      assert.deepEqual(await configOf(['ct-a'], '?configTypes=ct-b'), { 'ct-b': { b: true } });
      assert.deepEqual(await configOf(['ct-a'], '?configTypes=ct-b&configTypes=ct-a'), {
        'ct-a': { from: 'service', n: 1 },
        'ct-b': { b: true },
      });
      assert.deepEqual(await configOf(['ct-a'], '?configTypes=unknown'), {});
      const session = await loginWith(t, viewer, ['ct-a']);
      const result = await t.call({
        method: 'GET',
        url: `${client}/services/${service}?configTypes=ct-b`,
        token: session,
      });
      assert.deepEqual((result.body as { data: ServiceView }).data.config, { 'ct-a': { from: 'service', n: 1 } });
    });

    it("prefers the identity's override to the service's own config of that type", async () => {
      const override = await createEntity(t, admin, 'configs', {
        name: 'cfg-a-override',
        configTypeId: typeA,
        data: { from: 'override' },
      });
      const typeC = await createEntity(t, admin, 'config-types', { name: 'ct-c' });
      const extra = await createEntity(t, admin, 'configs', {
        name: 'cfg-c-override',
        configTypeId: typeC,
        data: { c: 3 },
      });
      const assign = await t.call({
        method: 'POST',
        url: `${management}/identities/${viewer.id}/service-configs`,
        token: admin,
        payload: [
          { serviceId: service, configId: override },
          { serviceId: service, configId: extra },
        ],
      });
      assert.equal(assign.status, 200, assign.text);
      assert.deepEqual(await configOf(['all']), {
        'ct-a': { from: 'override' },
        'ct-b': { b: true },
        'ct-c': { c: 3 },
      });
      assert.deepEqual(await configOf(['ct-b']), { 'ct-b': { b: true } }, 'overrides of unwanted types stay out');
      // Another identity still sees the service's own config.
      const adminClient = await t.loginAsAdmin('client');
      const page = await list('?configTypes=all&limit=-1', adminClient);
      assert.deepEqual(page.data.find((s) => s.id === service)?.config, {
        'ct-a': { from: 'service', n: 1 },
        'ct-b': { b: true },
      });
    });
  });

  describe('listServiceTerminators', () => {
    let router: string;
    before(async () => {
      router = await createEdgeRouter(t, admin);
      await createTerminator(t, admin, both, router, { address: 'tcp:localhost:8080', identity: 'host-1' });
      await createTerminator(t, admin, hidden, router, { address: 'tcp:localhost:9090' });
    });

    it("lists a visible service's terminators in the client shape", async () => {
      const result = await t.call({ method: 'GET', url: `${client}/services/${both}/terminators`, token });
      assert.equal(result.status, 200, result.text);
      const body = result.body as { data: Record<string, unknown>[]; meta: { pagination: { totalCount: number } } };
      assert.equal(body.meta.pagination.totalCount, 1);
      const [terminator] = body.data;
      assert.deepEqual(Object.keys(terminator!).sort(), [
        '_links',
        'createdAt',
        'id',
        'identity',
        'routerId',
        'service',
        'serviceId',
        'tags',
        'updatedAt',
      ]);
      assert.equal(terminator!.serviceId, both);
      assert.equal(terminator!.routerId, router);
      assert.equal(terminator!.identity, 'host-1');
      assert.equal((terminator!.service as { name: string }).name, 'svc-both');
    });

    it('filters and pages them', async () => {
      const result = await t.call({
        method: 'GET',
        url: `${client}/services/${both}/terminators?filter=${encodeURIComponent('address = "nope"')}`,
        token,
      });
      assert.equal((result.body as { data: unknown[] }).data.length, 0);
      assertError(
        await t.call({
          method: 'GET',
          url: `${client}/services/${both}/terminators?filter=${encodeURIComponent('bogus = 1')}`,
          token,
        }),
        400,
        'INVALID_FILTER',
      );
    });

    it('answers 404 for a service the caller cannot see; admins see all', async () => {
      assertError(
        await t.call({ method: 'GET', url: `${client}/services/${hidden}/terminators`, token }),
        404,
        'NOT_FOUND',
      );
      assertError(
        await t.call({ method: 'GET', url: `${client}/services/missing/terminators`, token }),
        404,
        'NOT_FOUND',
      );
      const result = await t.call({
        method: 'GET',
        url: `${client}/services/${hidden}/terminators`,
        token: await t.loginAsAdmin('client'),
      });
      assert.equal((result.body as { data: unknown[] }).data.length, 1);
    });
  });
});

describe('client services: postureQueries', () => {
  let t: TestApp;
  let admin: string;
  let user: UserFixture;
  let token: string;
  let service: string;

  before(async () => {
    t = await buildTestApp();
    admin = await t.loginAsAdmin();
    user = await createUser(t, admin);
    service = await createService(t, admin, { name: 'svc-posture' });
    token = await loginWith(t, user);
  });
  after(() => t.close());

  const postureOf = async () => {
    const result = await t.call({ method: 'GET', url: `${client}/services/${service}`, token });
    assert.equal(result.status, 200, result.text);
    return (result.body as { data: ServiceView }).data.postureQueries;
  };

  it("answers one entry per policy linking identity and service once posture checks exist, with each policy's checks", async () => {
    const dial = await policy(t, admin, 'Dial', user.id, [`@${service}`], { postureCheckRoles: ['#device'] });
    // No posture check anywhere yet: placeholders per permission, as upstream.
    assert.deepEqual(
      (await postureOf()).map((q) => q.policyId),
      ['dummy dial policy: no posture checks defined'],
    );

    const process = await createEntity(t, admin, 'posture-checks', {
      name: 'pc-process',
      typeId: 'PROCESS',
      roleAttributes: ['device'],
      process: { osType: 'Linux', path: '/usr/bin/agent' },
    });
    const multi = await createEntity(t, admin, 'posture-checks', {
      name: 'pc-multi',
      typeId: 'PROCESS_MULTI',
      roleAttributes: ['device'],
      semantic: 'AllOf',
      processes: [{ osType: 'Windows', path: 'C:\\agent.exe' }],
    });
    const mfa = await createEntity(t, admin, 'posture-checks', {
      name: 'pc-mfa',
      typeId: 'MFA',
      roleAttributes: ['device'],
      timeoutSeconds: 600,
    });
    const mfaForever = await createEntity(t, admin, 'posture-checks', {
      name: 'pc-mfa-forever',
      typeId: 'MFA',
      roleAttributes: ['device'],
    });
    const bind = await policy(t, admin, 'Bind', user.id, [`@${service}`]);

    const entries = await postureOf();
    const expectedOrder = [dial, bind].sort();
    assert.deepEqual(
      entries.map((e) => e.policyId),
      expectedOrder,
    );
    const bindEntry = entries.find((e) => e.policyId === bind)!;
    assert.deepEqual(bindEntry, { isPassing: true, policyId: bind, policyType: 'Bind', postureQueries: [] });
    const dialEntry = entries.find((e) => e.policyId === dial)!;
    assert.equal(dialEntry.policyType, 'Dial');
    assert.equal(dialEntry.isPassing, false, 'no posture data has been reported');
    const byId = new Map(dialEntry.postureQueries.map((q) => [q.id as string, q]));
    assert.deepEqual([...byId.keys()], [process, multi, mfa, mfaForever].sort());
    const processQuery = byId.get(process)!;
    assert.deepEqual(
      {
        queryType: processQuery.queryType,
        process: processQuery.process,
        isPassing: processQuery.isPassing,
        timeout: processQuery.timeout,
        timeoutRemaining: processQuery.timeoutRemaining,
      },
      {
        queryType: 'PROCESS',
        process: { osType: 'Linux', path: '/usr/bin/agent' },
        isPassing: false,
        timeout: -1,
        timeoutRemaining: -1,
      },
    );
    assert.deepEqual(processQuery._links, { self: { href: `./posture-checks/${process}` } });
    assert.deepEqual(byId.get(multi)!.processes, [{ osType: 'Windows', path: 'C:\\agent.exe' }]);
    assert.deepEqual(
      [byId.get(mfa)!.timeout, byId.get(mfa)!.timeoutRemaining, byId.get(mfa)!.isPassing],
      [600, 0, false],
    );
    assert.deepEqual([byId.get(mfaForever)!.timeout, byId.get(mfaForever)!.timeoutRemaining], [-1, -1]);
  });

  it('keeps placeholders for a service no policy links to the caller, once checks exist', async () => {
    const other = await createService(t, admin, { name: 'svc-admin-only' });
    const adminClient = await t.loginAsAdmin('client');
    const result = await t.call({ method: 'GET', url: `${client}/services/${other}`, token: adminClient });
    assert.deepEqual(
      (result.body as { data: ServiceView }).data.postureQueries.map((q) => [q.policyId, q.policyType]),
      [['dummy invalid policy: no posture checks defined', 'Invalid']],
    );
  });
});
