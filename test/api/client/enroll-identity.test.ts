import 'reflect-metadata';
import assert from 'node:assert/strict';
import { createHash, createPublicKey, verify, X509Certificate } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { X509Certificates } from '@peculiar/x509';
import { decodeProtectedHeader, importJWK, importX509, jwtVerify, type JWK } from 'jose';
import { validateResponse } from '../../../src/http/spec/load-spec.js';
import { derToPem, pemToDer, splitPemCertificates } from '../../../src/pki/pem.js';
import { assertError, operationFor } from '../../support/conformance.js';
import { createIdentity, login } from '../../support/factories.js';
import { buildTlsTestApp, type TlsRequestOptions, type TlsTestApp } from '../../support/tls-client.js';
import { testTime } from '../../support/test-app.js';
import { newCsr, newKeyPair, type KeyPair } from '../../support/test-keys.js';
import { CLIENT, MANAGEMENT } from '../../support/api-paths.js';

const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const ENROLLMENT_DURATION_MS = 180 * 60_000;
const YEAR_MS = 365 * 24 * 60 * 60_000;

/** The C SDK's CSR subject: `C=US, ST=NY, O=OpenZiti, DC=<controller URL>, CN=<identity id>`. */
const cSdkCsr = (key: KeyPair, commonName: string) =>
  newCsr(key, `C=US, ST=NY, O=OpenZiti, DC=localhost, CN=${commonName}`);

/** The same CSR with one byte of its signature changed: it still parses, but no longer verifies. */
function tamperedCsr(csrPem: string): string {
  const der = pemToDer(csrPem);
  der[der.length - 2]! ^= 0x01;
  return derToPem(der, 'CERTIFICATE REQUEST');
}

const fingerprintOf = (pem: string) => createHash('sha1').update(new X509Certificate(pem).raw).digest('hex');

describe('identity enrollment over TLS (ott, updb), as the C SDK does it', () => {
  let t: TlsTestApp;
  let token: string;
  let ecKey: KeyPair;
  let rsaKey: KeyPair;
  const start = testTime();

  before(async () => {
    t = await buildTlsTestApp();
    token = await t.loginAsAdmin();
    [ecKey, rsaKey] = await Promise.all([newKeyPair('ec'), newKeyPair('rsa')]);
  });
  after(() => t.close());

  /** Real HTTPS, checked as the conformance helper checks inject() replies: exact JSON type, envelope, schema. */
  async function httpsJson(options: TlsRequestOptions & { method: 'GET' | 'POST' }) {
    const result = await t.https(options);
    const where = `${options.method} ${options.path} → ${result.status}`;
    assert.equal(result.headers['content-type'], 'application/json', `${where}: ${result.text}`);
    const operation = operationFor(options.method, options.path);
    assert.ok(operation, `${where}: operation`);
    assert.deepEqual(validateResponse(operation, result.status, result.json), [], `${where}: schema`);
    return result;
  }

  async function identityDetail(id: string): Promise<Record<string, unknown>> {
    const result = await t.call({ method: 'GET', url: `${MANAGEMENT}/identities/${id}`, token });
    assert.equal(result.status, 200, result.text);
    return (result.body as { data: Record<string, unknown> }).data;
  }

  /** An identity created with `enrollment`, and its outstanding enrollment as its detail shows it. */
  async function identityWithEnrollment(enrollment: Record<string, unknown>, method: 'ott' | 'updb') {
    const id = await createIdentity(t, token, { enrollment });
    const block = (await identityDetail(id)).enrollment as Record<
      string,
      { id: string; jwt: string; token: string; expiresAt: string }
    >;
    const outstanding = block[method];
    assert.ok(outstanding, JSON.stringify(block));
    return { ...outstanding, enrollmentId: outstanding.id, id };
  }

  /** Step 0 of the C SDK: the JWT is checked against the key of the certificate the TLS server presents at `iss`. */
  async function verifyEnrollmentJwt(jwt: string) {
    const serverCertificate = await t.serverCertificate();
    const { alg } = decodeProtectedHeader(jwt);
    const { payload, protectedHeader } = await jwtVerify(jwt, await importX509(serverCertificate, String(alg)), {
      currentDate: t.clock(),
    });
    assert.deepEqual(protectedHeader, { alg: 'ES256', kid: fingerprintOf(serverCertificate), typ: 'JWT' });
    return payload;
  }

  /** Step 1: the EST bundle at the root, a base64 PKCS#7 of the CA certificates. */
  async function caBundle(): Promise<X509Certificate[]> {
    const result = await t.https({ path: '/.well-known/est/cacerts', headers: { accept: 'application/pkcs7-mime' } });
    assert.equal(result.status, 200);
    assert.equal(result.headers['content-type'], 'application/pkcs7-mime');
    const certificates = new X509Certificates();
    certificates.import(result.text.replace(/\s+/g, ''));
    return Array.from(certificates, (certificate) => new X509Certificate(Buffer.from(certificate.rawData)));
  }

  /** The issued leaf must lead to a self-signed root of the bundle through the certificates that follow it. */
  function assertChainsToBundle(leafPem: string, intermediatesPem: string[], bundle: X509Certificate[]) {
    let current = new X509Certificate(leafPem);
    const pool = [...intermediatesPem.map((pem) => new X509Certificate(pem)), ...bundle];
    for (let depth = 0; depth < 4; depth++) {
      const issuer = pool.find((candidate) => current.checkIssued(candidate) && current.verify(candidate.publicKey));
      assert.ok(issuer, `no issuer for ${current.subject}`);
      if (issuer.checkIssued(issuer)) {
        assert.ok(
          bundle.some((root) => root.fingerprint256 === issuer.fingerprint256),
          'the root is in the EST bundle',
        );
        return;
      }
      current = issuer;
    }
    assert.fail('no path to a root');
  }

  const enrollOtt = (enrollmentToken: string, csr: string, headers: Record<string, string> = {}) =>
    t.https({
      method: 'POST',
      path: `${CLIENT}/enroll?method=ott&token=${enrollmentToken}`,
      headers: { 'content-type': 'text/plain', ...headers },
      body: csr,
    });

  describe('ott', () => {
    it('walks the C SDK sequence: verify the JWT, fetch the CA bundle, enroll with Accept JSON, log in with the certificate', async () => {
      const identity = await identityWithEnrollment({ ott: true }, 'ott');
      assert.equal(identity.expiresAt, new Date(Date.parse(start) + ENROLLMENT_DURATION_MS).toISOString());

      const claims = await verifyEnrollmentJwt(identity.jwt);
      assert.deepEqual(Object.keys(claims), ['iss', 'sub', 'aud', 'exp', 'jti', 'em', 'ctrls']);
      assert.deepEqual(claims, {
        iss: 'https://localhost:1280',
        sub: identity.id,
        aud: [''],
        exp: Math.floor((Date.parse(start) + ENROLLMENT_DURATION_MS) / 1000),
        jti: identity.token,
        em: 'ott',
        ctrls: null,
      });

      const bundle = await caBundle();
      const csr = await cSdkCsr(ecKey, identity.id);
      const result = await httpsJson({
        method: 'POST',
        path: `${CLIENT}/enroll?method=ott&token=${claims.jti}`,
        headers: { 'content-type': 'text/plain', accept: 'application/json' },
        body: csr,
      });
      assert.equal(result.status, 200, result.text);
      const chain = splitPemCertificates((result.json as { data: { cert: string } }).data.cert);
      assert.equal(chain.length, 2, 'leaf and signing CA');
      const [leafPem, ...intermediates] = chain as [string, ...string[]];
      assertChainsToBundle(leafPem, intermediates, bundle);

      const leaf = new X509Certificate(leafPem);
      assert.deepEqual(leaf.keyUsage, [CLIENT_AUTH]);
      assert.ok(
        leaf.publicKey.export({ type: 'spki', format: 'der' }).equals(ecKey.spkiDer),
        'the CSR key is certified',
      );
      assert.equal(new Date(leaf.validFrom).getTime(), Date.parse(start) - 60_000);
      assert.equal(new Date(leaf.validTo).getTime(), Date.parse(start) + YEAR_MS);
      assert.match(leaf.subject, new RegExp(`CN=${identity.id.replace(/[.-]/g, '\\$&')}`));

      const detail = await identityDetail(identity.id);
      assert.deepEqual(detail.enrollment, {}, 'the enrollment is consumed');
      const cert = (detail.authenticators as { cert?: { fingerprint: string; id: string } }).cert;
      assert.equal(cert?.fingerprint, fingerprintOf(leafPem));
      const authenticator = await t.call({ method: 'GET', url: `${MANAGEMENT}/authenticators/${cert.id}`, token });
      assert.equal((authenticator.body as { data: { certPem: string } }).data.certPem, leafPem);

      // Steps 3–5: certificate login over mutual TLS, then the service list with the new session.
      const loginResult = await httpsJson({
        method: 'POST',
        path: `${CLIENT}/authenticate?method=cert`,
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({
          sdkInfo: { type: 'ziti-sdk-c', version: '1.0.12' },
          envInfo: { os: 'Linux', arch: 'x86_64' },
          configTypes: [],
        }),
        cert: chain.join(''),
        key: ecKey.keyPem,
      });
      assert.equal(loginResult.status, 200, loginResult.text);
      const session = (loginResult.json as { data: { token: string; identity: { id: string } } }).data;
      assert.equal(session.identity.id, identity.id);
      const services = await httpsJson({
        method: 'GET',
        path: `${CLIENT}/services?limit=25&offset=0`,
        headers: { 'zt-session': session.token },
      });
      assert.equal(services.status, 200, services.text);
    });

    it('answers the leaf alone as application/x-pem-file when the client does not ask for JSON (Go SDK, CLI)', async () => {
      const identity = await identityWithEnrollment({ ott: true }, 'ott');
      const result = await enrollOtt(identity.token, await cSdkCsr(rsaKey, identity.id), {
        'content-type': 'application/x-pem-file',
      });
      assert.equal(result.status, 200, result.text);
      assert.equal(result.headers['content-type'], 'application/x-pem-file');
      const certificates = splitPemCertificates(result.text);
      assert.equal(certificates.length, 1, 'the leaf only');
      const leaf = new X509Certificate(certificates[0]!);
      assert.ok(leaf.publicKey.export({ type: 'spki', format: 'der' }).equals(rsaKey.spkiDer));
      assert.deepEqual(leaf.keyUsage, [CLIENT_AUTH]);
      assertChainsToBundle(certificates[0]!, [], await caBundle());
      const detail = await identityDetail(identity.id);
      assert.equal(
        (detail.authenticators as { cert?: { fingerprint: string } }).cert?.fingerprint,
        fingerprintOf(certificates[0]!),
      );
    });

    it('treats Accept */* like no Accept', async () => {
      const identity = await identityWithEnrollment({ ott: true }, 'ott');
      const result = await enrollOtt(identity.token, await cSdkCsr(ecKey, identity.id), { accept: '*/*' });
      assert.equal(result.status, 200, result.text);
      assert.equal(result.headers['content-type'], 'application/x-pem-file');
    });

    it('refuses bad CSRs and leaves the token usable', async () => {
      const identity = await identityWithEnrollment({ ott: true }, 'ott');
      const url = `${CLIENT}/enroll?method=ott&token=${identity.token}`;
      const post = (payload: string, contentType = 'text/plain') =>
        t.call({ method: 'POST', url, headers: { 'content-type': contentType, accept: 'application/json' }, payload });
      const csr = await cSdkCsr(ecKey, identity.id);
      // Upstream's words (common/cert ParseCsrPem) for a CSR that is not PEM, empty, or followed by more.
      const refusal = async (payload: string) => {
        const result = await post(payload);
        assertError(result, 400, 'COULD_NOT_PROCESS_CSR');
        return (result.body as { error: { cause: { message: string } } }).error.cause.message;
      };
      assert.equal(await refusal('garbage'), 'could not decode csrPem as PEM');
      assert.equal(await refusal(''), 'csrPem must not be null or empty');
      assert.equal(await refusal(csr + csr), 'unexpected PEM blocks at end of CSR');
      assertError(
        await post('-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n'),
        400,
        'COULD_NOT_PROCESS_CSR',
      );
      assertError(await post(tamperedCsr(csr)), 400, 'COULD_NOT_PROCESS_CSR');
      // A JSON body is not a CSR (docs/reference/pki-enrollment-auth.md §3.3).
      assertError(
        await post(JSON.stringify({ token: identity.token, clientCsr: csr }), 'application/json'),
        400,
        'COULD_NOT_PROCESS_CSR',
      );
      assertError(await post(csr, 'application/pkcs10'), 400, 'INVALID_CONTENT_TYPE');
      const result = await post(csr);
      assert.equal(result.status, 200, result.text);
    });

    it('answers a failure to a client that accepts PEM but not JSON with the status and an empty PEM body', async () => {
      const identity = await identityWithEnrollment({ ott: true }, 'ott');
      const post = (query: string, accept: string) =>
        t.call({
          method: 'POST',
          url: `${CLIENT}/enroll?${query}`,
          headers: { 'content-type': 'text/plain', accept },
          payload: 'garbage',
        });
      const unknownToken = 'method=ott&token=2f1e7e43-6a4b-4f0e-9d2c-0b6f4b8f9a11';
      for (const [query, accept] of [
        [`method=ott&token=${identity.token}`, 'application/x-pem-file'],
        [unknownToken, 'application/x-pem-file'],
        [unknownToken, 'text/plain, application/x-pem-file'],
        [unknownToken, 'application/*'],
        ['method=ca', 'application/x-pem-file'],
      ]) {
        const result = await post(query!, accept!);
        assert.deepEqual(
          [result.status, result.headers['content-type'], result.text],
          [400, 'application/x-pem-file', ''],
          `${query} ${accept}`,
        );
      }
      // JSON whenever the client takes it, as before.
      for (const accept of [
        'application/x-pem-file, application/json',
        'application/x-pem-file, */*',
        'application/json;q=0.1, application/x-pem-file',
      ]) {
        assertError(await post(unknownToken, accept), 400, 'INVALID_ENROLLMENT_TOKEN');
      }
      // The per-method routes produce only JSON.
      const perMethod = await t.call({
        method: 'POST',
        url: `${CLIENT}/enroll/ott?${unknownToken}`,
        headers: { accept: 'application/x-pem-file' },
        payload: {},
      });
      assertError(perMethod, 400, 'INVALID_ENROLLMENT_TOKEN');
      assert.equal(
        (await enrollOtt(identity.token, await cSdkCsr(ecKey, identity.id))).status,
        200,
        'the failures left the token usable',
      );
    });

    it('is single use', async () => {
      const identity = await identityWithEnrollment({ ott: true }, 'ott');
      assert.equal((await enrollOtt(identity.token, await cSdkCsr(ecKey, identity.id))).status, 200);
      const again = await t.call({
        method: 'POST',
        url: `${CLIENT}/enroll?method=ott&token=${identity.token}`,
        headers: { 'content-type': 'text/plain' },
        payload: await cSdkCsr(ecKey, identity.id),
      });
      assertError(again, 400, 'INVALID_ENROLLMENT_TOKEN');
    });

    it('refuses unknown, missing and malformed tokens', async () => {
      const csr = await cSdkCsr(ecKey, 'nobody');
      const post = (query: string) =>
        t.call({
          method: 'POST',
          url: `${CLIENT}/enroll${query}`,
          headers: { 'content-type': 'text/plain' },
          payload: csr,
        });
      assertError(
        await post('?method=ott&token=2f1e7e43-6a4b-4f0e-9d2c-0b6f4b8f9a11'),
        400,
        'INVALID_ENROLLMENT_TOKEN',
      );
      assertError(await post('?method=ott'), 400, 'INVALID_ENROLLMENT_TOKEN');
      assertError(await post('?method=ott&token=not-a-uuid'), 400, 'COULD_NOT_VALIDATE');
    });

    it('refuses an expired token with ENROLLMENT_EXPIRED', async () => {
      const identity = await identityWithEnrollment({ ott: true }, 'ott');
      const csr = await cSdkCsr(ecKey, identity.id);
      t.clock.advance(ENROLLMENT_DURATION_MS);
      try {
        assertError(
          await t.call({
            method: 'POST',
            url: `${CLIENT}/enroll?method=ott&token=${identity.token}`,
            headers: { 'content-type': 'text/plain' },
            payload: csr,
          }),
          400,
          'ENROLLMENT_EXPIRED',
        );
      } finally {
        t.clock.set(start);
      }
      assert.equal((await enrollOtt(identity.token, csr)).status, 200, 'still valid a moment before expiry');
    });
  });

  describe('updb', () => {
    const username = (label: string) => `enrolled-${label}-${Math.random().toString(36).slice(2, 8)}`;

    it('sets the password through /enroll/updb, with the username chosen at creation', async () => {
      const name = username('a');
      const identity = await identityWithEnrollment({ updb: name }, 'updb');
      const claims = await verifyEnrollmentJwt(identity.jwt);
      assert.equal(claims.em, 'updb');
      const url = `${CLIENT}/enroll/updb?token=${identity.token}`;
      // The body's username is ignored, as upstream.
      const result = await t.call({
        method: 'POST',
        url,
        payload: { password: 'correct-horse', username: 'someone-else' },
      });
      assert.equal(result.status, 200, result.text);
      assert.deepEqual((result.body as { data: unknown }).data, {});
      const detail = await identityDetail(identity.id);
      assert.deepEqual(detail.enrollment, {});
      assert.equal((detail.authenticators as { updb?: { username: string } }).updb?.username, name);
      await login(t, name, 'correct-horse');
      assertError(
        await t.call({ method: 'POST', url, payload: { password: 'correct-horse' } }),
        400,
        'INVALID_ENROLLMENT_TOKEN',
      );
    });

    it('works through /enroll?method=updb as the Go SDK calls it', async () => {
      const name = username('b');
      const identity = await identityWithEnrollment({ updb: name }, 'updb');
      const result = await httpsJson({
        method: 'POST',
        path: `${CLIENT}/enroll?method=updb&token=${identity.token}`,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ password: 'battery-staple' }),
      });
      assert.equal(result.status, 200, result.text);
      await login(t, name, 'battery-staple');
    });

    it('answers a missing, short or long password with 400 on `password`, never 500', async () => {
      const identity = await identityWithEnrollment({ updb: username('c') }, 'updb');
      const generic = `${CLIENT}/enroll?method=updb&token=${identity.token}`;
      const specific = `${CLIENT}/enroll/updb?token=${identity.token}`;
      // The contract's path has an inline body schema, whose fields go-swagger names after the body parameter
      // (its length limits); a missing password is the enrollment's own refusal.
      for (const [url, field] of [
        [generic, 'password'],
        [specific, 'updbCredentials.password'],
      ] as const) {
        assertError(await t.call({ method: 'POST', url, payload: {} }), 400, 'COULD_NOT_VALIDATE', 'password');
        assertError(
          await t.call({ method: 'POST', url, payload: { password: 'abcd' } }),
          400,
          'COULD_NOT_VALIDATE',
          field,
        );
        assertError(
          await t.call({ method: 'POST', url, payload: { password: 'x'.repeat(101) } }),
          400,
          'COULD_NOT_VALIDATE',
          field,
        );
      }
      // A number where the contract declares a string fails while decoding (as upstream's JSON decoder does).
      assertError(
        await t.call({ method: 'POST', url: specific, payload: { password: 12345 } }),
        400,
        'COULD_NOT_PARSE_BODY',
      );
      assertError(
        await t.call({ method: 'POST', url: generic, payload: { password: 12345 } }),
        400,
        'COULD_NOT_VALIDATE',
        'password',
      );
      assertError(await t.call({ method: 'POST', url: generic }), 400, 'COULD_NOT_VALIDATE', 'password');
      assertError(
        await t.call({ method: 'POST', url: generic, headers: { 'content-type': 'text/plain' }, payload: 'password' }),
        400,
        'COULD_NOT_VALIDATE',
        'password',
      );
      assertError(await t.call({ method: 'POST', url: specific }), 400, 'COULD_NOT_VALIDATE');
      assertError(
        await t.call({
          method: 'POST',
          url: generic,
          payload: '{"password":',
          headers: { 'content-type': 'application/json' },
        }),
        400,
        'COULD_NOT_PARSE_BODY',
      );
      assert.equal(
        (await t.call({ method: 'POST', url: specific, payload: { password: 'abcde' } })).status,
        200,
        'five characters are enough',
      );
    });

    it('refuses an expired token and one whose username was taken since', async () => {
      const expired = await identityWithEnrollment({ updb: username('d') }, 'updb');
      t.clock.advance(ENROLLMENT_DURATION_MS + 1);
      try {
        assertError(
          await t.call({
            method: 'POST',
            url: `${CLIENT}/enroll/updb?token=${expired.token}`,
            payload: { password: 'late-password' },
          }),
          400,
          'ENROLLMENT_EXPIRED',
        );
      } finally {
        t.clock.set(start);
      }
      // An admin gives the username to another identity before the enrollment is used.
      const name = username('e');
      const identity = await identityWithEnrollment({ updb: name }, 'updb');
      const other = await createIdentity(t, token);
      const taken = await t.call({
        method: 'POST',
        url: `${MANAGEMENT}/authenticators`,
        token,
        payload: { method: 'updb', identityId: other, username: name, password: 'other-password' },
      });
      assert.equal(taken.status, 201, taken.text);
      assertError(
        await t.call({
          method: 'POST',
          url: `${CLIENT}/enroll/updb?token=${identity.token}`,
          payload: { password: 'my-password' },
        }),
        400,
        'COULD_NOT_VALIDATE',
        'username',
      );
    });
  });

  describe('enrollment signing key', () => {
    it('publishes the key as a bare JWKS that verifies enrollment JWTs', async () => {
      const result = await httpsJson({ method: 'GET', path: `${CLIENT}/enroll/jwks` });
      assert.equal(result.status, 200);
      const { keys } = result.json as { keys: JWK[] };
      assert.equal(keys.length, 1);
      const [jwk] = keys as [JWK];
      assert.equal(jwk.kid, fingerprintOf(await t.serverCertificate()));
      assert.equal(jwk.alg, 'ES256');
      assert.equal(jwk.use, 'sig');
      assert.equal(jwk.kty, 'EC');
      assert.equal(jwk.d, undefined, 'no private part');
      const identity = await identityWithEnrollment({ ott: true }, 'ott');
      const { payload } = await jwtVerify(identity.jwt, await importJWK(jwk, 'ES256'), { currentDate: t.clock() });
      assert.equal(payload.jti, identity.token);
    });

    it('signs a challenge nonce with the named key and hands out the CA pool', async () => {
      const kid = fingerprintOf(await t.serverCertificate());
      const nonce = 'a3bb189e-8bf9-3888-9912-ace4e6543002';
      const result = await httpsJson({
        method: 'POST',
        path: `${CLIENT}/enroll/challenge`,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ keyId: kid, nonce }),
      });
      assert.equal(result.status, 200, result.text);
      const answer = result.json as { algorithm: string; kid: string; signature: string; caPool: string };
      assert.equal(answer.algorithm, 'ES256');
      assert.equal(answer.kid, kid);
      const signature = Buffer.from(answer.signature, 'base64url');
      assert.equal(signature.length, 64, 'raw r‖s');
      const serverKey = createPublicKey(await t.serverCertificate());
      assert.ok(verify('sha256', Buffer.from(nonce, 'utf8'), { key: serverKey, dsaEncoding: 'ieee-p1363' }, signature));
      const pool = splitPemCertificates(answer.caPool).map(fingerprintOf).sort();
      const bundle = (await caBundle()).map((c) => createHash('sha1').update(c.raw).digest('hex')).sort();
      assert.deepEqual(pool, bundle);
    });

    it('refuses an unknown key id and a nonce that is not a UUID', async () => {
      const kid = fingerprintOf(await t.serverCertificate());
      const post = (payload: unknown) => t.call({ method: 'POST', url: `${CLIENT}/enroll/challenge`, payload });
      assertError(
        await post({ keyId: 'unknown', nonce: 'a3bb189e-8bf9-3888-9912-ace4e6543002' }),
        400,
        'COULD_NOT_VALIDATE',
        'keyId',
      );
      assertError(await post({ keyId: kid, nonce: 'not-a-uuid' }), 400, 'COULD_NOT_VALIDATE');
      assertError(await post({ keyId: kid }), 400, 'COULD_NOT_VALIDATE');
    });
  });
});
