import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createHash, X509Certificate } from 'node:crypto';
import { SubjectAlternativeNameExtension, X509Certificate as ParsedCertificate } from '@peculiar/x509';
import { buildTlsTestApp, type TlsTestApp } from '../../support/tls-client.js';
import { assertError } from '../../support/conformance.js';
import { createEntity, createIdentity, createService, createUser, login } from '../../support/factories.js';
import {
  assertTlsError,
  createCsr,
  createIntermediateCa,
  createTestCa,
  httpsChecked,
  issueTestCertificate,
  type KeyAndCert,
  type TestCa,
} from '../../support/third-party-ca.js';
import { lifetimes, signCsr } from '../../../src/pki/sign-csr.js';
import { CLIENT as client, MANAGEMENT as management } from '../../support/api-paths.js';

const day = 86_400_000;
let counter = 0;
const uniqueName = (prefix: string) => `${prefix}-${++counter}`;
const fingerprintOf = (pem: string) => createHash('sha1').update(new X509Certificate(pem).raw).digest('hex');

describe('third-party CAs, certificate enrollment and certificate login over TLS', () => {
  let t: TlsTestApp;
  let admin: string;

  before(async () => {
    t = await buildTlsTestApp();
    admin = await t.loginAsAdmin();
  });
  after(() => t.close());

  interface RegisteredCa {
    id: string;
    name: string;
    testCa: TestCa;
  }

  async function registerCa(
    options: { verified?: boolean; body?: Record<string, unknown> } = {},
  ): Promise<RegisteredCa> {
    const testCa = await createTestCa(uniqueName('Operator CA'), t.clock());
    const name = uniqueName('ca');
    const body = {
      name,
      certPem: testCa.certPem,
      isAutoCaEnrollmentEnabled: true,
      isOttCaEnrollmentEnabled: true,
      isAuthEnabled: true,
      identityRoles: ['from-ca'],
      ...options.body,
    };
    const id = await createEntity(t, admin, 'cas', body);
    if (options.verified ?? true) {
      const detail = await t.call({ method: 'GET', url: `${management}/cas/${id}`, token: admin });
      const proof = await issueTestCertificate(testCa, {
        commonName: (detail.body as { data: { verificationToken: string } }).data.verificationToken,
        now: t.clock(),
      });
      const verified = await t.call({
        method: 'POST',
        url: `${management}/cas/${id}/verify`,
        token: admin,
        headers: { 'content-type': 'text/plain' },
        payload: proof.certPem,
      });
      assert.equal(verified.status, 200, verified.text);
    }
    return { id, name, testCa };
  }

  const certLogin = (certificate: KeyAndCert | undefined, api: 'client' | 'management' = 'client') =>
    httpsChecked(t, {
      method: 'POST',
      path: `/edge/${api}/v1/authenticate?method=cert`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sdkInfo: { type: 'ziti-sdk-test', version: '1.0.0' } }),
      ...(certificate ? { cert: certificate.certPem, key: certificate.keyPem } : {}),
    });

  const sessionOf = (result: { json: unknown }) =>
    (result.json as { data: { token: string; authenticatorId: string; identityId: string } }).data;

  async function ottcaEnrollment(caId: string): Promise<{ identityId: string; token: string }> {
    const identityId = await createIdentity(t, admin, { enrollment: { ottca: caId } });
    const detail = await t.call({ method: 'GET', url: `${management}/identities/${identityId}`, token: admin });
    const enrollment = (detail.body as { data: { enrollment: { ottca: { token: string } } } }).data.enrollment;
    return { identityId, token: enrollment.ottca.token };
  }

  const enroll = (query: string, certificate: KeyAndCert | undefined, body?: Record<string, unknown>) =>
    httpsChecked(t, {
      method: 'POST',
      path: `${client}/enroll?${query}`,
      headers: { 'content-type': body ? 'application/json' : 'text/plain' },
      body: body ? JSON.stringify(body) : '',
      ...(certificate ? { cert: certificate.certPem, key: certificate.keyPem } : {}),
    });

  async function identityDetail(id: string): Promise<Record<string, unknown>> {
    const result = await t.call({ method: 'GET', url: `${management}/identities/${id}`, token: admin });
    assert.equal(result.status, 200, result.text);
    return (result.body as { data: Record<string, unknown> }).data;
  }

  /** A controller-issued certificate bound to a new identity through POST /authenticators. */
  async function controllerCertificate(
    options: { issuedAt?: Date; keyType?: 'ec' | 'rsa'; identityBody?: Record<string, unknown> } = {},
  ) {
    const identityId = await createIdentity(t, admin, options.identityBody);
    const csr = await createCsr(identityId, options.keyType ?? 'rsa', [
      { type: 'dns', value: `${identityId.toLowerCase().replace(/[^a-z0-9]/g, 'x')}.example` },
    ]);
    const issued = await signCsr(t.deps.pki, csr.csrPem, {
      use: 'client',
      now: options.issuedAt ?? t.clock(),
      lifetimeMs: lifetimes.year,
      keepAltNames: true,
      backdate: true,
    });
    const authenticatorId = await createEntity(t, admin, 'authenticators', {
      method: 'cert',
      identityId,
      certPem: issued.certPem,
    });
    return { identityId, authenticatorId, certificate: { certPem: issued.certPem, keyPem: csr.keyPem } };
  }

  describe('ottca enrollment', () => {
    it('binds a certificate from the enrollment’s CA to the identity, once', async () => {
      const ca = await registerCa();
      const { identityId, token } = await ottcaEnrollment(ca.id);
      const leaf = await issueTestCertificate(ca.testCa, { commonName: 'ottca-device', now: t.clock() });
      const result = await enroll(`method=ottca&token=${token}`, leaf);
      assert.equal(result.status, 200, result.text);
      assert.deepEqual((result.json as { data: unknown }).data, {});
      const identity = await identityDetail(identityId);
      assert.equal(
        (identity.authenticators as { cert?: { fingerprint: string } }).cert?.fingerprint,
        fingerprintOf(leaf.certPem),
      );
      assert.deepEqual(identity.enrollment, {});
      assertTlsError(await enroll(`method=ottca&token=${token}`, leaf), 400, 'INVALID_ENROLLMENT_TOKEN');

      const session = await certLogin(leaf);
      assert.equal(session.status, 200, session.text);
      assert.equal(sessionOf(session).identityId, identityId);
    });

    it('refuses a certificate from another CA, no certificate, and a certificate already bound', async () => {
      const ca = await registerCa();
      const other = await createTestCa('someone else', t.clock());
      const { token } = await ottcaEnrollment(ca.id);
      assertTlsError(
        await enroll(
          `method=ottca&token=${token}`,
          await issueTestCertificate(other, { commonName: 'x', now: t.clock() }),
        ),
        400,
        'CERT_FAILED_VALIDATION',
      );
      assertTlsError(await enroll(`method=ottca&token=${token}`, undefined), 400, 'CERT_FAILED_VALIDATION');
      const serverOnly = await issueTestCertificate(ca.testCa, {
        commonName: 'server',
        now: t.clock(),
        usage: 'server',
      });
      assertTlsError(await enroll(`method=ottca&token=${token}`, serverOnly), 400, 'CERT_FAILED_VALIDATION');

      const leaf = await issueTestCertificate(ca.testCa, { commonName: 'shared', now: t.clock() });
      assert.equal((await enroll(`method=ottca&token=${token}`, leaf)).status, 200);
      const second = await ottcaEnrollment(ca.id);
      assertTlsError(await enroll(`method=ottca&token=${second.token}`, leaf), 409, 'CERT_IN_USE');
    });

    it('refuses an unverified CA (upstream accepts it, quirk Q13) and one with ottca disabled', async () => {
      const unverified = await registerCa({ verified: false });
      const { token } = await ottcaEnrollment(unverified.id);
      const leaf = await issueTestCertificate(unverified.testCa, { commonName: 'early', now: t.clock() });
      assertTlsError(await enroll(`method=ottca&token=${token}`, leaf), 400, 'ENROLLMENT_CA_NOT_VALID');

      const disabled = await registerCa({ body: { isOttCaEnrollmentEnabled: false } });
      const enrollment = await ottcaEnrollment(disabled.id);
      const disabledLeaf = await issueTestCertificate(disabled.testCa, { commonName: 'late', now: t.clock() });
      assertTlsError(
        await enroll(`method=ottca&token=${enrollment.token}`, disabledLeaf),
        400,
        'ENROLLMENT_CA_NOT_VALID',
      );
    });
  });

  describe('CA auto-enrollment', () => {
    it('creates an identity named by the CA’s format with the CA’s roles and a cert authenticator', async () => {
      const ca = await registerCa({ body: { identityRoles: ['auto', 'from-ca'] } });
      const leaf = await issueTestCertificate(ca.testCa, { commonName: 'sensor-1', now: t.clock(), keyType: 'rsa' });
      const result = await enroll('method=ca', leaf, { name: 'ignored by this format' });
      assert.equal(result.status, 200, result.text);
      const listed = await t.call({
        method: 'GET',
        url: `${management}/identities?filter=${encodeURIComponent(`name = "${ca.name}-sensor-1"`)}`,
        token: admin,
      });
      const [identity] = (listed.body as { data: Record<string, unknown>[] }).data;
      assert.ok(identity, listed.text);
      assert.deepEqual(identity.roleAttributes, ['auto', 'from-ca']);
      assert.equal((identity.type as { id: string }).id, 'Default');
      assert.equal(identity.isAdmin, false);
      assert.equal(
        (identity.authenticators as { cert?: { fingerprint: string } }).cert?.fingerprint,
        fingerprintOf(leaf.certPem),
      );

      assertTlsError(await enroll('method=ca', leaf), 409, 'CERT_IN_USE');
      const sameName = await issueTestCertificate(ca.testCa, { commonName: 'sensor-1', now: t.clock() });
      assert.equal((await enroll('method=ca', sameName)).status, 200);
      const suffixed = await t.call({
        method: 'GET',
        url: `${management}/identities?filter=${encodeURIComponent(`name = "${ca.name}-sensor-1000001"`)}`,
        token: admin,
      });
      assert.equal((suffixed.body as { data: unknown[] }).data.length, 1, 'a taken name gets a six-digit counter');

      const session = await certLogin(leaf);
      assert.equal(session.status, 200, session.text);
      assert.equal(sessionOf(session).identityId, identity.id);
    });

    it('uses the requested name and a presented intermediate through /enroll/ca', async () => {
      const ca = await registerCa({ body: { identityNameFormat: '[requestedName]-via-[caName]' } });
      const intermediate = await createIntermediateCa(ca.testCa, 'Operator Issuing CA', t.clock());
      const leaf = await issueTestCertificate(intermediate, { commonName: 'chained', now: t.clock() });
      const chained = { certPem: `${leaf.certPem}${intermediate.certPem}`, keyPem: leaf.keyPem };
      const result = await enroll('method=ca', chained, { name: 'laptop' });
      assert.equal(result.status, 200, result.text);
      const listed = await t.call({
        method: 'GET',
        url: `${management}/identities?filter=${encodeURIComponent(`name = "laptop-via-${ca.name}"`)}`,
        token: admin,
      });
      assert.equal((listed.body as { data: unknown[] }).data.length, 1, listed.text);
      assertTlsError(await enroll('method=ca', leaf), 400, 'CERT_FAILED_VALIDATION');
      assert.equal((await certLogin(chained)).status, 200, 'the chain logs in too');

      const perRoute = await issueTestCertificate(intermediate, { commonName: 'per-route', now: t.clock() });
      const viaRoute = await httpsChecked(t, {
        method: 'POST',
        path: `${client}/enroll/ca`,
        headers: { 'content-type': 'application/json' },
        body: '{}',
        cert: `${perRoute.certPem}${intermediate.certPem}`,
        key: perRoute.keyPem,
      });
      assert.equal(viaRoute.status, 200, viaRoute.text);
    });

    it('maps an external-id claim to the identity, so a rotated certificate logs in as the same identity', async () => {
      const claim = {
        location: 'SAN_URI',
        matcher: 'PREFIX',
        matcherCriteria: 'spiffe://example.org/',
        parser: 'NONE',
        parserCriteria: '',
        index: 0,
      };
      const ca = await registerCa({ body: { externalIdClaim: claim } });
      const uri = (path: string) => [{ type: 'url' as const, value: `spiffe://example.org/${path}` }];
      const first = await issueTestCertificate(ca.testCa, {
        commonName: 'workload',
        now: t.clock(),
        altNames: uri('workload/7'),
      });
      const result = await enroll('method=ca', first);
      assert.equal(result.status, 200, result.text);
      const listed = await t.call({
        method: 'GET',
        url: `${management}/identities?filter=${encodeURIComponent('externalId = "workload/7"')}`,
        token: admin,
      });
      const [identity] = (listed.body as { data: Record<string, unknown>[] }).data;
      assert.ok(identity, listed.text);
      assert.deepEqual(identity.authenticators, {}, 'no authenticator: the claim identifies it');
      assertTlsError(await enroll('method=ca', first), 409, 'CERT_IN_USE');

      const rotated = await issueTestCertificate(ca.testCa, {
        commonName: 'workload',
        now: t.clock(),
        altNames: uri('workload/7'),
      });
      const session = await certLogin(rotated);
      assert.equal(session.status, 200, session.text);
      assert.equal(sessionOf(session).identityId, identity.id);
      assert.equal(sessionOf(session).authenticatorId, 'internal');

      const unclaimed = await issueTestCertificate(ca.testCa, { commonName: 'no-uri', now: t.clock() });
      assertTlsError(await enroll('method=ca', unclaimed), 400, 'MISSING_CERT_CLAIM');
      const stranger = await issueTestCertificate(ca.testCa, {
        commonName: 'x',
        now: t.clock(),
        altNames: uri('workload/8'),
      });
      assertTlsError(await certLogin(stranger), 401, 'INVALID_AUTH');
    });

    it('refuses unverified CAs and certificates no CA issued', async () => {
      const unverified = await registerCa({ verified: false });
      assertTlsError(
        await enroll(
          'method=ca',
          await issueTestCertificate(unverified.testCa, { commonName: 'early', now: t.clock() }),
        ),
        400,
        'CERT_FAILED_VALIDATION',
      );
      const unknown = await createTestCa('unknown', t.clock());
      assertTlsError(
        await enroll('method=ca', await issueTestCertificate(unknown, { commonName: 'x', now: t.clock() })),
        400,
        'CERT_FAILED_VALIDATION',
      );
      assertTlsError(await enroll('method=ca', undefined), 400, 'CERT_FAILED_VALIDATION');
    });
  });

  describe('certificate login', () => {
    it('logs a controller-issued certificate in on both APIs and lists the identity’s services', async () => {
      const { identityId, authenticatorId, certificate } = await controllerCertificate({
        identityBody: { roleAttributes: ['cert-users'] },
      });
      const serviceId = await createService(t, admin);
      await createEntity(t, admin, 'service-policies', {
        name: uniqueName('dial'),
        type: 'Dial',
        semantic: 'AnyOf',
        identityRoles: ['#cert-users'],
        serviceRoles: [`@${serviceId}`],
      });

      const result = await certLogin(certificate);
      assert.equal(result.status, 200, result.text);
      const session = sessionOf(result);
      assert.equal(session.identityId, identityId);
      assert.equal(session.authenticatorId, authenticatorId);
      assert.equal(result.headers['zt-session'], session.token);
      assert.deepEqual((await identityDetail(identityId)).sdkInfo, { type: 'ziti-sdk-test', version: '1.0.0' });

      const services = await t.call({ method: 'GET', url: `${client}/services`, token: session.token });
      assert.equal(services.status, 200, services.text);
      assert.deepEqual(
        (services.body as { data: { id: string }[] }).data.map((s) => s.id),
        [serviceId],
      );

      const certificates = await t.call({
        method: 'GET',
        url: `${client}/current-api-session/certificates`,
        token: session.token,
      });
      const [recorded] = (certificates.body as { data: { fingerprint: string }[] }).data;
      assert.equal(
        recorded?.fingerprint,
        fingerprintOf(certificate.certPem),
        'the login certificate is bound to the session',
      );

      assert.equal((await certLogin(certificate, 'management')).status, 200);
      assert.equal((await certLogin(certificate)).status, 200, 'the same certificate logs in again');
    });

    it('answers 401 INVALID_AUTH without a certificate, for an unknown CA, an unverified CA and a CA without auth', async () => {
      assertTlsError(await certLogin(undefined), 401, 'INVALID_AUTH');
      assertError(
        await t.call({ method: 'POST', url: `${client}/authenticate?method=cert`, payload: {} }),
        401,
        'INVALID_AUTH',
      );
      const unknown = await createTestCa('unknown issuer', t.clock());
      assertTlsError(
        await certLogin(await issueTestCertificate(unknown, { commonName: 'x', now: t.clock() })),
        401,
        'INVALID_AUTH',
      );

      const ca = await registerCa();
      const { token } = await ottcaEnrollment(ca.id);
      const leaf = await issueTestCertificate(ca.testCa, { commonName: 'bound', now: t.clock() });
      assert.equal((await enroll(`method=ottca&token=${token}`, leaf)).status, 200);
      const patched = await t.call({
        method: 'PATCH',
        url: `${management}/cas/${ca.id}`,
        token: admin,
        payload: { isAuthEnabled: false },
      });
      assert.equal(patched.status, 200, patched.text);
      assertTlsError(await certLogin(leaf), 401, 'INVALID_AUTH');

      const unverified = await registerCa({ verified: false });
      assertTlsError(
        await certLogin(await issueTestCertificate(unverified.testCa, { commonName: 'y', now: t.clock() })),
        401,
        'INVALID_AUTH',
      );
    });

    it('logs in with a third-party certificate an admin bound through POST /authenticators', async () => {
      const ca = await registerCa({ body: { isAutoCaEnrollmentEnabled: false, isOttCaEnrollmentEnabled: false } });
      const identityId = await createIdentity(t, admin);
      const leaf = await issueTestCertificate(ca.testCa, {
        commonName: 'bound-by-admin',
        now: t.clock(),
        keyType: 'rsa',
      });
      const authenticatorId = await createEntity(t, admin, 'authenticators', {
        method: 'cert',
        identityId,
        certPem: leaf.certPem,
      });
      const session = await certLogin(leaf);
      assert.equal(session.status, 200, session.text);
      assert.deepEqual(
        [sessionOf(session).identityId, sessionOf(session).authenticatorId],
        [identityId, authenticatorId],
      );

      const unverified = await registerCa({ verified: false });
      const early = await issueTestCertificate(unverified.testCa, { commonName: 'too-early', now: t.clock() });
      const refused = await t.call({
        method: 'POST',
        url: `${management}/authenticators`,
        token: admin,
        payload: { method: 'cert', identityId: await createIdentity(t, admin), certPem: early.certPem },
      });
      assertError(refused, 400, 'CERTIFICATE_FAILED_VALIDATION');
    });

    it('lets an expired certificate in only while the auth policy allows expired certificates', async () => {
      const { identityId, certificate } = await controllerCertificate({
        issuedAt: new Date(t.clock().getTime() - 400 * day),
        keyType: 'ec',
      });
      assert.ok(
        Date.parse(new X509Certificate(certificate.certPem).validTo) < t.clock().getTime(),
        'the certificate is expired',
      );
      assert.equal((await certLogin(certificate)).status, 200, 'the default policy allows expired certificates');

      const strict = await createEntity(t, admin, 'auth-policies', {
        name: uniqueName('strict-certs'),
        primary: {
          cert: { allowed: true, allowExpiredCerts: false },
          updb: {
            allowed: true,
            minPasswordLength: 5,
            requireSpecialChar: false,
            requireNumberChar: false,
            requireMixedCase: false,
            maxAttempts: 5,
            lockoutDurationMinutes: 0,
          },
          extJwt: { allowed: true, allowedSigners: [] },
        },
        secondary: { requireTotp: false },
      });
      assert.equal(
        (
          await t.call({
            method: 'PATCH',
            url: `${management}/identities/${identityId}`,
            token: admin,
            payload: { authPolicyId: strict },
          })
        ).status,
        200,
      );
      assertTlsError(await certLogin(certificate), 401, 'INVALID_AUTH');

      const fresh = await controllerCertificate({ identityBody: { authPolicyId: strict } });
      assert.equal((await certLogin(fresh.certificate)).status, 200, 'a valid certificate passes the strict policy');
    });

    it('refuses identities whose policy forbids certificates, and disabled identities', async () => {
      const noCerts = await createEntity(t, admin, 'auth-policies', {
        name: uniqueName('no-certs'),
        primary: {
          cert: { allowed: false, allowExpiredCerts: true },
          updb: {
            allowed: true,
            minPasswordLength: 5,
            requireSpecialChar: false,
            requireNumberChar: false,
            requireMixedCase: false,
            maxAttempts: 5,
            lockoutDurationMinutes: 0,
          },
          extJwt: { allowed: true, allowedSigners: [] },
        },
        secondary: { requireTotp: false },
      });
      const forbidden = await controllerCertificate({ identityBody: { authPolicyId: noCerts } });
      assertTlsError(await certLogin(forbidden.certificate), 401, 'INVALID_AUTH');

      const disabled = await controllerCertificate();
      const result = await t.call({
        method: 'POST',
        url: `${management}/identities/${disabled.identityId}/disable`,
        token: admin,
        payload: { durationMinutes: 0 },
      });
      assert.equal(result.status, 200, result.text);
      assertTlsError(await certLogin(disabled.certificate), 401, 'INVALID_AUTH');
    });

    it('stops accepting a CA’s certificates when the CA is deleted, and deletes the authenticators it issued', async () => {
      const ca = await registerCa();
      const { identityId, token } = await ottcaEnrollment(ca.id);
      const leaf = await issueTestCertificate(ca.testCa, { commonName: 'doomed', now: t.clock() });
      assert.equal((await enroll(`method=ottca&token=${token}`, leaf)).status, 200);
      assert.equal((await certLogin(leaf)).status, 200);
      assert.equal((await t.call({ method: 'DELETE', url: `${management}/cas/${ca.id}`, token: admin })).status, 200);
      assertTlsError(await certLogin(leaf), 401, 'INVALID_AUTH');
      assert.deepEqual((await identityDetail(identityId)).authenticators, {});
    });
  });

  describe('certificate extension', () => {
    const extend = (api: string, id: string, session: string, certificate: KeyAndCert | undefined, csrPem: string) =>
      httpsChecked(t, {
        method: 'POST',
        path: `${api}/current-identity/authenticators/${id}/extend`,
        headers: { 'content-type': 'application/json', 'zt-session': session },
        body: JSON.stringify({ clientCertCsr: csrPem }),
        ...(certificate ? { cert: certificate.certPem, key: certificate.keyPem } : {}),
      });
    const extendVerify = (api: string, id: string, session: string, clientCert: string) =>
      httpsChecked(t, {
        method: 'POST',
        path: `${api}/current-identity/authenticators/${id}/extend-verify`,
        headers: { 'content-type': 'application/json', 'zt-session': session },
        body: JSON.stringify({ clientCert }),
      });

    it('issues a new certificate with the current SANs; verify makes it current and retires the old one', async () => {
      const { authenticatorId, certificate } = await controllerCertificate();
      const session = sessionOf(await certLogin(certificate)).token;
      const csr = await createCsr('renewed', 'ec', [{ type: 'dns', value: 'ignored.example' }]);
      const result = await extend(client, authenticatorId, session, certificate, csr.csrPem);
      assert.equal(result.status, 200, result.text);
      const { ca, clientCert } = (result.json as { data: { ca: string; clientCert: string } }).data;
      assert.equal(ca, t.deps.pki.caBundlePem);
      const renewed = new X509Certificate(clientCert);
      assert.ok(renewed.checkIssued(new X509Certificate(t.deps.pki.signingCertPem)));
      const altNames = (pem: string) =>
        new ParsedCertificate(pem).getExtension(SubjectAlternativeNameExtension)?.names.toJSON();
      assert.deepEqual(
        altNames(clientCert),
        altNames(certificate.certPem),
        'SANs come from the current certificate, not the CSR',
      );
      assert.ok(Date.parse(renewed.validTo) > t.clock().getTime() + 364 * day);
      const next = { certPem: clientCert, keyPem: csr.keyPem };

      assert.equal((await certLogin(certificate)).status, 200, 'the current certificate keeps working until verify');
      assertTlsError(await certLogin(next), 401, 'INVALID_AUTH');

      assertTlsError(
        await extendVerify(client, authenticatorId, session, certificate.certPem),
        400,
        'INVALID_CLIENT_CERT',
      );
      assertTlsError(
        await extendVerify(client, authenticatorId, session, `${clientCert}${clientCert}`),
        400,
        'INVALID_CLIENT_CERT',
      );
      const verified = await extendVerify(client, authenticatorId, session, clientCert);
      assert.equal(verified.status, 200, verified.text);

      assertTlsError(await certLogin(certificate), 401, 'INVALID_AUTH');
      const renewedSession = await certLogin(next);
      assert.equal(renewedSession.status, 200, renewedSession.text);
      assert.equal(sessionOf(renewedSession).authenticatorId, authenticatorId);
      const sessionCertificates = await t.call({
        method: 'GET',
        url: `${client}/current-api-session/certificates`,
        token: session,
      });
      assert.deepEqual(
        (sessionCertificates.body as { data: { fingerprint: string }[] }).data.map((c) => c.fingerprint),
        [fingerprintOf(clientCert)],
      );
      assertTlsError(
        await extendVerify(client, authenticatorId, session, clientCert),
        409,
        'CAN_NOT_UPDATE_AUTHENTICATOR',
      );
    });

    it('works on the management API too', async () => {
      const { authenticatorId, certificate } = await controllerCertificate({ keyType: 'ec' });
      const session = sessionOf(await certLogin(certificate, 'management')).token;
      const csr = await createCsr('renewed-mgmt');
      const result = await extend(management, authenticatorId, session, certificate, csr.csrPem);
      assert.equal(result.status, 200, result.text);
      const clientCert = (result.json as { data: { clientCert: string } }).data.clientCert;
      assert.equal((await extendVerify(management, authenticatorId, session, clientCert)).status, 200);
    });

    it('needs a certificate in the handshake, one’s own authenticator, its current certificate, a controller-issued one and a good CSR', async () => {
      const { authenticatorId, certificate } = await controllerCertificate({ keyType: 'ec' });
      const session = sessionOf(await certLogin(certificate)).token;
      const csr = await createCsr('renewed');
      assertTlsError(await extend(client, authenticatorId, session, undefined, csr.csrPem), 401, 'UNAUTHORIZED');
      const other = await controllerCertificate({ keyType: 'ec' });
      assertTlsError(
        await extend(client, authenticatorId, session, other.certificate, csr.csrPem),
        401,
        'UNAUTHORIZED',
      );
      // Someone else's authenticator is 401 before its body is read (a CSR that does not parse included); a missing one 404.
      assertTlsError(
        await extend(client, other.authenticatorId, session, other.certificate, csr.csrPem),
        401,
        'UNAUTHORIZED',
      );
      assertTlsError(
        await extend(client, other.authenticatorId, session, certificate, 'not a csr'),
        401,
        'UNAUTHORIZED',
      );
      assertTlsError(
        await extendVerify(client, other.authenticatorId, session, other.certificate.certPem),
        401,
        'UNAUTHORIZED',
      );
      assertTlsError(await extend(client, 'no-such-authenticator', session, certificate, csr.csrPem), 404, 'NOT_FOUND');
      assertTlsError(
        await extend(client, authenticatorId, session, certificate, 'not a csr'),
        400,
        'COULD_NOT_PROCESS_CSR',
      );
      const nothingWaiting = await extendVerify(client, authenticatorId, session, certificate.certPem);
      assertTlsError(nothingWaiting, 409, 'CAN_NOT_UPDATE_AUTHENTICATOR');
      assert.equal(
        (nothingWaiting.json as { error: { cause?: unknown } }).error.cause,
        undefined,
        'upstream gives no cause',
      );

      const user = await createUser(t, admin);
      const passwordSession = await login(t, user.username, user.password);
      assertTlsError(
        await extend(client, user.authenticatorId, passwordSession, certificate, csr.csrPem),
        409,
        'CAN_NOT_UPDATE_AUTHENTICATOR',
      );

      const ca = await registerCa();
      const enrollment = await ottcaEnrollment(ca.id);
      const leaf = await issueTestCertificate(ca.testCa, { commonName: 'third-party', now: t.clock() });
      assert.equal((await enroll(`method=ottca&token=${enrollment.token}`, leaf)).status, 200);
      const thirdPartySession = sessionOf(await certLogin(leaf)).token;
      const identity = await identityDetail(enrollment.identityId);
      const thirdPartyAuthenticator = (identity.authenticators as { cert: { id: string } }).cert.id;
      assertTlsError(
        await extend(client, thirdPartyAuthenticator, thirdPartySession, leaf, csr.csrPem),
        409,
        'CAN_NOT_UPDATE_AUTHENTICATOR',
      );
    });
  });
});
