import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createHash, X509Certificate } from 'node:crypto';
import { decodeProtectedHeader, importX509, jwtVerify } from 'jose';
import { buildTestApp, type TestApp } from '../../support/test-app.js';
import { assertError } from '../../support/conformance.js';
import { createIdentity } from '../../support/factories.js';
import { createTestCa, issueTestCertificate, type TestCa } from '../../support/third-party-ca.js';
import { MANAGEMENT as base } from '../../support/api-paths.js';

let counter = 0;
const uniqueName = (prefix: string) => `${prefix}-${++counter}`;

describe('certificate authorities', () => {
  let t: TestApp;
  let token: string;

  before(async () => {
    t = await buildTestApp();
    token = await t.loginAsAdmin();
  });
  after(() => t.close());

  const caBody = (testCa: TestCa, extra: Record<string, unknown> = {}) => ({
    name: uniqueName('ca'),
    certPem: testCa.certPem,
    isAutoCaEnrollmentEnabled: false,
    isOttCaEnrollmentEnabled: true,
    isAuthEnabled: true,
    identityRoles: [],
    ...extra,
  });

  async function createCa(extra: Record<string, unknown> = {}): Promise<{ id: string; testCa: TestCa }> {
    const testCa = await createTestCa(uniqueName('Test CA'), t.clock());
    const result = await t.call({ method: 'POST', url: `${base}/cas`, token, payload: caBody(testCa, extra) });
    assert.equal(result.status, 201, result.text);
    return { id: (result.body as { data: { id: string } }).data.id, testCa };
  }

  const detail = async (id: string) => {
    const result = await t.call({ method: 'GET', url: `${base}/cas/${id}`, token });
    assert.equal(result.status, 200, result.text);
    return (result.body as { data: Record<string, unknown> }).data;
  };

  const verify = (id: string, pem: string) =>
    t.call({
      method: 'POST',
      url: `${base}/cas/${id}/verify`,
      token,
      headers: { 'content-type': 'text/plain' },
      payload: pem,
    });

  describe('createCa', () => {
    it('stores an unverified CA with its fingerprint, a verification token and upstream defaults', async () => {
      const { id, testCa } = await createCa({ identityRoles: ['b', 'a'] });
      const ca = await detail(id);
      const fingerprint = createHash('sha1').update(new X509Certificate(testCa.certPem).raw).digest('hex');
      assert.equal(ca.fingerprint, fingerprint);
      assert.equal(ca.isVerified, false);
      assert.match(String(ca.verificationToken), /^[0-9A-Za-z.-]{10}$/);
      assert.equal(ca.identityNameFormat, '[caName]-[commonName]');
      assert.deepEqual(ca.identityRoles, ['a', 'b']);
      assert.equal(ca.externalIdClaim, undefined);
      assert.equal(ca.certPem, testCa.certPem);
      const links = ca._links as Record<string, { href: string }>;
      assert.equal(links.verify?.href, `./cas/${id}/verify`);
      assert.equal(links.jwt, undefined, 'no jwt link without auto-enrollment');
    });

    it('renders an empty identityRoles as an array and links the JWT when auto-enrollment is on', async () => {
      const { id } = await createCa({ isAutoCaEnrollmentEnabled: true });
      const ca = await detail(id);
      assert.deepEqual(ca.identityRoles, []);
      assert.equal((ca._links as Record<string, { href: string }>).jwt?.href, `./cas/${id}/jwt`);
    });

    it('keeps an external-id claim', async () => {
      const claim = {
        location: 'SAN_URI',
        matcher: 'SCHEME',
        matcherCriteria: 'spiffe',
        parser: 'NONE',
        parserCriteria: '',
        index: 0,
      };
      const { id } = await createCa({ externalIdClaim: claim, identityNameFormat: '[requestedName]' });
      const ca = await detail(id);
      assert.deepEqual(ca.externalIdClaim, claim);
      assert.equal(ca.identityNameFormat, '[requestedName]');
    });

    it('refuses a certificate that is not a CA with 400 CERTIFICATE_IS_NOT_CA', async () => {
      const testCa = await createTestCa('issuer', t.clock());
      const leaf = await issueTestCertificate(testCa, { commonName: 'leaf', now: t.clock() });
      const result = await t.call({
        method: 'POST',
        url: `${base}/cas`,
        token,
        payload: { ...caBody(testCa), certPem: leaf.certPem },
      });
      assertError(result, 400, 'CERTIFICATE_IS_NOT_CA');
    });

    it("refuses a certPem without certificates and a CA certificate used twice, in upstream's words", async () => {
      const other = await createTestCa('x', t.clock());
      const reasonFor = async (certPem: string) => {
        const result = await t.call({
          method: 'POST',
          url: `${base}/cas`,
          token,
          payload: { ...caBody(other), certPem },
        });
        assertError(result, 400, 'COULD_NOT_VALIDATE', 'certPem');
        return (result.body as { error: { cause: { reason: string; value: string } } }).error.cause;
      };
      assert.equal((await reasonFor('not a pem')).reason, 'could not parse block #1');
      assert.equal((await reasonFor(`${other.certPem}trailing text`)).reason, 'could not parse block #2');
      const key = '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n';
      assert.equal((await reasonFor(`${other.certPem}${key}`)).reason, 'block #2 is not a certificate');
      assert.equal(
        (await reasonFor('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n')).reason,
        'could not parse block #1 as an x509 certificate',
      );
      const { testCa } = await createCa();
      const again = await t.call({ method: 'POST', url: `${base}/cas`, token, payload: caBody(testCa) });
      assertError(again, 400, 'COULD_NOT_VALIDATE', 'certPem');
      const cause = (again.body as { error: { cause: { reason: string; value: string } } }).error.cause;
      assert.match(cause.reason, /^certificate already used as CA /);
      assert.equal(cause.value, testCa.certPem, 'the value is the PEM sent, as upstream shows it');
      // The CA's own checks come before the name's, as in upstream's manager: a copy is refused on its certificate.
      const { id } = await createCa();
      const original = await detail(id);
      const copy = await t.call({
        method: 'POST',
        url: `${base}/cas`,
        token,
        payload: { ...caBody(testCa), name: original.name, certPem: original.certPem },
      });
      assertError(copy, 400, 'COULD_NOT_VALIDATE', 'certPem');
    });

    it('refuses a duplicate name and the SCHEME matcher outside SAN_URI', async () => {
      const first = await createCa();
      const name = (await detail(first.id)).name;
      const duplicate = await t.call({
        method: 'POST',
        url: `${base}/cas`,
        token,
        payload: caBody(await createTestCa('y', t.clock()), { name }),
      });
      assertError(duplicate, 400, 'COULD_NOT_VALIDATE', 'name');
      const claim = {
        location: 'COMMON_NAME',
        matcher: 'SCHEME',
        matcherCriteria: 'x',
        parser: 'NONE',
        parserCriteria: '',
        index: 0,
      };
      const scheme = await t.call({
        method: 'POST',
        url: `${base}/cas`,
        token,
        payload: caBody(await createTestCa('z', t.clock()), { externalIdClaim: claim }),
      });
      assertError(scheme, 400, 'COULD_NOT_VALIDATE', 'externalIdClaim.matcher');
    });
  });

  describe('verifyCa', () => {
    it('refuses a wrong common name, another CA’s certificate and bodies that are not certificates', async () => {
      const { id, testCa } = await createCa();
      const verificationToken = String((await detail(id)).verificationToken);
      const wrongName = await issueTestCertificate(testCa, { commonName: 'not-the-token', now: t.clock() });
      assertError(await verify(id, wrongName.certPem), 400, 'INVALID_COMMON_NAME');
      const other = await createTestCa('impostor', t.clock());
      const forged = await issueTestCertificate(other, { commonName: verificationToken, now: t.clock() });
      assertError(await verify(id, forged.certPem), 400, 'CERTIFICATE_FAILED_VALIDATION');
      const notPem = await verify(id, 'hello');
      assertError(notPem, 400, 'COULD_NOT_PARSE_BODY');
      assert.equal((notPem.body as { error: { cause?: unknown } }).error.cause, undefined, 'upstream gives no cause');
      assertError(await verify(id, wrongName.keyPem), 400, 'EXPECTED_PEM_CERTIFICATE');
      assert.equal((await detail(id)).isVerified, false);
    });

    it('refuses a certificate outside its validity window', async () => {
      const { id, testCa } = await createCa();
      const verificationToken = String((await detail(id)).verificationToken);
      const now = t.clock().getTime();
      const expired = await issueTestCertificate(testCa, {
        commonName: verificationToken,
        now: t.clock(),
        notBefore: new Date(now - 10 * 86_400_000),
        notAfter: new Date(now - 86_400_000),
      });
      assertError(await verify(id, expired.certPem), 400, 'CERTIFICATE_FAILED_VALIDATION');
    });

    it('verifies with a certificate the CA issued to the verification token, once', async () => {
      const { id, testCa } = await createCa();
      const verificationToken = String((await detail(id)).verificationToken);
      const proof = await issueTestCertificate(testCa, { commonName: verificationToken, now: t.clock() });
      const result = await verify(id, proof.certPem);
      assert.equal(result.status, 200, result.text);
      assert.deepEqual((result.body as { data: unknown }).data, {});
      const ca = await detail(id);
      assert.equal(ca.isVerified, true);
      assert.equal(ca.verificationToken, verificationToken, 'the token is still shown after verification');
      assert.equal((ca._links as Record<string, unknown>).verify, undefined);
      assertError(await verify(id, proof.certPem), 409, 'CA_ALREADY_VERIFIED');
    });

    it('answers 404 for an unknown CA', async () => {
      assertError(await verify('missing', 'x'), 404, 'NOT_FOUND');
    });
  });

  describe('getCaJwt', () => {
    it('is signed by the controller’s TLS key, never expires and names the CA', async () => {
      const { id } = await createCa({ isAutoCaEnrollmentEnabled: true });
      const result = await t.call({ method: 'GET', url: `${base}/cas/${id}/jwt`, token });
      assert.equal(result.status, 200, result.text);
      assert.equal(result.headers['content-type'], 'application/jwt');
      const header = decodeProtectedHeader(result.text);
      assert.deepEqual(header, { alg: 'ES256', kid: t.deps.pki.serverCertFingerprint, typ: 'JWT' });
      const key = await importX509(t.deps.pki.serverCertPem, 'ES256');
      const { payload } = await jwtVerify(result.text, key);
      assert.deepEqual(payload, { iss: 'https://localhost:1280/', sub: id, jti: id, em: 'ca', ctrls: null });
      assert.deepEqual(Object.keys(payload), ['iss', 'sub', 'jti', 'em', 'ctrls']);
    });

    it('answers 404 for an unknown CA', async () => {
      assertError(await t.call({ method: 'GET', url: `${base}/cas/missing/jwt`, token }), 404, 'NOT_FOUND');
    });
  });

  describe('updateCa and patchCa', () => {
    it('replaces the writable fields but never the certificate or the verification state', async () => {
      const { id } = await createCa();
      const before = await detail(id);
      const body = {
        name: uniqueName('renamed'),
        isAutoCaEnrollmentEnabled: true,
        isOttCaEnrollmentEnabled: false,
        isAuthEnabled: false,
        identityRoles: ['x'],
        identityNameFormat: '[caId]-[identityId]',
        isVerified: true,
      };
      const result = await t.call({ method: 'PUT', url: `${base}/cas/${id}`, token, payload: body });
      assert.equal(result.status, 200, result.text);
      const ca = await detail(id);
      assert.equal(ca.name, body.name);
      assert.equal(ca.isAuthEnabled, false);
      assert.equal(ca.isAutoCaEnrollmentEnabled, true);
      assert.deepEqual(ca.identityRoles, ['x']);
      assert.equal(ca.identityNameFormat, '[caId]-[identityId]');
      assert.equal(ca.isVerified, false);
      assert.equal(ca.certPem, before.certPem);
      assert.equal(ca.fingerprint, before.fingerprint);
    });

    it('patches only the fields given, merging the fields of an external-id claim', async () => {
      const claim = {
        location: 'SAN_EMAIL',
        matcher: 'SUFFIX',
        matcherCriteria: '@example.com',
        parser: 'NONE',
        parserCriteria: '',
        index: 0,
      };
      const { id } = await createCa({ externalIdClaim: claim, identityRoles: ['keep'] });
      const result = await t.call({
        method: 'PATCH',
        url: `${base}/cas/${id}`,
        token,
        payload: { isAuthEnabled: false, externalIdClaim: { index: 1 } },
      });
      assert.equal(result.status, 200, result.text);
      const ca = await detail(id);
      assert.equal(ca.isAuthEnabled, false);
      assert.equal(ca.isOttCaEnrollmentEnabled, true);
      assert.deepEqual(ca.identityRoles, ['keep']);
      assert.deepEqual(ca.externalIdClaim, { ...claim, index: 1 });
    });
  });

  describe('listCas', () => {
    it('filters by name and verification state, not by identity roles (as upstream)', async () => {
      const { id } = await createCa({ name: 'filter-me', identityRoles: ['filter-me'] });
      const byName = await t.call({
        method: 'GET',
        url: `${base}/cas?filter=${encodeURIComponent('name = "filter-me"')}`,
        token,
      });
      assert.equal(byName.status, 200, byName.text);
      assert.deepEqual(
        (byName.body as { data: { id: string }[] }).data.map((ca) => ca.id),
        [id],
      );
      const verified = await t.call({
        method: 'GET',
        url: `${base}/cas?filter=${encodeURIComponent('isVerified = true')}`,
        token,
      });
      assert.ok(!(verified.body as { data: { id: string }[] }).data.some((ca) => ca.id === id));
      const byRole = await t.call({
        method: 'GET',
        url: `${base}/cas?filter=${encodeURIComponent('anyOf(identityRoles) = "filter-me"')}`,
        token,
      });
      assertError(byRole, 400, 'INVALID_FILTER');
      const meta = (byName.body as { meta: { filterableFields: string[] } }).meta;
      for (const symbol of ['name', 'fingerprint', 'isVerified', 'verificationToken', 'isAuthEnabled'])
        assert.ok(meta.filterableFields.includes(symbol), symbol);
      for (const symbol of ['certPem', 'identityRoles']) assert.ok(!meta.filterableFields.includes(symbol), symbol);
    });

    it('is admin-only', async () => {
      assertError(await t.call({ method: 'GET', url: `${base}/cas` }), 401, 'UNAUTHORIZED');
    });
  });

  describe('deleteCa', () => {
    it('deletes the CA and the ottca enrollments that reference it, not the identities', async () => {
      const { id } = await createCa();
      const identityId = await createIdentity(t, token, { enrollment: { ottca: id } });
      const identityBefore = await t.call({ method: 'GET', url: `${base}/identities/${identityId}`, token });
      assert.ok(
        (identityBefore.body as { data: { enrollment: { ottca?: unknown } } }).data.enrollment.ottca,
        identityBefore.text,
      );
      const result = await t.call({ method: 'DELETE', url: `${base}/cas/${id}`, token });
      assert.equal(result.status, 200, result.text);
      assertError(await t.call({ method: 'GET', url: `${base}/cas/${id}`, token }), 404, 'NOT_FOUND');
      const identityAfter = await t.call({ method: 'GET', url: `${base}/identities/${identityId}`, token });
      assert.equal(identityAfter.status, 200, identityAfter.text);
      assert.deepEqual((identityAfter.body as { data: { enrollment: unknown } }).data.enrollment, {});
      assertError(await t.call({ method: 'DELETE', url: `${base}/cas/${id}`, token }), 404, 'NOT_FOUND');
    });
  });

  it('counts CAs in the summary', async () => {
    const result = await t.call({ method: 'GET', url: `${base}/summary`, token });
    const listed = await t.call({ method: 'GET', url: `${base}/cas?limit=1`, token });
    const total = (listed.body as { meta: { pagination: { totalCount: number } } }).meta.pagination.totalCount;
    assert.equal((result.body as { data: { cas: number } }).data.cas, total);
  });
});
