import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../../support/test-app.js';
import { assertError } from '../../support/conformance.js';

interface ListBody {
  data: { id: string; name: string; _links: unknown }[];
  meta: { pagination: { limit: number; offset: number; totalCount: number }; filterableFields: string[] };
}

describe('identity types', () => {
  let t: TestApp;
  let token: string;
  const list = async (query = '') => {
    const result = await t.call({ method: 'GET', url: `/edge/management/v1/identity-types${query}`, token });
    assert.equal(result.status, 200, result.text);
    return { ...result, list: result.body as ListBody };
  };
  before(async () => {
    t = await buildTestApp();
    token = await t.loginAsAdmin();
  });
  after(() => t.close());

  describe('listIdentityTypes', () => {
    it('lists the two built-in types in id order with pagination, filterable fields and links', async () => {
      const { list: body } = await list();
      assert.deepEqual(
        body.data.map((d) => d.id),
        ['Default', 'Router'],
      );
      assert.deepEqual(body.meta.pagination, { limit: 10, offset: 0, totalCount: 2 });
      assert.ok(body.meta.filterableFields.includes('name'));
      assert.deepEqual(body.data[0]!._links, { self: { href: './identity-types/Default' } });
    });

    it('filters, sorts and pages', async () => {
      assert.deepEqual(
        (await list('?filter=name%20%3D%20%22Router%22')).list.data.map((d) => d.name),
        ['Router'],
      );
      assert.deepEqual(
        (await list('?sort=name%20desc')).list.data.map((d) => d.name),
        ['Router', 'Default'],
      );
      const paged = (await list('?limit=1&offset=1')).list;
      assert.deepEqual(
        paged.data.map((d) => d.name),
        ['Router'],
      );
      assert.deepEqual(paged.meta.pagination, { limit: 1, offset: 1, totalCount: 2 });
      // A page that is not full, and one past the end: the count is exact either way.
      assert.deepEqual((await list('?limit=5&offset=1')).list.meta.pagination, { limit: 5, offset: 1, totalCount: 2 });
      const past = (await list('?limit=1&offset=5')).list;
      assert.deepEqual([past.data.length, past.meta.pagination], [0, { limit: 1, offset: 5, totalCount: 2 }]);
    });

    it('writes limit=-1 as the literal int64 maximum', async () => {
      const { text } = await list('?limit=-1');
      assert.match(text, /"limit":9223372036854775807/);
    });

    it('refuses a bad filter, an unknown field and a bad sort', async () => {
      const call = (query: string) =>
        t.call({ method: 'GET', url: `/edge/management/v1/identity-types${query}`, token });
      assertError(await call('?filter=name%20%3D'), 400, 'INVALID_FILTER');
      const unknown = await call('?filter=colour%20%3D%20%22red%22');
      assertError(unknown, 400, 'INVALID_FILTER');
      assert.match(unknown.text, /unknown symbol 'colour'/);
      assertError(await call('?sort=name%20sideways'), 400, 'INVALID_SORT_IDENTIFIER');
    });

    it('needs an admin session', async () => {
      assertError(await t.call({ method: 'GET', url: '/edge/management/v1/identity-types' }), 401, 'UNAUTHORIZED');
      const bogus = await t.call({
        method: 'GET',
        url: '/edge/management/v1/identity-types',
        token: '00000000-0000-4000-8000-000000000000',
      });
      assertError(bogus, 401, 'UNAUTHORIZED');
      assert.equal((bogus.body as { error: { cause?: unknown } }).error.cause, undefined);
    });
  });

  describe('detailIdentityType', () => {
    it('details one type', async () => {
      const result = await t.call({ method: 'GET', url: '/edge/management/v1/identity-types/Router', token });
      assert.equal(result.status, 200);
      const data = (result.body as { data: Record<string, unknown> }).data;
      assert.equal(data.name, 'Router');
      assert.deepEqual(data.tags, {});
      assert.match(data.createdAt as string, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    });

    it('answers 404 NOT_FOUND with upstream cause for an unknown id', async () => {
      const result = await t.call({ method: 'GET', url: '/edge/management/v1/identity-types/Robot', token });
      assertError(result, 404, 'NOT_FOUND');
      assert.deepEqual((result.body as { error: { cause: unknown } }).error.cause, {
        code: 'UNHANDLED',
        message: 'identityType with id Robot not found',
      });
    });
  });
});
