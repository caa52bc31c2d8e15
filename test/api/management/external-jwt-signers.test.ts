import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createHash, X509Certificate } from 'node:crypto';
import { buildTestApp, type TestApp } from '../../support/test-app.js';
import { assertError, type CallResult } from '../../support/conformance.js';
import { authPolicyBody, createAuthPolicy, createEntity, createUser, login } from '../../support/factories.js';
import { newSigningKey, type SigningKey } from '../../support/jwt-issuer.js';

const BASE = '/edge/management/v1/external-jwt-signers';
const CLIENT = '/edge/client/v1/external-jwt-signers';
const POLICIES = '/edge/management/v1/auth-policies';

type Signer = Record<string, unknown> & { id: string };
const dataOf = <T>(result: CallResult) => (result.body as { data: T }).data;
const causeOf = (result: CallResult) => (result.body as { error: { cause?: Record<string, unknown> } }).error.cause;

let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}`;

/** What the console sends: every field, unset ones as "" or null. */
function consoleBody(overrides: Record<string, unknown> = {}) {
  return {
    name: unique('signer'),
    enabled: true,
    issuer: `https://${unique('issuer')}.example`,
    audience: 'openziti',
    certPem: '',
    jwksEndpoint: null,
    kid: '',
    claimsProperty: '',
    useExternalId: false,
    externalAuthUrl: '',
    tags: {},
    ...overrides,
  };
}

describe('external JWT signers', () => {
  let t: TestApp;
  let admin: string;
  let key: SigningKey;
  const get = (id: string) => t.call({ method: 'GET', url: `${BASE}/${id}`, token: admin });
  const detailOf = async (id: string) => dataOf<Signer>(await get(id));
  const create = (body: Record<string, unknown>) => t.call({ method: 'POST', url: BASE, token: admin, payload: body });

  before(async () => {
    t = await buildTestApp();
    admin = await t.loginAsAdmin();
    key = await newSigningKey('ES256', t.clock());
  });
  after(() => t.close());

  describe('create and read', () => {
    it('stores a certificate signer with its derived details and upstream defaults', async () => {
      const body = consoleBody({
        certPem: key.certPem,
        externalAuthUrl: 'https://login.example/authorize',
        clientId: 'ziti-client',
        scopes: ['openid', 'email'],
      });
      const id = await createEntity(t, admin, 'external-jwt-signers', body);
      const signer = await detailOf(id);
      const certificate = new X509Certificate(key.certPem);
      assert.equal(signer.name, body.name);
      assert.equal(signer.certPem, key.certPem);
      assert.equal(signer.fingerprint, createHash('sha1').update(certificate.raw).digest('hex'));
      assert.equal(signer.commonName, `test-issuer-${key.kid}`);
      assert.equal(signer.notBefore, new Date(certificate.validFrom).toISOString());
      assert.equal(signer.notAfter, new Date(certificate.validTo).toISOString());
      // Blanks are stored as none; a blank claims property is `sub`.
      assert.deepEqual(
        [signer.kid, signer.jwksEndpoint, signer.claimsProperty, signer.useExternalId],
        [null, null, 'sub', false],
      );
      assert.deepEqual(
        [signer.externalAuthUrl, signer.clientId, signer.scopes],
        ['https://login.example/authorize', 'ziti-client', ['openid', 'email']],
      );
      assert.deepEqual(signer._links, { self: { href: `./external-jwt-signers/${id}` } });
    });

    it('stores a JWKS signer with zero certificate dates, as upstream renders them', async () => {
      const id = await createEntity(
        t,
        admin,
        'external-jwt-signers',
        consoleBody({ certPem: null, jwksEndpoint: 'https://idp.example/jwks', kid: 'k1', audience: '' }),
      );
      const signer = await detailOf(id);
      assert.deepEqual(
        [
          signer.certPem,
          signer.fingerprint,
          signer.commonName,
          signer.notBefore,
          signer.notAfter,
          signer.audience,
          signer.kid,
        ],
        [null, null, '', '0001-01-01T00:00:00.000Z', '0001-01-01T00:00:00.000Z', null, 'k1'],
      );
    });

    it('refuses a missing key source, two key sources, a bad certificate and a non-http endpoint', async () => {
      const none = await create(consoleBody());
      assertError(none, 400, 'COULD_NOT_VALIDATE', 'certPem');
      assertError(
        await create(consoleBody({ certPem: key.certPem, jwksEndpoint: 'https://idp.example/jwks' })),
        400,
        'COULD_NOT_VALIDATE',
        'jwksEndpoint',
      );
      assertError(await create(consoleBody({ certPem: 'probably will not parse' })), 400, 'INVALID_CERT_PEM');
      assertError(await create(consoleBody({ certPem: `${key.certPem}${key.certPem}` })), 400, 'INVALID_CERT_PEM');
      assertError(
        await create(consoleBody({ jwksEndpoint: 'ftp://idp.example/jwks' })),
        400,
        'COULD_NOT_VALIDATE',
        'jwksEndpoint',
      );
      assertError(await create(consoleBody({ jwksEndpoint: 'not a uri' })), 400, 'COULD_NOT_VALIDATE', 'jwksEndpoint');
      assertError(
        await create(consoleBody({ jwksEndpoint: 'https://idp.example/jwks', issuer: '  ' })),
        400,
        'COULD_NOT_VALIDATE',
        'issuer',
      );
      assertError(
        await create(consoleBody({ jwksEndpoint: 'https://idp.example/jwks', scopes: 'openid' })),
        400,
        'COULD_NOT_VALIDATE',
        'scopes',
      );
      assertError(
        await create({ name: 'no-enabled', issuer: 'x', audience: 'y', jwksEndpoint: 'https://idp.example/jwks' }),
        400,
        'COULD_NOT_VALIDATE',
        'enabled',
      );
    });

    it('keeps names, issuers, kids and certificates unique', async () => {
      const first = consoleBody({ certPem: (await newSigningKey('RS256', t.clock())).certPem, kid: unique('kid') });
      await createEntity(t, admin, 'external-jwt-signers', first);
      const reusedCert = await create(consoleBody({ certPem: first.certPem }));
      assertError(reusedCert, 400, 'COULD_NOT_VALIDATE', 'fingerprint');
      assertError(
        await create(consoleBody({ jwksEndpoint: 'https://idp.example/jwks', kid: first.kid })),
        400,
        'COULD_NOT_VALIDATE',
        'kid',
      );
      const sameIssuer = await create(consoleBody({ jwksEndpoint: 'https://idp.example/jwks', issuer: first.issuer }));
      assertError(sameIssuer, 400, 'COULD_NOT_VALIDATE', 'issuer');
      assert.match(String(causeOf(sameIssuer)?.reason), /duplicate value/);
      assertError(
        await create(consoleBody({ jwksEndpoint: 'https://idp.example/jwks', name: first.name })),
        400,
        'COULD_NOT_VALIDATE',
        'name',
      );
      // The name is checked first, as upstream's manager does: a copy of a signer is refused on its name.
      const copy = await create(
        consoleBody({ jwksEndpoint: 'https://idp.example/jwks', name: first.name, issuer: first.issuer }),
      );
      assertError(copy, 400, 'COULD_NOT_VALIDATE', 'name');
      assert.equal(causeOf(copy)?.reason, 'name is must be unique');
      // Blank kids are no kid: two signers without one do not collide.
      await createEntity(
        t,
        admin,
        'external-jwt-signers',
        consoleBody({ jwksEndpoint: 'https://idp.example/a', kid: '' }),
      );
      await createEntity(
        t,
        admin,
        'external-jwt-signers',
        consoleBody({ jwksEndpoint: 'https://idp.example/b', kid: '' }),
      );
    });
  });

  describe('update and patch', () => {
    it('replaces every field with PUT and re-derives the certificate details', async () => {
      const id = await createEntity(
        t,
        admin,
        'external-jwt-signers',
        consoleBody({ jwksEndpoint: 'https://idp.example/jwks' }),
      );
      const other = await newSigningKey('RS256', t.clock());
      const put = await t.call({
        method: 'PUT',
        url: `${BASE}/${id}`,
        token: admin,
        payload: consoleBody({ certPem: other.certPem, enabled: false, useExternalId: true, claimsProperty: 'email' }),
      });
      assert.equal(put.status, 200, put.text);
      const signer = await detailOf(id);
      assert.deepEqual(
        [signer.jwksEndpoint, signer.enabled, signer.useExternalId, signer.claimsProperty],
        [null, false, true, 'email'],
      );
      assert.equal(signer.commonName, `test-issuer-${other.kid}`);
    });

    it('patches only the fields present, false included', async () => {
      const id = await createEntity(
        t,
        admin,
        'external-jwt-signers',
        consoleBody({ jwksEndpoint: 'https://idp.example/jwks', useExternalId: true }),
      );
      const before = await detailOf(id);
      assert.equal(
        (await t.call({ method: 'PATCH', url: `${BASE}/${id}`, token: admin, payload: { enabled: false, name: null } }))
          .status,
        200,
      );
      const after = await detailOf(id);
      assert.deepEqual(
        [after.enabled, after.name, after.useExternalId, after.issuer],
        [false, before.name, true, before.issuer],
      );
      assertError(
        await t.call({ method: 'PATCH', url: `${BASE}/${id}`, token: admin, payload: { certPem: key.certPem } }),
        400,
        'COULD_NOT_VALIDATE',
        'jwksEndpoint',
      );
      assertError(
        await t.call({ method: 'PATCH', url: `${BASE}/nope`, token: admin, payload: { enabled: true } }),
        404,
        'NOT_FOUND',
      );
    });
  });

  describe('client list', () => {
    it('shows anyone the enabled signers, with only their public fields', async () => {
      const enabled = consoleBody({
        jwksEndpoint: 'https://idp.example/jwks',
        externalAuthUrl: 'https://login.example/',
        clientId: 'cid',
        scopes: ['openid'],
      });
      const enabledId = await createEntity(t, admin, 'external-jwt-signers', enabled);
      const disabledId = await createEntity(
        t,
        admin,
        'external-jwt-signers',
        consoleBody({ jwksEndpoint: 'https://idp.example/jwks', enabled: false }),
      );
      const listed = await t.call({ method: 'GET', url: `${CLIENT}?limit=500` });
      assert.equal(listed.status, 200, listed.text);
      const signers = dataOf<Signer[]>(listed);
      const mine = signers.find((signer) => signer.id === enabledId)!;
      assert.deepEqual(Object.keys(mine).sort(), [
        '_links',
        'clientId',
        'createdAt',
        'externalAuthUrl',
        'id',
        'name',
        'scopes',
        'tags',
        'updatedAt',
      ]);
      assert.deepEqual(
        [mine.name, mine.externalAuthUrl, mine.clientId, mine.scopes],
        [enabled.name, 'https://login.example/', 'cid', ['openid']],
      );
      assert.ok(!signers.some((signer) => signer.id === disabledId));
      // Filters see only the public fields.
      assertError(
        await t.call({ method: 'GET', url: `${CLIENT}?filter=${encodeURIComponent('issuer = "x"')}` }),
        400,
        'INVALID_FILTER',
      );
      const byName = await t.call({
        method: 'GET',
        url: `${CLIENT}?filter=${encodeURIComponent(`name = "${enabled.name}"`)}`,
      });
      assert.deepEqual(
        dataOf<Signer[]>(byName).map((signer) => signer.id),
        [enabledId],
      );
    });

    it('keeps the management list admin-only', async () => {
      assertError(await t.call({ method: 'GET', url: BASE }), 401, 'UNAUTHORIZED');
      const user = await createUser(t, admin);
      assertError(
        await t.call({ method: 'GET', url: BASE, token: await login(t, user.username, user.password, 'management') }),
        401,
        'UNAUTHORIZED',
      );
    });
  });

  describe('delete', () => {
    it('refuses while an auth policy allows or requires the signer, then deletes', async () => {
      const allowedId = await createEntity(
        t,
        admin,
        'external-jwt-signers',
        consoleBody({ jwksEndpoint: 'https://idp.example/jwks' }),
      );
      const requiredId = await createEntity(
        t,
        admin,
        'external-jwt-signers',
        consoleBody({ jwksEndpoint: 'https://idp.example/jwks' }),
      );
      const policyId = await createAuthPolicy(t, admin, {
        extJwt: { allowedSigners: [allowedId] },
        secondary: { requireExtJwtSigner: requiredId },
      });
      const policy = dataOf<{
        primary: { extJwt: { allowedSigners: string[] } };
        secondary: { requireExtJwtSigner: string };
      }>(await t.call({ method: 'GET', url: `${POLICIES}/${policyId}`, token: admin }));
      assert.deepEqual(
        [policy.primary.extJwt.allowedSigners, policy.secondary.requireExtJwtSigner],
        [[allowedId], requiredId],
      );

      // In upstream's words: every policy linking it as allowed, or the first requiring it (a foreign key).
      const byLink = await t.call({ method: 'DELETE', url: `${BASE}/${allowedId}`, token: admin });
      assertError(byLink, 409, 'CAN_NOT_DELETE_REFERENCED_ENTITY', 'primary.extJwt.allowedSigners');
      assert.equal(causeOf(byLink)?.reason, `entity type externalJwtSigners referenced by authPolicies: [${policyId}]`);
      const byKey = await t.call({ method: 'DELETE', url: `${BASE}/${requiredId}`, token: admin });
      assertError(byKey, 409, 'CAN_NOT_DELETE_REFERENCED_ENTITY', 'secondary.requireExtJwtSigner');
      assert.equal(causeOf(byKey)?.reason, `entity type externalJwtSigner referenced by authPolicy: [${policyId}]`);
      const patched = await t.call({
        method: 'PATCH',
        url: `${POLICIES}/${policyId}`,
        token: admin,
        payload: { primary: { extJwt: { allowedSigners: [] } } },
      });
      assert.equal(patched.status, 200, patched.text);
      assert.equal((await t.call({ method: 'DELETE', url: `${BASE}/${allowedId}`, token: admin })).status, 200);
      assertError(await get(allowedId), 404, 'NOT_FOUND');
      assertError(await t.call({ method: 'DELETE', url: `${BASE}/${allowedId}`, token: admin }), 404, 'NOT_FOUND');
      assertError(
        await t.call({ method: 'DELETE', url: `${BASE}/${requiredId}`, token: admin }),
        409,
        'CAN_NOT_DELETE_REFERENCED_ENTITY',
      );
    });

    it('lets auth policies name only signers that exist', async () => {
      const signerId = await createEntity(
        t,
        admin,
        'external-jwt-signers',
        consoleBody({ jwksEndpoint: 'https://idp.example/jwks' }),
      );
      const body = authPolicyBody({ extJwt: { allowedSigners: [signerId, 'missing'] } });
      assertError(
        await t.call({ method: 'POST', url: POLICIES, token: admin, payload: body }),
        404,
        'NOT_FOUND',
        'primary.extJwt.allowedSigners[1]',
      );
    });
  });
});
