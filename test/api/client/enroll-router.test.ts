import 'reflect-metadata';
import assert from 'node:assert/strict';
import { createHash, X509Certificate } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import {
  ExtendedKeyUsage,
  ExtendedKeyUsageExtension,
  X509CertificateGenerator,
  type JsonGeneralNames,
} from '@peculiar/x509';
import { decodeProtectedHeader, importX509, jwtVerify } from 'jose';
import { validateResponse } from '../../../src/http/spec/load-spec.js';
import { splitPemCertificates } from '../../../src/pki/pem.js';
import { operationFor } from '../../support/conformance.js';
import { createEdgeRouter, createTransitRouter } from '../../support/factories.js';
import { buildTlsTestApp, type TlsRequestOptions, type TlsTestApp } from '../../support/tls-client.js';
import { testTime } from '../../support/test-app.js';
import { newCsr, newKeyPair, type KeyPair } from '../../support/test-keys.js';
import { selectRows } from '../../../src/store/queries/table-rows.js';
import { MANAGEMENT } from '../../support/api-paths.js';

const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const ENROLLMENT_DURATION_MS = 180 * 60_000;

/** What a ziti router puts in its CSRs: `C=US, O=OpenZiti, CN=<router id>`, SANs on the server CSR. */
const routerCsr = (key: KeyPair, commonName: string, altNames: JsonGeneralNames = []) =>
  newCsr(key, `C=US, O=OpenZiti, CN=${commonName}`, altNames);

/** A client certificate no router was ever given: signed by itself. */
async function strangerCertificate(key: KeyPair): Promise<string> {
  const certificate = await X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=stranger',
    notBefore: new Date(testTime(-24 * 3600_000)),
    notAfter: new Date(testTime(365 * 24 * 3600_000)),
    keys: key.keys,
    signingAlgorithm: key.algorithm,
    extensions: [new ExtendedKeyUsageExtension([ExtendedKeyUsage.clientAuth])],
  });
  return certificate.toString('pem');
}

const SERVER_SANS: JsonGeneralNames = [
  { type: 'dns', value: 'router.example.com' },
  { type: 'ip', value: '127.0.0.1' },
];

interface EnrollmentCerts {
  ca?: string;
  cert: string;
  serverCert: string;
}

const fingerprintOf = (pem: string) => createHash('sha1').update(new X509Certificate(pem).raw).digest('hex');

describe('router enrollment (erott, trott), extension and re-enroll over TLS', () => {
  let t: TlsTestApp;
  let token: string;
  let ecKey: KeyPair;
  let rsaKey: KeyPair;
  let otherEcKey: KeyPair;
  const start = testTime();

  /** Real HTTPS, checked as the conformance helper checks inject() replies: exact JSON type, envelope, schema. */
  async function https(options: TlsRequestOptions & { method: 'GET' | 'POST' }) {
    const result = await t.https(options);
    const where = `${options.method} ${options.path} → ${result.status}`;
    assert.equal(result.headers['content-type'], 'application/json', `${where}: ${result.text}`);
    const operation = operationFor(options.method, options.path);
    assert.ok(operation, `${where}: operation`);
    assert.deepEqual(validateResponse(operation, result.status, result.json), [], `${where}: schema`);
    if (result.status >= 400) {
      const { error, meta } = result.json as {
        error: { code: string; message: string; requestId: string };
        meta: unknown;
      };
      assert.equal(typeof error.message, 'string');
      assert.equal(typeof error.requestId, 'string');
      assert.deepEqual(meta, { apiEnrollmentVersion: '0.0.1', apiVersion: '0.0.1' });
    }
    return result;
  }
  const errorCode = (result: { json: unknown }) => (result.json as { error: { code: string } }).error.code;
  async function assertHttpsError(
    options: TlsRequestOptions & { method: 'GET' | 'POST' },
    status: number,
    code: string,
  ) {
    const result = await https(options);
    assert.equal(result.status, status, result.text);
    assert.equal(errorCode(result), code, result.text);
  }

  const enrollRequest = (method: string, enrollmentToken: string, body: unknown, contentType = 'application/json') => ({
    method: 'POST' as const,
    path: `/edge/client/v1/enroll?method=${method}&token=${enrollmentToken}`,
    headers: { 'content-type': contentType },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const extendRequest = (body: unknown, cert?: string, key?: string) => ({
    method: 'POST' as const,
    path: '/edge/client/v1/enroll/extend/router',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    ...(cert ? { cert, key } : {}),
  });

  async function detail(path: 'edge-routers' | 'transit-routers', id: string): Promise<Record<string, unknown>> {
    const result = await t.call({ method: 'GET', url: `${MANAGEMENT}/${path}/${id}`, token });
    assert.equal(result.status, 200, result.text);
    return (result.body as { data: Record<string, unknown> }).data;
  }

  /** As the SDKs and routers do: the key of the certificate presented at `iss` must verify the token. */
  async function verifyEnrollmentJwt(jwt: unknown) {
    const serverCertificate = await t.serverCertificate();
    const { alg } = decodeProtectedHeader(String(jwt));
    const { payload, protectedHeader } = await jwtVerify(
      String(jwt),
      await importX509(serverCertificate, String(alg)),
      { currentDate: t.clock() },
    );
    assert.deepEqual(protectedHeader, { alg, kid: fingerprintOf(serverCertificate), typ: 'JWT' });
    return payload;
  }

  /** Both CSRs as a ziti router sends them, the client one named after the router. */
  async function routerCsrs(routerId: string, clientCommonName = routerId) {
    return {
      serverCertCsr: await routerCsr(rsaKey, routerId, SERVER_SANS),
      certCsr: await routerCsr(ecKey, clientCommonName, SERVER_SANS),
    };
  }

  async function enroll(
    method: 'erott' | 'trott',
    routerId: string,
    enrollmentToken: string,
  ): Promise<EnrollmentCerts> {
    const result = await https(enrollRequest(method, enrollmentToken, await routerCsrs(routerId)));
    assert.equal(result.status, 200, result.text);
    return (result.json as { data: EnrollmentCerts }).data;
  }

  before(async () => {
    t = await buildTlsTestApp();
    token = await t.loginAsAdmin();
    [ecKey, rsaKey, otherEcKey] = await Promise.all([newKeyPair('ec'), newKeyPair('rsa'), newKeyPair('ec')]);
  });
  after(() => t.close());

  describe('createEdgeRouter', () => {
    it('gives the router an erott enrollment whose JWT the TLS server certificate verifies', async () => {
      const id = await createEdgeRouter(t, token);
      const router = await detail('edge-routers', id);
      assert.equal(router.isVerified, false);
      assert.equal(
        'fingerprint' in router,
        false,
        'an unenrolled edge router has no fingerprint key, as upstream (omitempty)',
      );
      assert.equal(router.enrollmentCreatedAt, start);
      assert.equal(router.enrollmentExpiresAt, new Date(Date.parse(start) + ENROLLMENT_DURATION_MS).toISOString());
      assert.match(
        String(router.enrollmentToken),
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );

      const payload = await verifyEnrollmentJwt(router.enrollmentJwt);
      assert.deepEqual(payload, {
        iss: 'https://localhost:1280',
        sub: id,
        aud: [''],
        exp: Math.floor((Date.parse(start) + ENROLLMENT_DURATION_MS) / 1000),
        jti: router.enrollmentToken,
        em: 'erott',
        ctrls: null,
      });
    });

    it('shows the enrollment in lists too', async () => {
      const id = await createEdgeRouter(t, token, { name: 'listed-unenrolled' });
      const result = await t.call({
        method: 'GET',
        url: `${MANAGEMENT}/edge-routers?filter=${encodeURIComponent('name = "listed-unenrolled"')}`,
        token,
      });
      const [listed] = (result.body as { data: Record<string, unknown>[] }).data;
      assert.equal(listed?.id, id);
      assert.equal(listed.enrollmentJwt, (await detail('edge-routers', id)).enrollmentJwt);
    });
  });

  describe('enroll with method erott', () => {
    it('issues a client and a server certificate that chain to the CA bundle, and verifies the router', async () => {
      const id = await createEdgeRouter(t, token);
      const { enrollmentToken } = (await detail('edge-routers', id)) as { enrollmentToken: string };
      const certs = await enroll('erott', id, enrollmentToken);
      assert.ok(certs.ca && certs.cert && certs.serverCert, 'none of ca, cert and serverCert is empty');

      const bundle = splitPemCertificates(certs.ca).map((pem) => new X509Certificate(pem));
      const [client, ...clientIntermediates] = splitPemCertificates(certs.cert).map((pem) => new X509Certificate(pem));
      const [server] = splitPemCertificates(certs.serverCert).map((pem) => new X509Certificate(pem));
      assert.ok(client && server);
      for (const leaf of [client, server]) {
        const issuer = bundle.find((ca) => leaf.checkIssued(ca));
        assert.ok(issuer && leaf.verify(issuer.publicKey), 'the leaf is signed by a CA of the bundle');
        const root = bundle.find((ca) => issuer.checkIssued(ca) && ca.checkIssued(ca));
        assert.ok(root && issuer.verify(root.publicKey), 'that CA chains to the bundle root');
        assert.equal(leaf.ca, false);
      }
      assert.deepEqual(
        clientIntermediates.map((c) => c.fingerprint256),
        bundle.filter((ca) => !ca.checkIssued(ca)).map((ca) => ca.fingerprint256),
      );

      assert.match(client.subject, new RegExp(`^CN=${id.replace(/[.-]/g, '\\$&')}$`, 'm'));
      assert.deepEqual(client.keyUsage, [CLIENT_AUTH]);
      assert.deepEqual(server.keyUsage, [SERVER_AUTH]);
      assert.equal(server.subjectAltName, 'DNS:router.example.com, IP Address:127.0.0.1');
      assert.equal(client.publicKey.asymmetricKeyType, 'ec');
      assert.equal(server.publicKey.asymmetricKeyType, 'rsa');
      assert.equal(Date.parse(client.validTo), Date.parse(start) + 365 * 24 * 3_600_000);

      const router = await detail('edge-routers', id);
      assert.equal(router.isVerified, true);
      assert.equal(router.fingerprint, fingerprintOf(certs.cert));
      assert.equal(router.certPem, splitPemCertificates(certs.cert)[0]);
      // Upstream leaves the enrollment fields out once there is none (omitempty).
      for (const field of ['enrollmentJwt', 'enrollmentToken', 'enrollmentCreatedAt', 'enrollmentExpiresAt'])
        assert.equal(field in router, false, field);
    });

    it('refuses a token used once already', async () => {
      const id = await createEdgeRouter(t, token);
      const { enrollmentToken } = (await detail('edge-routers', id)) as { enrollmentToken: string };
      await enroll('erott', id, enrollmentToken);
      await assertHttpsError(
        enrollRequest('erott', enrollmentToken, await routerCsrs(id)),
        400,
        'INVALID_ENROLLMENT_TOKEN',
      );
    });

    it('refuses an expired token with ENROLLMENT_EXPIRED', async () => {
      const id = await createEdgeRouter(t, token);
      const { enrollmentToken } = (await detail('edge-routers', id)) as { enrollmentToken: string };
      const csrs = await routerCsrs(id);
      try {
        t.clock.advance(ENROLLMENT_DURATION_MS);
        await assertHttpsError(enrollRequest('erott', enrollmentToken, csrs), 400, 'ENROLLMENT_EXPIRED');
      } finally {
        t.clock.set(start);
      }
      assert.equal((await detail('edge-routers', id)).isVerified, false);
    });

    it('refuses a client CSR not named after the router, and the token stays usable', async () => {
      const id = await createEdgeRouter(t, token);
      const { enrollmentToken } = (await detail('edge-routers', id)) as { enrollmentToken: string };
      await assertHttpsError(
        enrollRequest('erott', enrollmentToken, await routerCsrs(id, 'someone-else')),
        400,
        'COULD_NOT_PROCESS_CSR',
      );
      assert.equal((await detail('edge-routers', id)).isVerified, false);
      await enroll('erott', id, enrollmentToken);
    });

    it('answers MISSING_OR_INVALID_CSR for a missing CSR field, COULD_NOT_PROCESS_CSR for an empty or bad one, server first; the token stays usable', async () => {
      const id = await createEdgeRouter(t, token);
      const { enrollmentToken } = (await detail('edge-routers', id)) as { enrollmentToken: string };
      const { serverCertCsr, certCsr } = await routerCsrs(id);
      const refused = async (body: unknown, code: string, which: 'server' | 'client', contentType?: string) => {
        const result = await https(enrollRequest('erott', enrollmentToken, body, contentType));
        assert.deepEqual([result.status, errorCode(result)], [400, code], JSON.stringify(body));
        assert.deepEqual((result.json as { error: { cause: unknown } }).error.cause, {
          code: 'UNHANDLED',
          message: `invalid ${which} CSR`,
        });
      };
      await refused({}, 'MISSING_OR_INVALID_CSR', 'server');
      await refused({ certCsr }, 'MISSING_OR_INVALID_CSR', 'server');
      await refused({ serverCertCsr: null, certCsr }, 'MISSING_OR_INVALID_CSR', 'server');
      await refused({ serverCertCsr: '' }, 'MISSING_OR_INVALID_CSR', 'client');
      await refused(certCsr, 'MISSING_OR_INVALID_CSR', 'server', 'text/plain');
      await refused({ serverCertCsr: '', certCsr: '' }, 'COULD_NOT_PROCESS_CSR', 'server');
      await refused({ serverCertCsr, certCsr: '' }, 'COULD_NOT_PROCESS_CSR', 'client');
      await refused({ serverCertCsr, certCsr: 'not a csr' }, 'COULD_NOT_PROCESS_CSR', 'client');
      assert.equal((await detail('edge-routers', id)).isVerified, false);
      await enroll('erott', id, enrollmentToken);
    });

    it('refuses the token of a deleted router', async () => {
      const id = await createEdgeRouter(t, token);
      const { enrollmentToken } = (await detail('edge-routers', id)) as { enrollmentToken: string };
      assert.equal((await t.call({ method: 'DELETE', url: `${MANAGEMENT}/edge-routers/${id}`, token })).status, 200);
      await assertHttpsError(
        enrollRequest('erott', enrollmentToken, await routerCsrs(id)),
        400,
        'INVALID_ENROLLMENT_TOKEN',
      );
    });
  });

  describe('extendRouterEnrollment', () => {
    it('renews both certificates for the router presenting its certificate; the old one stops working at once', async () => {
      const id = await createEdgeRouter(t, token);
      const { enrollmentToken } = (await detail('edge-routers', id)) as { enrollmentToken: string };
      const enrolled = await enroll('erott', id, enrollmentToken);

      const result = await https(extendRequest(await routerCsrs(id), enrolled.cert, ecKey.keyPem));
      assert.equal(result.status, 200, result.text);
      const renewed = (result.json as { data: EnrollmentCerts }).data;
      assert.equal(renewed.ca, undefined);
      assert.equal(splitPemCertificates(renewed.serverCert).length, 1, 'the server certificate comes alone');
      const client = new X509Certificate(renewed.cert);
      assert.deepEqual(client.keyUsage, [CLIENT_AUTH]);
      assert.deepEqual(new X509Certificate(renewed.serverCert).keyUsage, [SERVER_AUTH]);

      const router = await detail('edge-routers', id);
      assert.equal(router.fingerprint, fingerprintOf(renewed.cert));
      assert.notEqual(router.fingerprint, fingerprintOf(enrolled.cert));
      assert.equal(router.isVerified, true);

      await assertHttpsError(extendRequest(await routerCsrs(id), enrolled.cert, ecKey.keyPem), 401, 'UNAUTHORIZED');
      const again = await https(extendRequest(await routerCsrs(id), renewed.cert, ecKey.keyPem));
      assert.equal(again.status, 200, again.text);
    });

    it('answers 401 UNAUTHORIZED without a client certificate or with one no router has, before the CSRs are read', async () => {
      const id = await createEdgeRouter(t, token);
      for (const csrs of [
        await routerCsrs(id),
        { serverCertCsr: 'junk', certCsr: 'junk' },
        { serverCertCsr: '', certCsr: '' },
      ]) {
        await assertHttpsError(extendRequest(csrs), 401, 'UNAUTHORIZED');
        await assertHttpsError(
          extendRequest(csrs, await strangerCertificate(otherEcKey), otherEcKey.keyPem),
          401,
          'UNAUTHORIZED',
        );
      }
      // The contract's own checks come first, as upstream's: a body without the fields is 400 either way.
      await assertHttpsError(extendRequest({}), 400, 'COULD_NOT_VALIDATE');
    });

    it('checks the CSRs of a known router: a missing field, an empty or bad CSR, a client CSR not named after the router', async () => {
      const id = await createEdgeRouter(t, token);
      const { enrollmentToken } = (await detail('edge-routers', id)) as { enrollmentToken: string };
      const enrolled = await enroll('erott', id, enrollmentToken);
      const { serverCertCsr, certCsr } = await routerCsrs(id);
      for (const body of [{}, { serverCertCsr }, { certCsr }, { serverCertCsr, certCsr: null }]) {
        await assertHttpsError(extendRequest(body, enrolled.cert, ecKey.keyPem), 400, 'COULD_NOT_VALIDATE');
      }
      for (const body of [
        { serverCertCsr, certCsr: '' },
        { serverCertCsr: '', certCsr },
        { serverCertCsr, certCsr: 'junk' },
        await routerCsrs(id, 'not-the-router'),
      ]) {
        await assertHttpsError(extendRequest(body, enrolled.cert, ecKey.keyPem), 400, 'COULD_NOT_PROCESS_CSR');
      }
      assert.equal((await detail('edge-routers', id)).fingerprint, fingerprintOf(enrolled.cert));
      assert.equal((await https(extendRequest({ serverCertCsr, certCsr }, enrolled.cert, ecKey.keyPem))).status, 200);
    });
  });

  describe('reEnrollEdgeRouter', () => {
    it('unverifies the router with a fresh erott enrollment, then the router enrolls again', async () => {
      const id = await createEdgeRouter(t, token);
      const first = (await detail('edge-routers', id)) as { enrollmentToken: string };
      const enrolled = await enroll('erott', id, first.enrollmentToken);

      t.clock.advance(60_000);
      try {
        const result = await t.call({ method: 'POST', url: `${MANAGEMENT}/edge-routers/${id}/re-enroll`, token });
        assert.equal(result.status, 200, result.text);
        assert.deepEqual((result.body as { data: unknown }).data, {});
        const router = await detail('edge-routers', id);
        assert.deepEqual([router.isVerified, 'fingerprint' in router, router.certPem], [false, false, null]);
        assert.equal(router.enrollmentCreatedAt, new Date(Date.parse(start) + 60_000).toISOString());
        assert.notEqual(router.enrollmentToken, first.enrollmentToken);
        const payload = await verifyEnrollmentJwt(router.enrollmentJwt);
        assert.deepEqual([payload.em, payload.sub, payload.jti], ['erott', id, router.enrollmentToken]);

        // The old certificate no longer names the router; the old token is gone; the new one works.
        await assertHttpsError(extendRequest(await routerCsrs(id), enrolled.cert, ecKey.keyPem), 401, 'UNAUTHORIZED');
        await assertHttpsError(
          enrollRequest('erott', first.enrollmentToken, await routerCsrs(id)),
          400,
          'INVALID_ENROLLMENT_TOKEN',
        );
        const again = await enroll('erott', id, String(router.enrollmentToken));
        assert.equal((await detail('edge-routers', id)).fingerprint, fingerprintOf(again.cert));
      } finally {
        t.clock.set(start);
      }
    });

    it('replaces an enrollment still outstanding', async () => {
      const id = await createEdgeRouter(t, token);
      const first = (await detail('edge-routers', id)) as { enrollmentToken: string };
      assert.equal(
        (await t.call({ method: 'POST', url: `${MANAGEMENT}/edge-routers/${id}/re-enroll`, token })).status,
        200,
      );
      const count = await t.deps.store.read((db) => selectRows(db, 'enrollments', { router_id: id }));
      assert.equal(count.length, 1);
      assert.notEqual(count[0]!.token, first.enrollmentToken);
    });

    it('answers 404 for an unknown id and for a transit router', async () => {
      const transitId = await createTransitRouter(t, token);
      for (const id of ['no-such-router', transitId]) {
        const result = await t.call({ method: 'POST', url: `${MANAGEMENT}/edge-routers/${id}/re-enroll`, token });
        assert.equal(result.status, 404, result.text);
      }
    });
  });

  describe('enroll with method trott', () => {
    it('enrolls a transit router, which can then extend', async () => {
      const id = await createTransitRouter(t, token);
      const router = await detail('transit-routers', id);
      assert.equal(router.isVerified, false);
      const payload = await verifyEnrollmentJwt(router.enrollmentJwt);
      assert.deepEqual([payload.em, payload.sub, payload.jti], ['trott', id, router.enrollmentToken]);

      const certs = await enroll('trott', id, String(router.enrollmentToken));
      assert.ok(certs.ca && certs.cert && certs.serverCert);
      assert.deepEqual(new X509Certificate(certs.cert).keyUsage, [CLIENT_AUTH]);
      assert.deepEqual(new X509Certificate(certs.serverCert).keyUsage, [SERVER_AUTH]);
      assert.equal(
        new X509Certificate(certs.serverCert).subjectAltName,
        'DNS:router.example.com, IP Address:127.0.0.1',
      );
      const enrolled = await detail('transit-routers', id);
      assert.deepEqual(
        [enrolled.isVerified, enrolled.fingerprint, 'enrollmentJwt' in enrolled],
        [true, fingerprintOf(certs.cert), false],
      );

      const extended = await https(extendRequest(await routerCsrs(id), certs.cert, ecKey.keyPem));
      assert.equal(extended.status, 200, extended.text);
      assert.equal(
        (await detail('transit-routers', id)).fingerprint,
        fingerprintOf((extended.json as { data: EnrollmentCerts }).data.cert),
      );
    });

    it('shows a transit router created through /routers with its trott enrollment', async () => {
      const created = await t.call({
        method: 'POST',
        url: `${MANAGEMENT}/routers`,
        token,
        payload: { name: 'trott-through-routers' },
      });
      assert.equal(created.status, 201, created.text);
      const id = (created.body as { data: { id: string } }).data.id;
      const payload = await verifyEnrollmentJwt((await detail('transit-routers', id)).enrollmentJwt);
      assert.deepEqual([payload.em, payload.sub], ['trott', id]);
    });

    it('goes by the stored method, whatever method the query names', async () => {
      const transitId = await createTransitRouter(t, token);
      const { enrollmentToken } = (await detail('transit-routers', transitId)) as { enrollmentToken: string };
      const certs = await enroll('erott', transitId, enrollmentToken);
      assert.equal((await detail('transit-routers', transitId)).fingerprint, fingerprintOf(certs.cert));
      const edgeResult = await t.call({ method: 'GET', url: `${MANAGEMENT}/edge-routers/${transitId}`, token });
      assert.equal(edgeResult.status, 404);
    });
  });
});
