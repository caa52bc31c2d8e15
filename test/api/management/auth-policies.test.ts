import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_PASSWORD, ADMIN_USERNAME, buildTestApp, type TestApp, testTime } from '../../support/test-app.js';
import { assertError, type CallResult } from '../../support/conformance.js';
import { createEntity } from '../../support/factories.js';
import { deleteRows, insertRows, updateRows } from '../../../src/store/queries/table-rows.js';

const BASE = '/edge/management/v1/auth-policies';

interface Policy {
  id: string;
  name: string;
  createdAt: string;
  updatedAt: string;
  tags: Record<string, unknown>;
  _links: Record<string, { href: string }>;
  primary: {
    cert: { allowed: boolean; allowExpiredCerts: boolean };
    updb: {
      allowed: boolean;
      minPasswordLength: number;
      requireSpecialChar: boolean;
      requireNumberChar: boolean;
      requireMixedCase: boolean;
      maxAttempts: number;
      lockoutDurationMinutes: number;
    };
    extJwt: { allowed: boolean; allowedSigners: string[] };
  };
  /** Without a required signer upstream leaves `requireExtJwtSigner` out (omitempty). */
  secondary: { requireTotp: boolean; requireExtJwtSigner?: string };
}

interface ListBody {
  data: Policy[];
  meta: { pagination: { limit: number; offset: number; totalCount: number }; filterableFields: string[] };
}

/** A complete create/PUT body: the contract requires every inner field of `primary` and `secondary.requireTotp`. */
function fullBody(name: string) {
  return {
    name,
    primary: {
      cert: { allowed: false, allowExpiredCerts: false },
      updb: {
        allowed: true,
        minPasswordLength: 8,
        requireSpecialChar: true,
        requireNumberChar: false,
        requireMixedCase: true,
        maxAttempts: 3,
        lockoutDurationMinutes: 15,
      },
      extJwt: { allowed: false, allowedSigners: [] as string[] },
    },
    secondary: { requireTotp: true, requireExtJwtSigner: null as string | null },
    tags: { team: 'blue' },
  };
}

const causeOf = (result: CallResult) => (result.body as { error: { cause?: Record<string, unknown> } }).error.cause;
const EMPTY_OK = { data: {}, meta: { apiEnrollmentVersion: '0.0.1', apiVersion: '0.0.1' } };

describe('auth policies', () => {
  let t: TestApp;
  let token: string;

  const get = (id: string) => t.call({ method: 'GET', url: `${BASE}/${id}`, token });
  const detailOf = async (id: string) => {
    const result = await get(id);
    assert.equal(result.status, 200, result.text);
    return (result.body as { data: Policy }).data;
  };
  const list = async (query = '') => {
    const result = await t.call({ method: 'GET', url: `${BASE}${query}`, token });
    assert.equal(result.status, 200, result.text);
    return result.body as ListBody;
  };
  const create = (body: Record<string, unknown>) => createEntity(t, token, 'auth-policies', body);
  const write = (method: 'PUT' | 'PATCH', id: string, payload: unknown) =>
    t.call({ method, url: `${BASE}/${id}`, token, payload });
  /** Identity CRUD is built elsewhere; a bare identity row is enough to make a policy "in use". */
  const insertIdentityUsing = async (id: string, policyId: string) => {
    const now = testTime();
    await t.deps.store.transaction((tx) =>
      insertRows(tx, 'identities', [
        { id, created_at: now, updated_at: now, name: `user-${id}`, type_id: 'Default', auth_policy_id: policyId },
      ]),
    );
  };
  const deleteIdentity = (id: string) => t.deps.store.transaction((tx) => deleteRows(tx, 'identities', { id }));

  before(async () => {
    t = await buildTestApp();
    token = await t.loginAsAdmin();
  });
  after(() => t.close());

  describe('the default policy', () => {
    it('has upstream bootstrap values and no isSystem in the REST model', async () => {
      const policy = await detailOf('default');
      assert.deepEqual(policy, {
        _links: { self: { href: './auth-policies/default' } },
        createdAt: '2020-01-01T00:00:00.000Z',
        id: 'default',
        tags: {},
        updatedAt: '2020-01-01T00:00:00.000Z',
        name: 'Default',
        primary: {
          cert: { allowed: true, allowExpiredCerts: true },
          updb: {
            allowed: true,
            minPasswordLength: 5,
            requireSpecialChar: false,
            requireNumberChar: false,
            requireMixedCase: false,
            maxAttempts: 0,
            lockoutDurationMinutes: 0,
          },
          extJwt: { allowed: true, allowedSigners: [] },
        },
        secondary: { requireTotp: false },
      });
    });
  });

  describe('listAuthPolicies', () => {
    it('lists the default policy with pagination and the public symbols', async () => {
      const body = await list();
      assert.deepEqual(
        body.data.map((p) => p.id),
        ['default'],
      );
      assert.deepEqual(body.meta.pagination, { limit: 10, offset: 0, totalCount: 1 });
      assert.deepEqual([...body.meta.filterableFields].sort(), [
        'createdAt',
        'id',
        'isSystem',
        'name',
        'primary.cert.allowExpiredCerts',
        'primary.cert.allowed',
        'primary.extJwt.allowed',
        'primary.updb.allowed',
        'primary.updb.maxAttempts',
        'primary.updb.minPasswordLength',
        'primary.updb.requireMixedCase',
        'primary.updb.requireNumberChar',
        'primary.updb.requireSpecialChar',
        'secondary.requireExtJwtSigner',
        'secondary.requireTotp',
        'tags',
        'updatedAt',
      ]);
    });

    it('filters on dotted symbols', async () => {
      const strict = await create({
        ...fullBody('list-strict'),
        primary: { ...fullBody('').primary, updb: { ...fullBody('').primary.updb, maxAttempts: 5 } },
      });
      const filtered = async (filter: string) =>
        (await list(`?filter=${encodeURIComponent(filter)}`)).data.map((p) => p.name).sort();
      assert.deepEqual(await filtered('primary.updb.maxAttempts = 5'), ['list-strict']);
      assert.deepEqual(await filtered('primary.updb.maxAttempts = 0'), ['Default']);
      assert.deepEqual(await filtered('secondary.requireTotp = false'), ['Default']);
      assert.deepEqual(await filtered('secondary.requireTotp = true and primary.cert.allowed = false'), [
        'list-strict',
      ]);
      assert.deepEqual(await filtered('primary.updb.minPasswordLength >= 8'), ['list-strict']);
      assert.deepEqual(await filtered('secondary.requireExtJwtSigner = null'), ['Default', 'list-strict']);
      assert.deepEqual(await filtered('isSystem = true'), ['Default']);
      assert.deepEqual(await filtered('tags.team = "blue"'), ['list-strict']);
      assertError(
        await t.call({
          method: 'GET',
          url: `${BASE}?filter=${encodeURIComponent('primary.extJwt.allowedSigners = "x"')}`,
          token,
        }),
        400,
        'INVALID_FILTER',
      );
      assertError(
        await t.call({
          method: 'GET',
          url: `${BASE}?filter=${encodeURIComponent('primary.updb.lockoutDurationMinutes = 0')}`,
          token,
        }),
        400,
        'INVALID_FILTER',
      );
      assert.equal((await write('PUT', strict, fullBody('list-strict'))).status, 200);
      assert.equal((await t.call({ method: 'DELETE', url: `${BASE}/${strict}`, token })).status, 200);
    });
  });

  describe('createAuthPolicy and detailAuthPolicy', () => {
    it('creates a policy and details every field back', async () => {
      const result = await t.call({ method: 'POST', url: BASE, token, payload: fullBody('create-full') });
      assert.equal(result.status, 201, result.text);
      const { id, _links } = (result.body as { data: { id: string; _links: unknown } }).data;
      assert.deepEqual(_links, { self: { href: `./auth-policies/${id}` } });
      const policy = await detailOf(id);
      const { name, primary, tags } = fullBody('create-full');
      assert.deepEqual(
        { name: policy.name, primary: policy.primary, secondary: policy.secondary, tags: policy.tags },
        { name, primary, secondary: { requireTotp: true }, tags },
      );
      assert.equal(policy.createdAt, testTime());
      assert.deepEqual(policy._links, { self: { href: `./auth-policies/${id}` } });
    });

    it('applies the default for an absent requireExtJwtSigner and tags', async () => {
      const { tags: _tags, ...body } = fullBody('create-defaults');
      const id = await create({ ...body, secondary: { requireTotp: false } });
      const policy = await detailOf(id);
      assert.deepEqual(policy.secondary, { requireTotp: false });
      assert.deepEqual(policy.tags, {});
    });

    it('stores a password minimum below 5 as 5 and negative limits as 0', async () => {
      const body = fullBody('create-clamped');
      body.primary.updb = { ...body.primary.updb, minPasswordLength: 2, maxAttempts: -3, lockoutDurationMinutes: -1 };
      const policy = await detailOf(await create(body));
      assert.equal(policy.primary.updb.minPasswordLength, 5);
      assert.equal(policy.primary.updb.maxAttempts, 0);
      assert.equal(policy.primary.updb.lockoutDurationMinutes, 0);
    });

    it('refuses partial inner objects: the contract requires every inner field (go-openapi order)', async () => {
      const partial = { name: 'partial', primary: { cert: {}, updb: { maxAttempts: 2 }, extJwt: {} }, secondary: {} };
      const result = await t.call({ method: 'POST', url: BASE, token, payload: partial });
      assertError(result, 400, 'COULD_NOT_VALIDATE', 'primary.cert.allowExpiredCerts');
      assert.deepEqual(causeOf(result), {
        field: 'primary.cert.allowExpiredCerts',
        reason: 'primary.cert.allowExpiredCerts in body is required',
        value: '<nil>',
      });
    });

    it('refuses a missing primary, wrong types, an empty or duplicate name', async () => {
      const { primary: _primary, ...noPrimary } = fullBody('no-primary');
      assertError(
        await t.call({ method: 'POST', url: BASE, token, payload: noPrimary }),
        400,
        'COULD_NOT_VALIDATE',
        'primary',
      );
      const { secondary: _secondary, ...noSecondary } = fullBody('no-secondary');
      assertError(
        await t.call({ method: 'POST', url: BASE, token, payload: noSecondary }),
        400,
        'COULD_NOT_VALIDATE',
        'secondary',
      );

      // A mistyped value fails in Go's JSON decoder, before validation: COULD_NOT_PARSE_BODY naming the struct field.
      const wrongType = async (
        mutate: (body: { primary: Record<string, Record<string, unknown>> }) => void,
        message: string,
      ) => {
        const body = fullBody('wrong-type') as unknown as { primary: Record<string, Record<string, unknown>> };
        mutate(body);
        const result = await t.call({ method: 'POST', url: BASE, token, payload: body });
        assertError(result, 400, 'COULD_NOT_PARSE_BODY');
        assert.ok(String(causeOf(result)?.message).includes(message), result.text);
      };
      await wrongType(
        (b) => (b.primary.updb!.maxAttempts = 'three'),
        'cannot unmarshal string into Go struct field AuthPolicyCreate.primary.updb.maxAttempts of type int64',
      );
      await wrongType(
        (b) => (b.primary.cert!.allowed = 'yes'),
        'cannot unmarshal string into Go struct field AuthPolicyCreate.primary.cert.allowed of type bool',
      );
      await wrongType(
        (b) => (b.primary.extJwt!.allowedSigners = 'signer'),
        'AuthPolicyCreate.primary.extJwt.allowedSigners',
      );
      assert.equal((await list(`?filter=${encodeURIComponent('name = "wrong-type"')}`)).data.length, 0);

      const empty = await t.call({ method: 'POST', url: BASE, token, payload: fullBody('') });
      assertError(empty, 400, 'COULD_NOT_VALIDATE', 'name');
      assert.equal(causeOf(empty)?.reason, 'name is required');
      const duplicate = await t.call({ method: 'POST', url: BASE, token, payload: fullBody('Default') });
      assertError(duplicate, 400, 'COULD_NOT_VALIDATE', 'name');
      assert.deepEqual(causeOf(duplicate), { field: 'name', reason: 'name is must be unique', value: 'Default' });
    });

    it('refuses unknown external JWT signers with 404 and a field cause', async () => {
      const withSigners = fullBody('with-signers');
      withSigners.primary.extJwt.allowedSigners = ['nope-1', 'nope-2'];
      const allowed = await t.call({ method: 'POST', url: BASE, token, payload: withSigners });
      assertError(allowed, 404, 'NOT_FOUND', 'primary.extJwt.allowedSigners[0]');
      assert.deepEqual(causeOf(allowed), {
        field: 'primary.extJwt.allowedSigners[0]',
        reason: 'no externalJwtSigner found with the given id',
        value: 'nope-1',
      });

      const withRequired = fullBody('with-required');
      withRequired.secondary.requireExtJwtSigner = 'nope-3';
      const required = await t.call({ method: 'POST', url: BASE, token, payload: withRequired });
      assertError(required, 404, 'NOT_FOUND', 'secondary.requireExtJwtSigner');
      assert.equal(causeOf(required)?.value, 'nope-3');
      assert.equal((await list(`?filter=${encodeURIComponent('name contains "with-"')}`)).data.length, 0);
    });

    it('answers 404 NOT_FOUND with upstream cause for an unknown id', async () => {
      const result = await get('no-such-policy');
      assertError(result, 404, 'NOT_FOUND');
      assert.deepEqual(causeOf(result), { code: 'UNHANDLED', message: 'authPolicy with id no-such-policy not found' });
    });
  });

  describe('updateAuthPolicy (PUT)', () => {
    it('rewrites every field, absent optional ones to their defaults', async () => {
      const id = await create(fullBody('put-before'));
      t.clock.advance(1000);
      const replacement = {
        name: 'put-after',
        primary: {
          cert: { allowed: true, allowExpiredCerts: true },
          updb: {
            allowed: false,
            minPasswordLength: 12,
            requireSpecialChar: false,
            requireNumberChar: true,
            requireMixedCase: false,
            maxAttempts: 7,
            lockoutDurationMinutes: 60,
          },
          extJwt: { allowed: true, allowedSigners: [] },
        },
        secondary: { requireTotp: false },
      };
      const result = await write('PUT', id, replacement);
      assert.equal(result.status, 200, result.text);
      assert.deepEqual(result.body, EMPTY_OK);
      const policy = await detailOf(id);
      assert.deepEqual(
        { name: policy.name, primary: policy.primary, secondary: policy.secondary, tags: policy.tags },
        { ...replacement, secondary: { requireTotp: false }, tags: {} },
      );
      assert.equal(policy.updatedAt, testTime(1000));
      assert.equal(policy.createdAt, testTime());
    });

    it('clamps, refuses unknown signers and bad bodies, and answers 404 for an unknown id', async () => {
      const id = await create(fullBody('put-checks'));
      const clamped = fullBody('put-checks');
      clamped.primary.updb = {
        ...clamped.primary.updb,
        minPasswordLength: 0,
        maxAttempts: -1,
        lockoutDurationMinutes: -5,
      };
      assert.equal((await write('PUT', id, clamped)).status, 200);
      const updb = (await detailOf(id)).primary.updb;
      assert.deepEqual([updb.minPasswordLength, updb.maxAttempts, updb.lockoutDurationMinutes], [5, 0, 0]);

      const signer = fullBody('put-checks');
      signer.secondary.requireExtJwtSigner = 'nope';
      assertError(await write('PUT', id, signer), 404, 'NOT_FOUND', 'secondary.requireExtJwtSigner');
      assertError(await write('PUT', id, { name: 'put-checks' }), 400, 'COULD_NOT_VALIDATE', 'primary');
      assertError(await write('PUT', id, fullBody('Default')), 400, 'COULD_NOT_VALIDATE', 'name');

      const missing = await write('PUT', 'no-such-policy', fullBody('x'));
      assertError(missing, 404, 'NOT_FOUND');
      assert.deepEqual(causeOf(missing), { code: 'UNHANDLED', message: 'authPolicy with id no-such-policy not found' });
    });

    it('updates the default policy', async () => {
      const body = { ...fullBody('Default'), tags: {} };
      body.primary.updb = { ...body.primary.updb, maxAttempts: 4 };
      // The admin's own policy: requiring TOTP would make this very session partial at once.
      body.secondary = { ...body.secondary, requireTotp: false };
      assert.equal((await write('PUT', 'default', body)).status, 200);
      const policy = await detailOf('default');
      assert.equal(policy.name, 'Default');
      assert.equal(policy.primary.updb.maxAttempts, 4);
      const original = {
        name: 'Default',
        primary: {
          cert: { allowed: true, allowExpiredCerts: true },
          updb: {
            allowed: true,
            minPasswordLength: 5,
            requireSpecialChar: false,
            requireNumberChar: false,
            requireMixedCase: false,
            maxAttempts: 0,
            lockoutDurationMinutes: 0,
          },
          extJwt: { allowed: true, allowedSigners: [] },
        },
        secondary: { requireTotp: false, requireExtJwtSigner: null },
      };
      assert.equal((await write('PUT', 'default', original)).status, 200);
      const restored = await detailOf('default');
      assert.deepEqual(
        { name: restored.name, primary: restored.primary, secondary: restored.secondary },
        { ...original, secondary: { requireTotp: false } },
      );
      assert.equal((await list('?filter=isSystem%20%3D%20true')).data[0]?.id, 'default');
    });
  });

  describe('patchAuthPolicy', () => {
    it('changes only the nested key that is present', async () => {
      const body = fullBody('patch-nested');
      body.primary.updb = { ...body.primary.updb, maxAttempts: 7 };
      const id = await create(body);
      const before = await detailOf(id);
      const result = await write('PATCH', id, { primary: { updb: { maxAttempts: 3 } } });
      assert.equal(result.status, 200, result.text);
      assert.deepEqual(result.body, EMPTY_OK);
      const afterPatch = await detailOf(id);
      assert.deepEqual(
        { ...afterPatch, updatedAt: before.updatedAt },
        { ...before, primary: { ...before.primary, updb: { ...before.primary.updb, maxAttempts: 3 } } },
      );
    });

    it("maps every field to itself (not upstream's Q15 mix-up)", async () => {
      const id = await create(fullBody('patch-each'));
      const patchBody = {
        primary: {
          cert: { allowed: true, allowExpiredCerts: true },
          updb: {
            allowed: false,
            minPasswordLength: 9,
            requireSpecialChar: false,
            requireNumberChar: true,
            requireMixedCase: false,
            lockoutDurationMinutes: 30,
          },
          extJwt: { allowed: true },
        },
        secondary: { requireTotp: false },
      };
      assert.equal((await write('PATCH', id, patchBody)).status, 200);
      const policy = await detailOf(id);
      assert.deepEqual(policy.primary, {
        cert: { allowed: true, allowExpiredCerts: true },
        updb: {
          allowed: false,
          minPasswordLength: 9,
          requireSpecialChar: false,
          requireNumberChar: true,
          requireMixedCase: false,
          maxAttempts: 3,
          lockoutDurationMinutes: 30,
        },
        extJwt: { allowed: true, allowedSigners: [] },
      });
      assert.deepEqual(policy.secondary, { requireTotp: false });
      assert.equal(policy.name, 'patch-each');
      assert.deepEqual(policy.tags, { team: 'blue' });
    });

    it('ignores nulls, renames, replaces tags, clamps', async () => {
      const id = await create(fullBody('patch-misc'));
      const body = {
        name: 'patch-renamed',
        tags: { team: 'red' },
        primary: { cert: null, updb: { minPasswordLength: 1, maxAttempts: null } },
        secondary: { requireExtJwtSigner: null },
      };
      assert.equal((await write('PATCH', id, body)).status, 200);
      const policy = await detailOf(id);
      assert.equal(policy.name, 'patch-renamed');
      assert.deepEqual(policy.tags, { team: 'red' });
      assert.deepEqual(policy.primary.cert, fullBody('').primary.cert);
      assert.equal(policy.primary.updb.minPasswordLength, 5);
      assert.equal(policy.primary.updb.maxAttempts, 3);
      assert.equal('requireExtJwtSigner' in policy.secondary, false);
    });

    it('refuses unknown signers, a duplicate name and wrong types; 404 for an unknown id', async () => {
      const id = await create(fullBody('patch-bad'));
      const signers = await write('PATCH', id, { primary: { extJwt: { allowedSigners: ['nope'] } } });
      assertError(signers, 404, 'NOT_FOUND', 'primary.extJwt.allowedSigners[0]');
      assertError(
        await write('PATCH', id, { secondary: { requireExtJwtSigner: 'nope' } }),
        404,
        'NOT_FOUND',
        'secondary.requireExtJwtSigner',
      );
      assertError(await write('PATCH', id, { name: 'Default' }), 400, 'COULD_NOT_VALIDATE', 'name');
      assertError(await write('PATCH', id, { primary: { updb: { maxAttempts: 1.5 } } }), 400, 'COULD_NOT_PARSE_BODY');
      assert.equal((await detailOf(id)).name, 'patch-bad');
      assertError(await write('PATCH', 'no-such-policy', { name: 'x' }), 404, 'NOT_FOUND');
    });
  });

  describe('deleteAuthPolicy', () => {
    it('deletes an unused policy', async () => {
      const id = await create(fullBody('delete-me'));
      const result = await t.call({ method: 'DELETE', url: `${BASE}/${id}`, token });
      assert.equal(result.status, 200, result.text);
      assert.deepEqual(result.body, EMPTY_OK);
      assertError(await get(id), 404, 'NOT_FOUND');
      assertError(await t.call({ method: 'DELETE', url: `${BASE}/${id}`, token }), 404, 'NOT_FOUND');
    });

    it("refuses a policy identities use, naming the first of them as upstream's foreign key does", async () => {
      const id = await create(fullBody('delete-in-use'));
      await insertIdentityUsing('idB', id);
      await insertIdentityUsing('idA', id);
      const result = await t.call({ method: 'DELETE', url: `${BASE}/${id}`, token });
      assertError(result, 409, 'CAN_NOT_DELETE_REFERENCED_ENTITY', 'authPolicyId');
      assert.deepEqual(causeOf(result), {
        field: 'authPolicyId',
        reason: 'entity type authPolicy referenced by identity: [idA]',
        value: '[idA]',
      });
      await deleteIdentity('idA');
      await deleteIdentity('idB');
      assert.equal((await t.call({ method: 'DELETE', url: `${BASE}/${id}`, token })).status, 200);
    });

    it('refuses the default policy, used by the default admin or not', async () => {
      const used = await t.call({ method: 'DELETE', url: `${BASE}/default`, token });
      assertError(used, 409, 'CAN_NOT_DELETE_REFERENCED_ENTITY', 'authPolicyId');

      // Move every identity off the default policy: it is still refused, outright.
      // The admin moves too, so the new home must not require TOTP (that would make this session partial).
      const home = fullBody('temporary-home');
      const other = await create({
        ...home,
        primary: { ...home.primary, updb: { ...home.primary.updb, maxAttempts: 0 } },
        secondary: { requireTotp: false, requireExtJwtSigner: null },
      });
      await t.deps.store.transaction((tx) =>
        updateRows(tx, 'identities', { auth_policy_id: other }, { auth_policy_id: 'default' }),
      );
      try {
        const unused = await t.call({ method: 'DELETE', url: `${BASE}/default`, token });
        assertError(unused, 409, 'CAN_NOT_DELETE_REFERENCED_ENTITY');
        assert.deepEqual(causeOf(unused), { code: 'UNHANDLED', message: 'the default auth policy cannot be deleted' });
      } finally {
        await t.deps.store.transaction((tx) =>
          updateRows(tx, 'identities', { auth_policy_id: 'default' }, { auth_policy_id: other }),
        );
      }
      assert.equal((await detailOf('default')).name, 'Default');
    });
  });

  describe('access and login', () => {
    it('needs an admin session for every operation', async () => {
      const anonymous: (() => Promise<CallResult>)[] = [
        () => t.call({ method: 'GET', url: BASE }),
        () => t.call({ method: 'POST', url: BASE, payload: fullBody('anonymous') }),
        () => t.call({ method: 'GET', url: `${BASE}/default` }),
        () => t.call({ method: 'PUT', url: `${BASE}/default`, payload: fullBody('Default') }),
        () => t.call({ method: 'PATCH', url: `${BASE}/default`, payload: { name: 'x' } }),
        () => t.call({ method: 'DELETE', url: `${BASE}/default` }),
      ];
      for (const send of anonymous) assertError(await send(), 401, 'UNAUTHORIZED');
      assert.equal((await detailOf('default')).name, 'Default');
    });

    it("refuses password login when the identity's policy disallows updb", async () => {
      const login = () =>
        t.call({
          method: 'POST',
          url: '/edge/management/v1/authenticate?method=password',
          payload: { username: ADMIN_USERNAME, password: ADMIN_PASSWORD },
        });
      assert.equal((await write('PATCH', 'default', { primary: { updb: { allowed: false } } })).status, 200);
      try {
        assertError(await login(), 401, 'INVALID_AUTH');
      } finally {
        assert.equal((await write('PATCH', 'default', { primary: { updb: { allowed: true } } })).status, 200);
      }
      assert.equal((await login()).status, 200);
    });
  });
});
