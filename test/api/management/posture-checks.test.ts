import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../../support/test-app.js';
import { assertError, type CallResult } from '../../support/conformance.js';
import { createEntity } from '../../support/factories.js';

const BASE = '/edge/management/v1/posture-checks';
const TYPES = '/edge/management/v1/posture-check-types';
const ROLE_ATTRIBUTES = '/edge/management/v1/posture-check-role-attributes';

type Check = Record<string, unknown> & { id: string; name: string; typeId: string; roleAttributes: string[] };

interface ListBody<T> {
  data: T[];
  meta: { pagination: { limit: number; offset: number; totalCount: number }; filterableFields: string[] };
}

const causeOf = (result: CallResult) => (result.body as { error: { cause?: Record<string, unknown> } }).error.cause;
const EMPTY_OK = { data: {}, meta: { apiEnrollmentVersion: '0.0.1', apiVersion: '0.0.1' } };
const query = (filter: string) => `?filter=${encodeURIComponent(filter)}`;

/** The fields every detail has besides the type's own: compared separately so the tests can spell out the rest. */
const commonFields = new Set([
  '_links',
  'createdAt',
  'id',
  'tags',
  'updatedAt',
  'name',
  'typeId',
  'version',
  'roleAttributes',
]);
function typeFields(check: Check): Record<string, unknown> {
  return Object.fromEntries(Object.entries(check).filter(([key]) => !commonFields.has(key)));
}

describe('posture checks', () => {
  let t: TestApp;
  let token: string;
  let counter = 0;
  const uniqueName = (prefix: string) => `${prefix}-${++counter}`;

  const post = (payload: unknown) => t.call({ method: 'POST', url: BASE, token, payload });
  const create = (payload: Record<string, unknown>) =>
    createEntity(t, token, 'posture-checks', { name: uniqueName(String(payload.typeId)), ...payload });
  const detailOf = async (id: string) => {
    const result = await t.call({ method: 'GET', url: `${BASE}/${id}`, token });
    assert.equal(result.status, 200, result.text);
    return (result.body as { data: Check }).data;
  };
  const list = async <T = Check>(url: string) => {
    const result = await t.call({ method: 'GET', url, token });
    assert.equal(result.status, 200, result.text);
    return result.body as ListBody<T>;
  };
  const modify = (method: 'PUT' | 'PATCH', id: string, payload: unknown) =>
    t.call({ method, url: `${BASE}/${id}`, token, payload });

  before(async () => {
    t = await buildTestApp();
    token = await t.loginAsAdmin();
  });
  after(() => t.close());

  describe('createPostureCheck', () => {
    it('creates an OS check: one entry per type (last wins), sorted by type, versions sorted and de-duplicated', async () => {
      const result = await post({
        name: 'os-check',
        typeId: 'OS',
        roleAttributes: ['b', 'a', 'b'],
        tags: { team: 'blue' },
        operatingSystems: [
          { type: 'Windows', versions: ['>=1.0.0'] },
          { type: 'macOS', versions: [] },
          { type: 'Windows', versions: ['>=10.0.0 <11.0.0', '>=10.0.0 <11.0.0', '1.x'] },
          { type: 'Android', versions: ['9.0.0'] },
        ],
      });
      assert.equal(result.status, 201, result.text);
      const { id, _links } = (result.body as { data: { id: string; _links: unknown } }).data;
      assert.deepEqual(_links, { self: { href: `./posture-checks/${id}` } });
      const check = await detailOf(id);
      assert.equal(check.name, 'os-check');
      assert.equal(check.typeId, 'OS');
      assert.equal(check.version, 1);
      assert.deepEqual(check.roleAttributes, ['a', 'b']);
      assert.deepEqual(check.tags, { team: 'blue' });
      assert.deepEqual(check._links, { self: { href: `./posture-checks/${id}` } });
      assert.deepEqual(typeFields(check), {
        operatingSystems: [
          { type: 'Android', versions: ['9.0.0'] },
          { type: 'Windows', versions: ['1.x', '>=10.0.0 <11.0.0'] },
          { type: 'macOS', versions: [] },
        ],
      });
    });

    it('creates a MAC check with addresses lower-cased and stripped of everything but hex digits', async () => {
      const id = await create({
        typeId: 'MAC',
        macAddresses: ['AA:BB:CC:DD:EE:FF', 'aa-bb-cc-dd-ee-ff', '00.11.22.33.44.5G'],
      });
      assert.deepEqual(
        typeFields(await detailOf(id)),
        { macAddresses: ['00112233445', 'aabbccddeeff'] },
        'G is not a hex digit',
      );
    });

    it('creates a DOMAIN check with its domains as a sorted set', async () => {
      const id = await create({ typeId: 'DOMAIN', domains: ['zeta.example', 'Alpha.example', 'zeta.example'] });
      assert.deepEqual(typeFields(await detailOf(id)), { domains: ['Alpha.example', 'zeta.example'] });
    });

    it('creates a PROCESS check with hashes and signer fingerprint lower-cased', async () => {
      const id = await create({
        typeId: 'PROCESS',
        process: {
          osType: 'Windows',
          path: 'C:\\Program Files\\App\\app.exe',
          hashes: ['BEEF', 'ABC1', 'beef'],
          signerFingerprint: 'DEADBEEF',
        },
      });
      assert.deepEqual(typeFields(await detailOf(id)), {
        process: {
          osType: 'Windows',
          path: 'C:\\Program Files\\App\\app.exe',
          hashes: ['abc1', 'beef'],
          signerFingerprint: 'deadbeef',
        },
      });
    });

    it('shows a PROCESS check without hashes or fingerprint with [] and no fingerprint', async () => {
      const id = await create({ typeId: 'PROCESS', process: { osType: 'Linux', path: '/usr/bin/app' } });
      assert.deepEqual(typeFields(await detailOf(id)), {
        process: { osType: 'Linux', path: '/usr/bin/app', hashes: [] },
      });
    });

    it('creates a PROCESS_MULTI check: one process per OS and path, sorted, with [] for missing lists', async () => {
      const id = await create({
        typeId: 'PROCESS_MULTI',
        semantic: 'AnyOf',
        processes: [
          { osType: 'macOS', path: '/Applications/App', hashes: ['B', 'A'] },
          { osType: 'Linux', path: '/usr/bin/app', signerFingerprints: ['F1'] },
          { osType: 'macOS', path: '/Applications/App', hashes: ['C'] },
        ],
      });
      assert.deepEqual(typeFields(await detailOf(id)), {
        semantic: 'AnyOf',
        processes: [
          { osType: 'Linux', path: '/usr/bin/app', hashes: [], signerFingerprints: ['F1'] },
          { osType: 'macOS', path: '/Applications/App', hashes: ['C'], signerFingerprints: [] },
        ],
      });
    });

    it('creates MFA checks: a timeout of zero or less is stored as -1, every flag is rendered, false included', async () => {
      const none = await create({ typeId: 'MFA' });
      const allFalse = { promptOnWake: false, promptOnUnlock: false, ignoreLegacyEndpoints: false };
      assert.deepEqual(typeFields(await detailOf(none)), { timeoutSeconds: -1, ...allFalse });
      const negative = await create({ typeId: 'MFA', timeoutSeconds: -20, promptOnWake: false });
      assert.deepEqual(typeFields(await detailOf(negative)), { timeoutSeconds: -1, ...allFalse });
      const full = await create({
        typeId: 'MFA',
        timeoutSeconds: 300,
        promptOnWake: true,
        promptOnUnlock: true,
        ignoreLegacyEndpoints: true,
      });
      assert.deepEqual(typeFields(await detailOf(full)), {
        timeoutSeconds: 300,
        promptOnWake: true,
        promptOnUnlock: true,
        ignoreLegacyEndpoints: true,
      });
      assert.deepEqual((await detailOf(none)).roleAttributes, [], 'no role attributes show as [] on posture checks');
    });

    it('refuses a typeId that names no posture check type', async () => {
      // The contract's discriminator lets its base name through; it names no type.
      const base = await post({ name: 'base-type', typeId: 'postureCheckCreate' });
      assertError(base, 400, 'COULD_NOT_VALIDATE', 'typeId');
      assert.deepEqual(causeOf(base), {
        field: 'typeId',
        reason: 'unknown posture check type',
        value: 'postureCheckCreate',
      });
      // An unknown one has no type to decode into: v1.1.8 answers that as a body it could not parse.
      const bogus = await post({ name: 'bogus-type', typeId: 'FINGERPRINT' });
      assertError(bogus, 400, 'COULD_NOT_PARSE_BODY');
      assert.deepEqual(causeOf(bogus), { code: 'UNHANDLED', message: 'invalid typeId value: "FINGERPRINT"' });
      assertError(await post({ name: 'no-type' }), 400, 'COULD_NOT_VALIDATE');
    });

    it('refuses an OS version that is not a semver range, naming the entry as upstream does', async () => {
      const result = await post({
        name: 'bad-os',
        typeId: 'OS',
        operatingSystems: [
          { type: 'Linux', versions: ['>=5.0.0'] },
          { type: 'Windows', versions: ['>=10.0.0', 'abc'] },
        ],
      });
      assertError(result, 400, 'COULD_NOT_VALIDATE', 'operatingSystems[{Windows [>=10.0.0 abc]}][1]');
      const reason =
        'invalid version for os: [{Windows [>=10.0.0 abc]}], version: [abc]: Could not get version from string: "abc" ';
      assert.deepEqual(causeOf(result), {
        field: 'operatingSystems[{Windows [>=10.0.0 abc]}][1]',
        reason,
        value: reason,
      });
      // Bare numbers are not ranges in upstream's semver dialect, not even the type hints' own "10".
      const plain = await post({
        name: 'plain-os',
        typeId: 'OS',
        operatingSystems: [{ type: 'Windows', versions: ['10'] }],
      });
      assertError(plain, 400, 'COULD_NOT_VALIDATE', 'operatingSystems[{Windows [10]}][0]');
      assert.match(String(causeOf(plain)?.reason), /No Major\.Minor\.Patch elements found $/);
      assertError(
        await post({ name: 'empty-os', typeId: 'OS', operatingSystems: [{ type: 'Linux', versions: [''] }] }),
        400,
        'COULD_NOT_VALIDATE',
        'operatingSystems[{Linux []}][0]',
      );
    });

    it('refuses empty lists where the contract requires at least one entry, and missing type fields', async () => {
      const refused: Record<string, unknown>[] = [
        { typeId: 'OS', operatingSystems: [] },
        { typeId: 'MAC', macAddresses: [] },
        { typeId: 'DOMAIN', domains: [] },
        { typeId: 'PROCESS_MULTI', semantic: 'AllOf', processes: [] },
        { typeId: 'OS' },
        { typeId: 'MAC' },
        { typeId: 'PROCESS' },
        { typeId: 'PROCESS', process: { path: '/bin/x' } },
        { typeId: 'PROCESS_MULTI', processes: [{ osType: 'Linux', path: '/bin/x' }] },
        { typeId: 'OS', operatingSystems: [{ type: 'BeOS', versions: [] }] },
      ];
      for (const body of refused)
        assertError(await post({ name: uniqueName('refused'), ...body }), 400, 'COULD_NOT_VALIDATE');
    });

    it('refuses a missing or duplicate name', async () => {
      assertError(await post({ typeId: 'MFA' }), 400, 'COULD_NOT_VALIDATE');
      assertError(await post({ name: '  ', typeId: 'MFA' }), 400, 'COULD_NOT_VALIDATE', 'name');
      await create({ name: 'taken', typeId: 'MFA' });
      const duplicate = await post({ name: 'taken', typeId: 'DOMAIN', domains: ['x'] });
      assertError(duplicate, 400, 'COULD_NOT_VALIDATE', 'name');
      assert.equal(causeOf(duplicate)?.reason, 'name is must be unique');
    });

    it('needs an admin session', async () => {
      assertError(
        await t.call({ method: 'POST', url: BASE, payload: { name: 'anon', typeId: 'MFA' } }),
        401,
        'UNAUTHORIZED',
      );
      assertError(await t.call({ method: 'GET', url: BASE }), 401, 'UNAUTHORIZED');
    });
  });

  describe('detailPostureCheck', () => {
    it('answers 404 for an unknown id', async () => {
      const result = await t.call({ method: 'GET', url: `${BASE}/missing`, token });
      assertError(result, 404, 'NOT_FOUND');
      assert.deepEqual(causeOf(result), { code: 'UNHANDLED', message: 'postureCheck with id missing not found' });
    });
  });

  describe('listPostureChecks', () => {
    let wake: string;
    let quiet: string;
    before(async () => {
      wake = await create({ name: 'list-wake', typeId: 'MFA', promptOnWake: true });
      quiet = await create({ name: 'list-quiet', typeId: 'MFA' });
      await create({ name: 'list-domain', typeId: 'DOMAIN', domains: ['corp.example'] });
    });

    it('lists every type with the public symbols as filterable fields', async () => {
      const body = await list(`${BASE}?limit=-1`);
      assert.deepEqual([...body.meta.filterableFields].sort(), [
        'createdAt',
        'id',
        'isSystem',
        'name',
        'promptOnUnlock',
        'promptOnWake',
        'tags',
        'updatedAt',
      ]);
      assert.deepEqual(
        new Set(body.data.map((check) => check.typeId)),
        new Set(['OS', 'MAC', 'DOMAIN', 'PROCESS', 'PROCESS_MULTI', 'MFA']),
      );
      assert.equal(body.meta.pagination.totalCount, body.data.length);
    });

    it('filters by name, sorts and pages', async () => {
      const byName = await list(`${BASE}${query('name = "list-quiet"')}`);
      assert.deepEqual(
        byName.data.map((check) => check.id),
        [quiet],
      );
      const sorted = await list(`${BASE}${query('name contains "list-" sort by name desc')}&limit=2&offset=1`);
      assert.deepEqual(
        sorted.data.map((check) => check.name),
        ['list-quiet', 'list-domain'],
      );
      assert.deepEqual(sorted.meta.pagination, { limit: 2, offset: 1, totalCount: 3 });
    });

    it('reads promptOnWake as absent on other types: false for = false, null for = null', async () => {
      const scope = 'and name contains "list-"';
      const on = await list(`${BASE}${query(`promptOnWake = true ${scope}`)}`);
      assert.deepEqual(
        on.data.map((check) => check.name),
        ['list-wake'],
      );
      // The filter language counts a missing bool as false, as upstream's does.
      const off = await list(`${BASE}${query(`promptOnWake = false ${scope} sort by name`)}`);
      assert.deepEqual(
        off.data.map((check) => check.name),
        ['list-domain', 'list-quiet'],
      );
      const absent = await list(`${BASE}${query(`promptOnWake = null ${scope}`)}`);
      assert.deepEqual(
        absent.data.map((check) => check.name),
        ['list-domain'],
      );
      const unlock = await list(`${BASE}${query(`promptOnUnlock != null ${scope} sort by name`)}`);
      assert.deepEqual(
        unlock.data.map((check) => check.id),
        [quiet, wake],
      );
    });

    it('refuses role attributes and typeId in filters: upstream keeps them internal', async () => {
      for (const filter of ['anyOf(roleAttributes) = "a"', 'typeId = "MFA"']) {
        const result = await t.call({ method: 'GET', url: `${BASE}${query(filter)}`, token });
        assertError(result, 400, 'INVALID_FILTER');
      }
    });
  });

  describe('updatePostureCheck', () => {
    it('replaces every field: omitted ones become empty, MFA flags reset', async () => {
      const id = await create({
        name: 'put-me',
        typeId: 'MFA',
        roleAttributes: ['x'],
        tags: { a: 1 },
        timeoutSeconds: 60,
        promptOnUnlock: true,
      });
      const result = await modify('PUT', id, { name: 'put-done', typeId: 'MFA', promptOnWake: true });
      assert.equal(result.status, 200, result.text);
      assert.deepEqual(result.body, EMPTY_OK);
      const check = await detailOf(id);
      assert.equal(check.name, 'put-done');
      assert.deepEqual(check.roleAttributes, []);
      assert.deepEqual(check.tags, {});
      assert.equal(check.version, 1);
      assert.deepEqual(typeFields(check), {
        timeoutSeconds: -1,
        promptOnWake: true,
        promptOnUnlock: false,
        ignoreLegacyEndpoints: false,
      });
      const unlock = await list(`${BASE}${query('promptOnUnlock = true and name = "put-done"')}`);
      assert.equal(unlock.data.length, 0, 'the filter column follows the update');
    });

    it('replaces the type fields with the same normalisation as create', async () => {
      const id = await create({ typeId: 'MAC', macAddresses: ['aa:aa:aa:aa:aa:aa'] });
      assert.equal(
        (await modify('PUT', id, { name: 'mac-put', typeId: 'MAC', macAddresses: ['BB-BB-BB-BB-BB-BB'] })).status,
        200,
      );
      assert.deepEqual(typeFields(await detailOf(id)), { macAddresses: ['bbbbbbbbbbbb'] });
      const os = await create({ typeId: 'OS', operatingSystems: [{ type: 'Linux', versions: ['>=5.0.0'] }] });
      const bad = await modify('PUT', os, {
        name: 'os-put',
        typeId: 'OS',
        operatingSystems: [{ type: 'Linux', versions: ['5'] }],
      });
      assertError(bad, 400, 'COULD_NOT_VALIDATE', 'operatingSystems[{Linux [5]}][0]');
    });

    // A release build of upstream v1.1.8 answers 200 here but keeps the old type fields (its PUT mapping leaves the
    // type empty for every type but PROCESS_MULTI); ours applies them as the contract promises (explained-differences.yaml).
    it('replaces the operating systems of an OS check and the domains of a DOMAIN check', async () => {
      const os = await create({ typeId: 'OS', operatingSystems: [{ type: 'Windows', versions: ['>=10.0.19041'] }] });
      const putOs = await modify('PUT', os, {
        name: 'os-replaced',
        typeId: 'OS',
        operatingSystems: [{ type: 'Linux', versions: [] }],
      });
      assert.equal(putOs.status, 200, putOs.text);
      assert.deepEqual(typeFields(await detailOf(os)), { operatingSystems: [{ type: 'Linux', versions: [] }] });
      const domain = await create({ typeId: 'DOMAIN', domains: ['a.example'] });
      assert.equal(
        (await modify('PUT', domain, { name: 'domain-replaced', typeId: 'DOMAIN', domains: ['b.example'] })).status,
        200,
      );
      assert.deepEqual(typeFields(await detailOf(domain)), { domains: ['b.example'] });
    });

    it('refuses another type, a missing type or missing type fields', async () => {
      const id = await create({ typeId: 'DOMAIN', domains: ['a.example'] });
      const other = await modify('PUT', id, { name: 'changed', typeId: 'MAC', macAddresses: ['aa'] });
      assertError(other, 400, 'COULD_NOT_VALIDATE', 'typeId');
      assert.deepEqual(causeOf(other), {
        field: 'typeId',
        reason: 'the type of a posture check cannot be changed from DOMAIN',
        value: 'MAC',
      });
      assertError(await modify('PUT', id, { name: 'changed', domains: ['b.example'] }), 400, 'COULD_NOT_VALIDATE');
      assertError(await modify('PUT', id, { name: 'changed', typeId: 'DOMAIN' }), 400, 'COULD_NOT_VALIDATE');
      assertError(
        await modify('PUT', id, { name: 'changed', typeId: 'postureCheckUpdate' }),
        400,
        'COULD_NOT_VALIDATE',
        'typeId',
      );
      assert.deepEqual(typeFields(await detailOf(id)), { domains: ['a.example'] });
    });

    it('answers 404 for an unknown id', async () => {
      assertError(await modify('PUT', 'missing', { name: 'x', typeId: 'MFA' }), 404, 'NOT_FOUND');
    });
  });

  describe('patchPostureCheck', () => {
    it('changes only the fields present with a value', async () => {
      const id = await create({
        name: 'patch-me',
        typeId: 'MFA',
        roleAttributes: ['keep'],
        tags: { k: 'v' },
        timeoutSeconds: 120,
        promptOnWake: true,
      });
      const result = await modify('PATCH', id, { typeId: 'MFA', promptOnUnlock: true, promptOnWake: null, name: null });
      assert.equal(result.status, 200, result.text);
      const check = await detailOf(id);
      assert.equal(check.name, 'patch-me');
      assert.deepEqual(check.roleAttributes, ['keep']);
      assert.deepEqual(check.tags, { k: 'v' });
      assert.deepEqual(typeFields(check), {
        timeoutSeconds: 120,
        promptOnWake: true,
        promptOnUnlock: true,
        ignoreLegacyEndpoints: false,
      });
      assert.equal((await modify('PATCH', id, { typeId: 'MFA', roleAttributes: [], timeoutSeconds: 0 })).status, 200);
      const cleared = await detailOf(id);
      assert.deepEqual(cleared.roleAttributes, []);
      assert.equal(cleared.timeoutSeconds, -1);
    });

    it('patches a PROCESS check key by key, keeping hashes and fingerprint it does not mention', async () => {
      const id = await create({
        typeId: 'PROCESS',
        process: { osType: 'Linux', path: '/bin/a', hashes: ['AA'], signerFingerprint: 'FF' },
      });
      assert.equal(
        (await modify('PATCH', id, { typeId: 'PROCESS', process: { osType: 'macOS', path: '/bin/b' } })).status,
        200,
      );
      assert.deepEqual(typeFields(await detailOf(id)), {
        process: { osType: 'macOS', path: '/bin/b', hashes: ['aa'], signerFingerprint: 'ff' },
      });
      assert.equal(
        (await modify('PATCH', id, { typeId: 'PROCESS', process: { osType: 'macOS', path: '/bin/b', hashes: ['CC'] } }))
          .status,
        200,
      );
      assert.deepEqual(typeFields(await detailOf(id)), {
        process: { osType: 'macOS', path: '/bin/b', hashes: ['cc'], signerFingerprint: 'ff' },
      });
    });

    it('keeps the processes of a PROCESS_MULTI check when only its semantic changes', async () => {
      const processes = [{ osType: 'Windows', path: 'C:\\a.exe' }];
      const id = await create({ typeId: 'PROCESS_MULTI', semantic: 'AllOf', processes });
      assert.equal((await modify('PATCH', id, { typeId: 'PROCESS_MULTI', semantic: 'AnyOf' })).status, 200);
      assert.deepEqual(typeFields(await detailOf(id)), {
        semantic: 'AnyOf',
        processes: [{ ...processes[0], hashes: [], signerFingerprints: [] }],
      });
    });

    it('validates patched OS versions and MAC addresses as on create', async () => {
      const id = await create({ typeId: 'OS', operatingSystems: [{ type: 'iOS', versions: ['>=16.0.0'] }] });
      assertError(
        await modify('PATCH', id, { typeId: 'OS', operatingSystems: [{ type: 'iOS', versions: ['sixteen'] }] }),
        400,
        'COULD_NOT_VALIDATE',
        'operatingSystems[{iOS [sixteen]}][0]',
      );
      assertError(await modify('PATCH', id, { typeId: 'OS', operatingSystems: [] }), 400, 'COULD_NOT_VALIDATE');
      assert.equal((await modify('PATCH', id, { typeId: 'OS', tags: { env: 'prod' } })).status, 200);
      const check = await detailOf(id);
      assert.deepEqual(check.tags, { env: 'prod' });
      assert.deepEqual(typeFields(check), { operatingSystems: [{ type: 'iOS', versions: ['>=16.0.0'] }] });
    });

    it('refuses another type and a missing type, and answers 404 for an unknown id', async () => {
      const id = await create({ typeId: 'MAC', macAddresses: ['aa'] });
      assertError(await modify('PATCH', id, { typeId: 'DOMAIN', domains: ['x'] }), 400, 'COULD_NOT_VALIDATE', 'typeId');
      assertError(await modify('PATCH', id, { name: 'no-type' }), 400, 'COULD_NOT_VALIDATE');
      assertError(await modify('PATCH', 'missing', { typeId: 'MFA' }), 404, 'NOT_FOUND');
    });
  });

  describe('deletePostureCheck', () => {
    it('deletes, then answers 404', async () => {
      const id = await create({ typeId: 'DOMAIN', domains: ['gone.example'], roleAttributes: ['only-on-deleted'] });
      const result = await t.call({ method: 'DELETE', url: `${BASE}/${id}`, token });
      assert.equal(result.status, 200, result.text);
      assert.deepEqual(result.body, EMPTY_OK);
      assertError(await t.call({ method: 'GET', url: `${BASE}/${id}`, token }), 404, 'NOT_FOUND');
      assertError(await t.call({ method: 'DELETE', url: `${BASE}/${id}`, token }), 404, 'NOT_FOUND');
      assert.ok(!(await list<string>(ROLE_ATTRIBUTES)).data.includes('only-on-deleted'));
    });

    it('needs an admin session', async () => {
      assertError(await t.call({ method: 'DELETE', url: `${BASE}/whatever` }), 401, 'UNAUTHORIZED');
    });
  });

  describe('listPostureCheckRoleAttributes', () => {
    it('lists the distinct attributes in use, sorted, filtered by id only', async () => {
      await create({ typeId: 'MFA', roleAttributes: ['ra-zulu', 'ra-alpha'] });
      await create({ typeId: 'MFA', roleAttributes: ['ra-alpha', 'ra-mike', '#hash-allowed'] });
      const all = await t.call({ method: 'GET', url: `${ROLE_ATTRIBUTES}?limit=1`, token });
      assert.equal(all.status, 200, all.text);
      const body = all.body as ListBody<string>;
      for (const value of ['#hash-allowed', 'ra-alpha', 'ra-mike', 'ra-zulu'])
        assert.ok(body.data.includes(value), value);
      assert.deepEqual(body.data, [...body.data].sort());
      assert.match(all.text, /"limit":9223372036854775807/);
      assert.deepEqual(body.meta.filterableFields, ['id']);
      const filtered = await list<string>(`${ROLE_ATTRIBUTES}${query('id contains "ra-" and id != "ra-mike"')}`);
      assert.deepEqual(filtered.data, ['ra-alpha', 'ra-zulu']);
    });
  });

  describe('posture check types', () => {
    const windows = { type: 'Windows', versions: ['10', '2000', '7', '8', 'Vista'] };
    const linux = { type: 'Linux', versions: ['4.14', '4.19', '5.4', '5.9'] };
    const android = { type: 'Android', versions: ['10', '11', '9'] };
    const macOS = { type: 'macOS', versions: ['10.15', '11.0'] };
    const iOS = { type: 'iOS', versions: ['11', '12'] };

    it('lists the five types with their names and operating systems as bolt reads them back (byte-sorted)', async () => {
      const body = await list<Record<string, unknown>>(TYPES);
      assert.deepEqual(body.meta.pagination, { limit: 10, offset: 0, totalCount: 5 });
      assert.deepEqual([...body.meta.filterableFields].sort(), [
        'createdAt',
        'id',
        'isSystem',
        'name',
        'tags',
        'updatedAt',
      ]);
      const contents = body.data.map(({ id, name, operatingSystems, version, tags }) => ({
        id,
        name,
        operatingSystems,
        version,
        tags,
      }));
      assert.deepEqual(contents, [
        { id: 'DOMAIN', name: 'Windows Domain Check', operatingSystems: [windows], version: null, tags: {} },
        {
          id: 'MAC',
          name: 'MAC Address Check',
          operatingSystems: [android, linux, windows, macOS],
          version: null,
          tags: {},
        },
        {
          id: 'OS',
          name: 'Operating System Check',
          operatingSystems: [android, linux, windows, iOS, macOS],
          version: null,
          tags: {},
        },
        { id: 'PROCESS', name: 'Process Check', operatingSystems: [linux, windows, macOS], version: null, tags: {} },
        {
          id: 'PROCESS_MULTI',
          name: 'Process Multi Check',
          operatingSystems: [
            { type: 'Linux', versions: [] },
            { type: 'Windows', versions: [] },
            { type: 'macOS', versions: [] },
          ],
          version: null,
          tags: {},
        },
      ]);
      assert.deepEqual(body.data[0]!._links, { self: { href: './posture-check-types/DOMAIN' } });
    });

    it('filters by name', async () => {
      const body = await list<{ id: string }>(`${TYPES}${query('name contains "Process"')}`);
      assert.deepEqual(
        body.data.map((type) => type.id),
        ['PROCESS', 'PROCESS_MULTI'],
      );
      assertError(
        await t.call({ method: 'GET', url: `${TYPES}${query('operatingSystems = "x"')}`, token }),
        400,
        'INVALID_FILTER',
      );
    });

    it('details one type, and has no MFA row', async () => {
      const result = await t.call({ method: 'GET', url: `${TYPES}/OS`, token });
      assert.equal(result.status, 200, result.text);
      const data = (result.body as { data: Record<string, unknown> }).data;
      assert.equal(data.name, 'Operating System Check');
      assert.equal(data.version, null);
      assert.deepEqual(data.operatingSystems, [android, linux, windows, iOS, macOS]);
      assertError(await t.call({ method: 'GET', url: `${TYPES}/MFA`, token }), 404, 'NOT_FOUND');
      assertError(await t.call({ method: 'GET', url: `${TYPES}/OS` }), 401, 'UNAUTHORIZED');
    });

    it('counts the types and checks in the summary', async () => {
      const result = await t.call({ method: 'GET', url: '/edge/management/v1/summary', token });
      const counts = (result.body as { data: Record<string, number> }).data;
      assert.equal(counts.postureCheckTypes, 5);
      assert.equal(counts.postureChecks, (await list(`${BASE}?limit=-1`)).meta.pagination.totalCount);
    });
  });
});

describe('listPostureChecks roleFilter', () => {
  it('narrows the list by role attributes, all-of or any-of, and by @id', async () => {
    const t = await buildTestApp();
    try {
      const token = await t.loginAsAdmin();
      const make = async (name: string, roleAttributes: string[]) => {
        const result = await t.call({
          method: 'POST',
          url: '/edge/management/v1/posture-checks',
          token,
          payload: { name, typeId: 'DOMAIN', domains: ['corp.example'], roleAttributes },
        });
        return (result.body as { data: { id: string } }).data.id;
      };
      const a = await make('rf-a', ['x', 'y']);
      const b = await make('rf-b', ['x']);
      const c = await make('rf-c', []);
      const names = async (query: string) => {
        const result = await t.call({ method: 'GET', url: `/edge/management/v1/posture-checks?${query}`, token });
        assert.equal(result.status, 200, result.text);
        return (result.body as { data: { id: string }[] }).data.map((d) => d.id).sort();
      };
      assert.deepEqual(await names('roleFilter=%23x&roleFilter=%23y'), [a]);
      assert.deepEqual(await names('roleFilter=%23x&roleFilter=%23y&roleSemantic=AnyOf'), [a, b].sort());
      assert.deepEqual(await names(`roleFilter=%40${c}&roleFilter=%23y`), [a, c].sort());
      assertError(
        await t.call({ method: 'GET', url: '/edge/management/v1/posture-checks?roleFilter=x', token }),
        400,
        'COULD_NOT_VALIDATE',
        'roleFilter',
      );
    } finally {
      await t.close();
    }
  });
});
