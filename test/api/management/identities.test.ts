import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp, testTime } from '../../support/test-app.js';
import { assertError } from '../../support/conformance.js';
import { createIdentity, createUser, login } from '../../support/factories.js';

type Identity = Record<string, unknown> & { id: string; name: string };

describe('identities', () => {
  let t: TestApp;
  let token: string;
  const base = '/edge/management/v1/identities';
  const get = async (id: string) => {
    const result = await t.call({ method: 'GET', url: `${base}/${id}`, token });
    assert.equal(result.status, 200, result.text);
    return (result.body as { data: Identity }).data;
  };
  before(async () => {
    t = await buildTestApp();
    token = await t.loginAsAdmin();
  });
  after(() => t.close());

  describe('createIdentity', () => {
    it('creates with upstream defaults and maps User/Device/Service to type Default', async () => {
      for (const type of ['User', 'Device', 'Service', 'Default']) {
        const id = await createIdentity(t, token, { type, roleAttributes: ['b', 'a', 'b'], tags: { env: 'prod' } });
        const identity = await get(id);
        assert.equal(identity.typeId, 'Default');
        assert.deepEqual((identity.type as { id: string; entity: string }).entity, 'identity-types');
        assert.deepEqual(identity.roleAttributes, ['a', 'b']);
        assert.equal(identity.authPolicyId, 'default');
        assert.deepEqual(identity.authPolicy, {
          _links: { self: { href: './auth-policies/default' } },
          entity: 'auth-policies',
          id: 'default',
          name: 'Default',
        });
        assert.equal(identity.isDefaultAdmin, false);
        assert.equal(identity.disabled, false);
        assert.equal(identity.hasApiSession, false);
        assert.equal(identity.defaultHostingCost, 0);
        assert.equal(identity.defaultHostingPrecedence, 'default');
        assert.deepEqual(identity.tags, { env: 'prod' });
        assert.deepEqual(identity.authenticators, {});
        assert.equal(identity.createdAt, testTime());
      }
    });

    it('answers 201 with the id and a self link, using shortids', async () => {
      const result = await t.call({
        method: 'POST',
        url: base,
        token,
        payload: { name: 'link-check', type: 'Device', isAdmin: false },
      });
      assert.equal(result.status, 201);
      const data = (result.body as { data: { id: string; _links: unknown } }).data;
      assert.match(data.id, /^[0-9A-Za-z.-]{9,}$/);
      assert.deepEqual(data._links, { self: { href: `./identities/${data.id}` } });
    });

    it('refuses type Router, a duplicate or empty name, a missing required field and an unknown auth policy', async () => {
      const post = (payload: unknown) => t.call({ method: 'POST', url: base, token, payload });
      assertError(await post({ name: 'r', type: 'Router', isAdmin: false }), 400, 'COULD_NOT_VALIDATE', 'type');
      await createIdentity(t, token, { name: 'taken' });
      const duplicate = await post({ name: 'taken', type: 'User', isAdmin: false, enrollment: { ott: true } });
      assertError(duplicate, 400, 'COULD_NOT_VALIDATE', 'name');
      // Upstream creates identities with their enrollments past its name check: the store's index words it.
      const reason = (duplicate.body as { error: { cause: { reason: string } } }).error.cause.reason;
      assert.equal(reason, "duplicate value 'taken' in unique index on identities store");
      assertError(await post({ name: '', type: 'User', isAdmin: false }), 400, 'COULD_NOT_VALIDATE', 'name');
      assertError(await post({ name: 'no-admin-flag', type: 'User' }), 400, 'COULD_NOT_VALIDATE', 'isAdmin');
      assertError(await post({ name: 'bad-type', type: 'Robot', isAdmin: false }), 400, 'COULD_NOT_VALIDATE', 'type');
      assertError(
        await post({ name: 'bad-policy', type: 'User', isAdmin: false, authPolicyId: 'nope' }),
        400,
        'COULD_NOT_VALIDATE',
        'authPolicyId',
      );
      assertError(
        await post({ name: 'cost', type: 'User', isAdmin: false, defaultHostingCost: 70000 }),
        400,
        'COULD_NOT_VALIDATE',
        'defaultHostingCost',
      );
    });

    it('refuses a duplicate externalId with the unique-index cause', async () => {
      await createIdentity(t, token, { externalId: 'ext-1' });
      const result = await t.call({
        method: 'POST',
        url: base,
        token,
        payload: { name: 'ext-dup', type: 'User', isAdmin: false, externalId: 'ext-1' },
      });
      assertError(result, 400, 'COULD_NOT_VALIDATE', 'externalId');
    });
  });

  describe('updateIdentity and patchIdentity', () => {
    it('PUT rewrites every field, PATCH only those present', async () => {
      const id = await createIdentity(t, token, {
        roleAttributes: ['x'],
        tags: { a: '1' },
        externalId: 'put-ext',
        defaultHostingCost: 5,
      });
      t.clock.advance(1000);
      const put = await t.call({
        method: 'PUT',
        url: `${base}/${id}`,
        token,
        payload: { name: 'put-renamed', type: 'Device', isAdmin: true },
      });
      assert.equal(put.status, 200);
      assert.deepEqual(put.body, { data: {}, meta: { apiEnrollmentVersion: '0.0.1', apiVersion: '0.0.1' } });
      let identity = await get(id);
      assert.deepEqual(
        [
          identity.name,
          identity.isAdmin,
          identity.roleAttributes,
          identity.tags,
          identity.externalId,
          identity.defaultHostingCost,
        ],
        ['put-renamed', true, null, {}, null, 0],
      );
      assert.equal(identity.updatedAt, testTime(1000));

      const patch = await t.call({
        method: 'PATCH',
        url: `${base}/${id}`,
        token,
        payload: { roleAttributes: ['y'], name: null, tags: {} },
      });
      assert.equal(patch.status, 200);
      identity = await get(id);
      assert.deepEqual(
        [identity.name, identity.isAdmin, identity.roleAttributes, identity.tags],
        ['put-renamed', true, ['y'], {}],
      );
    });

    it('refuses renaming to a taken name on PUT and PATCH, and changes nothing', async () => {
      await createIdentity(t, token, { name: 'holder' });
      const id = await createIdentity(t, token, { name: 'mover' });
      assertError(
        await t.call({ method: 'PATCH', url: `${base}/${id}`, token, payload: { name: 'holder' } }),
        400,
        'COULD_NOT_VALIDATE',
        'name',
      );
      assertError(
        await t.call({
          method: 'PUT',
          url: `${base}/${id}`,
          token,
          payload: { name: 'holder', type: 'User', isAdmin: false },
        }),
        400,
        'COULD_NOT_VALIDATE',
        'name',
      );
      assert.equal((await get(id)).name, 'mover');
    });

    it('answers 404 for an unknown id', async () => {
      const result = await t.call({ method: 'PATCH', url: `${base}/missing`, token, payload: { name: 'x' } });
      assertError(result, 404, 'NOT_FOUND');
      assert.match(result.text, /identity with id missing not found/);
    });
  });

  describe('deleteIdentity', () => {
    it('deletes an identity with its authenticators and API sessions', async () => {
      const user = await createUser(t, token);
      const userToken = await login(t, user.username, user.password);
      assert.equal((await t.call({ method: 'DELETE', url: `${base}/${user.id}`, token })).status, 200);
      assertError(await t.call({ method: 'GET', url: `${base}/${user.id}`, token }), 404, 'NOT_FOUND');
      assertError(
        await t.call({ method: 'GET', url: '/edge/client/v1/current-identity', token: userToken }),
        401,
        'UNAUTHORIZED',
      );
      assertError(
        await t.call({ method: 'GET', url: `/edge/management/v1/authenticators/${user.authenticatorId}`, token }),
        404,
        'NOT_FOUND',
      );
    });

    it('refuses to delete the default admin', async () => {
      const admins = await t.call({ method: 'GET', url: `${base}?filter=isDefaultAdmin`, token });
      const adminId = (admins.body as { data: Identity[] }).data[0]!.id;
      assertError(
        await t.call({ method: 'DELETE', url: `${base}/${adminId}`, token }),
        400,
        'ENTITY_CAN_NOT_BE_DELETED',
      );
    });
  });

  describe('listIdentities', () => {
    it('counts a role-attribute filter exactly: each identity once, however many of its attributes match', async () => {
      for (const [name, roleAttributes] of [
        ['count-a', ['count-x', 'count-y']],
        ['count-b', ['count-x']],
        ['count-c', ['count-z']],
      ] as const) {
        await createIdentity(t, token, { name, roleAttributes: [...roleAttributes] });
      }
      const page = async (filter: string) => {
        const result = await t.call({
          method: 'GET',
          url: `${base}?limit=1&filter=${encodeURIComponent(filter)}`,
          token,
        });
        assert.equal(result.status, 200, result.text);
        const body = result.body as { data: Identity[]; meta: { pagination: { totalCount: number } } };
        return { names: body.data.map((i) => i.name), totalCount: body.meta.pagination.totalCount };
      };
      assert.deepEqual(await page('anyOf(roleAttributes) in ["count-x", "count-y"] sort by name'), {
        names: ['count-a'],
        totalCount: 2,
      });
      assert.deepEqual(await page('anyOf(roleAttributes) = "count-z"'), { names: ['count-c'], totalCount: 1 });
      assert.deepEqual(await page('anyOf(roleAttributes) contains "count-" sort by name desc'), {
        names: ['count-c'],
        totalCount: 3,
      });
      assert.deepEqual(await page('anyOf(roleAttributes) = "count-none"'), { names: [], totalCount: 0 });
    });

    it('pages a role-attribute filter in id order, as the same filter with another test does', async () => {
      for (let n = 0; n < 7; n++)
        await createIdentity(t, token, {
          name: `paged-${n}`,
          roleAttributes: n % 3 === 0 ? ['paged-other'] : ['paged-x', 'paged-y'],
        });
      const ids = async (filter: string, limit: number, offset: number) => {
        const result = await t.call({
          method: 'GET',
          url: `${base}?limit=${limit}&offset=${offset}&filter=${encodeURIComponent(filter)}`,
          token,
        });
        assert.equal(result.status, 200, result.text);
        const body = result.body as { data: Identity[]; meta: { pagination: { totalCount: number } } };
        return { ids: body.data.map((i) => i.id), totalCount: body.meta.pagination.totalCount };
      };
      // `=` reads the page from the set's index; `in` with one value takes the general query: both must agree.
      for (const [limit, offset] of [
        [2, 0],
        [2, 2],
        [3, 3],
        [10, 0],
        [2, 4],
        [2, 9],
      ] as const) {
        const fromIndex = await ids('anyOf(roleAttributes) = "paged-x"', limit, offset);
        assert.deepEqual(
          fromIndex,
          await ids('anyOf(roleAttributes) in ["paged-x"]', limit, offset),
          `limit ${limit} offset ${offset}`,
        );
        assert.equal(fromIndex.totalCount, 4);
      }
      const all = (await ids('anyOf(roleAttributes) = "paged-y"', 10, 0)).ids;
      assert.deepEqual(all, [...all].sort());
    });

    it('filters by name, role attributes, type and flags, with filterable fields', async () => {
      await createIdentity(t, token, { name: 'filter-a', roleAttributes: ['sales', 'eu'] });
      await createIdentity(t, token, { name: 'filter-b', roleAttributes: ['eng'] });
      const list = async (filter: string) => {
        const result = await t.call({ method: 'GET', url: `${base}?filter=${encodeURIComponent(filter)}`, token });
        assert.equal(result.status, 200, result.text);
        return result.body as {
          data: Identity[];
          meta: { filterableFields: string[]; pagination: { totalCount: number } };
        };
      };
      assert.deepEqual(
        (await list('name = "filter-a"')).data.map((i) => i.name),
        ['filter-a'],
      );
      assert.deepEqual(
        (await list('anyOf(roleAttributes) in ["eng", "sales"] sort by name')).data.map((i) => i.name),
        ['filter-a', 'filter-b'],
      );
      assert.deepEqual(
        (await list('name contains "filter-" and anyOf(roleAttributes) = "eu"')).data.map((i) => i.name),
        ['filter-a'],
      );
      assert.ok((await list('type = "Default"')).meta.pagination.totalCount >= 2);
      assert.equal((await list('isDefaultAdmin = true')).data.length, 1);
      const fields = (await list('true')).meta.filterableFields;
      for (const field of [
        'id',
        'name',
        'roleAttributes',
        'type',
        'isAdmin',
        'isDefaultAdmin',
        'externalId',
        'authPolicyId',
        'tags',
        'createdAt',
      ]) {
        assert.ok(fields.includes(field), field);
      }
      assertError(
        await t.call({ method: 'GET', url: `${base}?filter=${encodeURIComponent('roleAttributes = "x"')}`, token }),
        400,
        'INVALID_FILTER',
      );
    });
  });

  describe('disableIdentity and enableIdentity', () => {
    it('disables for a while, ending API sessions and refusing logins, then enables', async () => {
      const user = await createUser(t, token);
      const userToken = await login(t, user.username, user.password);
      const disable = await t.call({
        method: 'POST',
        url: `${base}/${user.id}/disable`,
        token,
        payload: { durationMinutes: 10 },
      });
      assert.equal(disable.status, 200);
      let identity = await get(user.id);
      assert.equal(identity.disabled, true);
      assert.equal(identity.disabledAt, t.clock().toISOString());
      assert.equal(identity.disabledUntil, new Date(t.clock().getTime() + 10 * 60_000).toISOString());
      assert.ok(identity.disabledUntil);
      assertError(
        await t.call({ method: 'GET', url: '/edge/client/v1/current-identity', token: userToken }),
        401,
        'UNAUTHORIZED',
      );
      const refused = await t.call({
        method: 'POST',
        url: '/edge/client/v1/authenticate?method=password',
        payload: { username: user.username, password: user.password },
      });
      assertError(refused, 401, 'INVALID_AUTH');

      t.clock.advance(11 * 60_000);
      token = await t.loginAsAdmin();
      assert.equal((await get(user.id)).disabled, false, 'the disable lapses');
      await login(t, user.username, user.password);

      await t.call({ method: 'POST', url: `${base}/${user.id}/disable`, token, payload: { durationMinutes: 0 } });
      t.clock.advance(365 * 24 * 60 * 60_000);
      token = await t.loginAsAdmin(); // a year idle ends the admin's session too
      assert.equal((await get(user.id)).disabled, true, 'zero minutes means until enabled');
      assert.equal((await t.call({ method: 'POST', url: `${base}/${user.id}/enable`, token })).status, 200);
      identity = await get(user.id);
      // Upstream leaves both out while the identity is enabled.
      assert.deepEqual(
        [identity.disabled, 'disabledAt' in identity, 'disabledUntil' in identity],
        [false, false, false],
      );
      await login(t, user.username, user.password);
    });

    it('a list shows a timed disable lapse with no write in between (such pages are not kept)', async () => {
      const id = await createIdentity(t, token);
      assert.equal(
        (await t.call({ method: 'POST', url: `${base}/${id}/disable`, token, payload: { durationMinutes: 1 } })).status,
        200,
      );
      const listed = async () =>
        (await t.call({ method: 'GET', url: `${base}?filter=${encodeURIComponent(`id = "${id}"`)}`, token })).body as {
          data: { disabled: boolean }[];
        };
      assert.equal((await listed()).data[0]!.disabled, true);
      assert.equal((await listed()).data[0]!.disabled, true);
      t.clock.advance(61_000);
      assert.equal((await listed()).data[0]!.disabled, false);
    });

    it('refuses a missing or negative duration, and unknown ids', async () => {
      const id = await createIdentity(t, token);
      assertError(
        await t.call({ method: 'POST', url: `${base}/${id}/disable`, token, payload: {} }),
        400,
        'COULD_NOT_VALIDATE',
        'durationMinutes',
      );
      assertError(
        await t.call({ method: 'POST', url: `${base}/${id}/disable`, token, payload: { durationMinutes: -1 } }),
        400,
        'COULD_NOT_VALIDATE',
        'durationMinutes',
      );
      assertError(
        await t.call({ method: 'POST', url: `${base}/nope/disable`, token, payload: { durationMinutes: 1 } }),
        404,
        'NOT_FOUND',
      );
      assertError(await t.call({ method: 'POST', url: `${base}/nope/enable`, token }), 404, 'NOT_FOUND');
    });
  });

  describe('sub-lists and role attributes', () => {
    it("lists an identity's authenticators and (empty) enrollments; 404 for a missing identity", async () => {
      const user = await createUser(t, token);
      const auths = await t.call({ method: 'GET', url: `${base}/${user.id}/authenticators`, token });
      assert.deepEqual(
        (auths.body as { data: { id: string }[] }).data.map((a) => a.id),
        [user.authenticatorId],
      );
      const enrollments = await t.call({ method: 'GET', url: `${base}/${user.id}/enrollments`, token });
      assert.deepEqual((enrollments.body as { data: unknown[] }).data, []);
      assertError(await t.call({ method: 'GET', url: `${base}/nope/authenticators`, token }), 404, 'NOT_FOUND');
      assertError(await t.call({ method: 'GET', url: `${base}/nope/enrollments`, token }), 404, 'NOT_FOUND');
    });

    it('reports the updb authenticator and an API session on the identity', async () => {
      const user = await createUser(t, token);
      assert.equal((await get(user.id)).hasApiSession, false);
      await login(t, user.username, user.password);
      const identity = await get(user.id);
      assert.equal(identity.hasApiSession, true);
      assert.deepEqual(identity.authenticators, { updb: { id: user.authenticatorId, username: user.username } });
    });

    it('lists distinct role attributes, sorted, with an id filter', async () => {
      await createIdentity(t, token, { roleAttributes: ['zeta', 'alpha'] });
      await createIdentity(t, token, { roleAttributes: ['alpha', 'mid'] });
      const all = await t.call({ method: 'GET', url: '/edge/management/v1/identity-role-attributes', token });
      const values = (all.body as { data: string[] }).data;
      assert.deepEqual(values, [...new Set(values)].sort());
      assert.ok(['alpha', 'mid', 'zeta'].every((v) => values.includes(v)));
      assert.match(all.text, /"limit":9223372036854775807/);
      const filtered = await t.call({
        method: 'GET',
        url: `/edge/management/v1/identity-role-attributes?filter=${encodeURIComponent('id contains "ph"')}`,
        token,
      });
      assert.deepEqual((filtered.body as { data: string[] }).data, ['alpha']);
    });

    it('refuses role attributes that look like roles (# or @) on create, PUT and PATCH, naming the first', async () => {
      const refused = (result: Awaited<ReturnType<TestApp['call']>>, value: string) => {
        assertError(result, 400, 'COULD_NOT_VALIDATE', 'roleAttributes');
        const cause = (result.body as { error: { cause: { reason: string; value: string } } }).error.cause;
        assert.deepEqual([cause.reason, cause.value], [`role attributes may not be prefixed with ${value[0]}`, value]);
      };
      refused(
        await t.call({
          method: 'POST',
          url: base,
          token,
          payload: { name: 'hash-attr', type: 'User', isAdmin: false, roleAttributes: ['ok', '#bad'] },
        }),
        '#bad',
      );
      const id = await createIdentity(t, token, { roleAttributes: ['kept'] });
      refused(
        await t.call({
          method: 'PUT',
          url: `${base}/${id}`,
          token,
          payload: { name: 'at-attr', type: 'User', isAdmin: false, roleAttributes: ['@bad', '#worse'] },
        }),
        '@bad',
      );
      refused(
        await t.call({ method: 'PATCH', url: `${base}/${id}`, token, payload: { roleAttributes: ['#bad'] } }),
        '#bad',
      );
      assert.deepEqual((await get(id)).roleAttributes, ['kept']);
      assertError(
        await t.call({ method: 'PATCH', url: `${base}/nope`, token, payload: { roleAttributes: ['#bad'] } }),
        404,
        'NOT_FOUND',
      );
    });
  });

  describe('getCurrentIdentity', () => {
    it('shows the caller its own identity on both APIs, and stores its envInfo and sdkInfo', async () => {
      const user = await createUser(t, token, { name: 'me-myself' });
      const login = await t.call({
        method: 'POST',
        url: '/edge/client/v1/authenticate?method=password',
        payload: {
          username: user.username,
          password: user.password,
          envInfo: { os: 'linux', arch: 'x86_64' },
          sdkInfo: { type: 'ziti-sdk-c', version: '1.0.12' },
        },
      });
      const userToken = (login.body as { data: { token: string } }).data.token;
      for (const api of ['client', 'management']) {
        const me = await t.call({ method: 'GET', url: `/edge/${api}/v1/current-identity`, token: userToken });
        const data = (me.body as { data: Identity }).data;
        assert.equal(data.name, 'me-myself');
        assert.deepEqual(data.envInfo, { os: 'linux', arch: 'x86_64' });
        assert.deepEqual(data.sdkInfo, { type: 'ziti-sdk-c', version: '1.0.12' });
      }
      assertError(await t.call({ method: 'GET', url: '/edge/client/v1/current-identity' }), 401, 'UNAUTHORIZED');
    });

    it('writes the identity again only when a login brings other envInfo or sdkInfo, as upstream', async () => {
      const user = await createUser(t, token, { name: 'same-sdk' });
      const loginWith = (sdkVersion: string) =>
        t.call({
          method: 'POST',
          url: '/edge/client/v1/authenticate?method=password',
          payload: { username: user.username, password: user.password, sdkInfo: { type: 'go', version: sdkVersion } },
        });
      const updatedAt = async () =>
        (
          (await t.call({ method: 'GET', url: `${base}/${user.id}`, token })).body as {
            data: { updatedAt: string; sdkInfo: unknown };
          }
        ).data;
      await loginWith('1.0');
      const first = await updatedAt();
      t.clock.advance(1000);
      await loginWith('1.0');
      assert.equal((await updatedAt()).updatedAt, first.updatedAt, 'the same information changes nothing');
      t.clock.advance(1000);
      await loginWith('1.1');
      const changed = await updatedAt();
      assert.notEqual(changed.updatedAt, first.updatedAt);
      assert.deepEqual(changed.sdkInfo, { type: 'go', version: '1.1' });
    });
  });

  it('is admin-only on the management API', async () => {
    const user = await createUser(t, token);
    const userToken = await login(t, user.username, user.password, 'management');
    assertError(await t.call({ method: 'GET', url: base, token: userToken }), 401, 'UNAUTHORIZED');
    assertError(
      await t.call({
        method: 'POST',
        url: base,
        token: userToken,
        payload: { name: 'x', type: 'User', isAdmin: true },
      }),
      401,
      'UNAUTHORIZED',
    );
  });
});
