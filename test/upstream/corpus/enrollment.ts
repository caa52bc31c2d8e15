// Enrollment as SDKs and routers do it: updb and ott for identities (used, reused, expired, unknown tokens), the
// legacy /enroll dispatcher, certificate login and extension, API-session certificates, third-party CAs (verify,
// ottca, auto enrollment), routers (erott, trott, extension), the JWKS and the challenge.
import { randomUUID } from 'node:crypto';
import { createCsr, createTestCa, issueTestCertificate } from '../../support/third-party-ca.js';
import { sequence, type Steps } from '../steps.js';
import { enrolledIdentity, routerCsrs } from './fixtures.js';

const hour = 3_600_000;
/** A token no enrollment has: fixed, so the exchange pairs up between the two runs. */
const UNKNOWN_TOKEN = '00000000-0000-4000-8000-000000000000';

async function identityEnrollmentToken(s: Steps, id: string, method: 'ott' | 'updb' | 'ottca'): Promise<string> {
  const token = (await s.get(`/identities/${id}`)).data?.enrollment?.[method]?.token;
  s.name(token, `${method}-token`);
  return String(token);
}

export const enrollment = [
  sequence('enroll-updb', async (s) => {
    const id = await s.create('updb-identity', '/identities', {
      name: 'updb-identity',
      type: 'User',
      isAdmin: false,
      enrollment: { updb: 'updb-user' },
    });
    const token = await identityEnrollmentToken(s, id, 'updb');
    const enroll = s.client.as('anonymous');
    await enroll.post(`/enroll/updb?token=${token}`, { body: { password: 'x' } });
    await enroll.post(`/enroll/updb?token=${token}`, { body: {} });
    await enroll.post(`/enroll/updb?token=${token}`, { body: { password: 'Updb-Password-1' } });
    await enroll.post(`/enroll/updb?token=${token}`, { body: { password: 'Updb-Password-1' } });
    await enroll.post(`/enroll/updb?token=${UNKNOWN_TOKEN}`, { body: { password: 'Updb-Password-1' } });
    await enroll.post('/enroll/updb', { body: { password: 'Updb-Password-1' } });
    await s.client.login('updb-user', 'updb-user', 'Updb-Password-1');
    await s.get(`/identities/${id}`);
    await s.get(`/identities/${id}/authenticators`);
  }),
  sequence('enroll-ott', async (s) => {
    const id = await s.create('ott-identity', '/identities', {
      name: 'ott-identity',
      type: 'Device',
      isAdmin: false,
      enrollment: { ott: true },
    });
    await s.get(`/identities/${id}`);
    const token = await identityEnrollmentToken(s, id, 'ott');
    const csr = await createCsr('ott-identity');
    const enroll = s.client.as('anonymous');
    // The per-method path takes JSON only (the contract); SDKs post the PEM CSR to /enroll?method=ott.
    await enroll.post(`/enroll/ott?token=${token}`, { body: csr.csrPem, contentType: 'text/plain' });
    await enroll.post(`/enroll?method=ott&token=${token}`, { body: 'not a csr', contentType: 'text/plain' });
    await enroll.post(`/enroll?method=ott&token=${token}`, { body: '', contentType: 'text/plain' });
    const enrolled = await enroll.post(`/enroll?method=ott&token=${token}`, {
      body: csr.csrPem,
      contentType: 'text/plain',
    });
    await enroll.post(`/enroll?method=ott&token=${token}`, { body: csr.csrPem, contentType: 'text/plain' });
    await enroll.post(`/enroll?method=ott&token=${token}`, {
      body: csr.csrPem,
      contentType: 'application/x-pem-file',
      headers: { accept: '*/*' },
    });
    await enroll.post(`/enroll?method=ott&token=${UNKNOWN_TOKEN}`, { body: csr.csrPem, contentType: 'text/plain' });
    await s.get(`/identities/${id}`);
    await s.get(`/identities/${id}/authenticators`);
    const cert = { cert: String(enrolled.data?.cert ?? ''), key: csr.keyPem };
    const login = await s.client.as('anonymous').post('/authenticate?method=cert', { body: {}, cert });
    s.useToken('ott-identity', login.data?.token);
    await s.as('ott-identity').client.get('/current-identity');
    await s.client.as('anonymous').post('/authenticate?method=cert', { body: {} });
    await s.management.as('anonymous').post('/authenticate?method=cert', { body: {}, cert });
  }),
  sequence('enroll-legacy-and-expired', async (s) => {
    const id = await s.create('legacy-identity', '/identities', {
      name: 'legacy-identity',
      type: 'Device',
      isAdmin: false,
      enrollment: { ott: true },
    });
    const csr = await createCsr('legacy-identity');
    const token = await identityEnrollmentToken(s, id, 'ott');
    const enroll = s.client.as('anonymous');
    await enroll.post(`/enroll?token=${token}`, { body: csr.csrPem, contentType: 'text/plain' });
    await enroll.post(`/enroll?method=ott&token=${token}`, { body: csr.csrPem, contentType: 'application/x-pem-file' });
    await enroll.post(`/enroll?method=nope&token=${token}`, { body: csr.csrPem, contentType: 'text/plain' });
    await enroll.post(`/enroll?method=ott&token=${token}`, { body: csr.csrPem, contentType: 'text/plain' });
    const expiring = await s.create('expiring-identity', '/identities', {
      name: 'expiring-identity',
      type: 'Device',
      isAdmin: false,
    });
    const past = new Date(Date.now() - hour).toISOString();
    const enrollmentId = await s.create('expired-enrollment', '/enrollments', {
      identityId: expiring,
      method: 'ott',
      expiresAt: past,
    });
    await s.get(`/enrollments/${enrollmentId}`);
    // An enrollment that expires while the sequence waits for it: upstream does not check expiry (its bug).
    const soon = await s.create('expiring-enrollment', '/enrollments', {
      identityId: expiring,
      method: 'ott',
      expiresAt: new Date(Date.now() + 1500).toISOString(),
    });
    const expired = await s.get(`/enrollments/${soon}`);
    s.name(expired.data?.token, 'expired-token');
    await new Promise((resolve) => setTimeout(resolve, 2500));
    await enroll.post(`/enroll?method=ott&token=${expired.data?.token}`, {
      body: (await createCsr('expiring-identity')).csrPem,
      contentType: 'text/plain',
    });
  }),
  sequence('certificates', async (s) => {
    const me = await enrolledIdentity(s, 'cert-identity');
    const session = s.as('cert-identity').client;
    const authenticators = await session.get('/current-identity/authenticators');
    const authenticatorId = String(authenticators.data?.[0]?.id ?? 'missing');
    s.name(authenticatorId, 'cert-authenticator');
    const csr = await createCsr('cert-identity');
    const cert = { cert: me.cert, key: me.key };
    await session.post(`/current-identity/authenticators/${authenticatorId}/extend`, {
      body: { clientCertCsr: csr.csrPem },
    });
    const extended = await session.post(`/current-identity/authenticators/${authenticatorId}/extend`, {
      body: { clientCertCsr: csr.csrPem },
      cert,
    });
    await session.post(`/current-identity/authenticators/${authenticatorId}/extend-verify`, {
      body: { clientCert: 'not a certificate' },
      cert,
    });
    await session.post(`/current-identity/authenticators/${authenticatorId}/extend-verify`, {
      body: { clientCert: String(extended.data?.clientCert ?? '') },
      cert,
    });
    await session.management.post(`/current-identity/authenticators/${authenticatorId}/extend`, {
      body: { clientCertCsr: csr.csrPem },
      cert,
    });
    await session.management.post(`/current-identity/authenticators/${authenticatorId}/extend-verify`, {
      body: { clientCert: 'x' },
      cert,
    });
    const ephemeral = await createCsr('ephemeral');
    const created = await session.post('/current-api-session/certificates', { body: { csr: ephemeral.csrPem } });
    s.name(created.data?.id, 'api-session-certificate');
    await session.post('/current-api-session/certificates', { body: { csr: 'not a csr' } });
    await session.get('/current-api-session/certificates');
    await session.get(`/current-api-session/certificates/${created.data?.id}`);
    await session.get('/current-api-session/certificates/no-such-id');
    await session.delete(`/current-api-session/certificates/${created.data?.id}`);
    await session.delete('/current-api-session/certificates/no-such-id');
  }),
  sequence('third-party-ca', async (s) => {
    const now = new Date();
    const ca = await createTestCa('diff-third-party', now);
    const caId = await s.create('third-party-ca', '/cas', {
      name: 'third-party-ca',
      certPem: ca.certPem,
      identityRoles: ['from-ca'],
      isAuthEnabled: true,
      isAutoCaEnrollmentEnabled: true,
      isOttCaEnrollmentEnabled: true,
      identityNameFormat: '[caName]-[commonName]',
    });
    const detail = await s.get(`/cas/${caId}`);
    const verificationToken = String(detail.data?.verificationToken ?? '');
    s.name(verificationToken, 'verification-token');
    await s.get(`/cas/${caId}/jwt`, { headers: { accept: '*/*' } });
    const anonymous = s.client.as('anonymous');
    const early = await issueTestCertificate(ca, { commonName: 'early-device', now });
    await anonymous.post('/enroll/ca', { body: {}, cert: { cert: early.certPem, key: early.keyPem } });
    await s.post(`/cas/${caId}/verify`, {
      body: (await issueTestCertificate(ca, { commonName: 'wrong-name', now })).certPem,
      contentType: 'text/plain',
    });
    await s.post(`/cas/${caId}/verify`, {
      body: (await issueTestCertificate(ca, { commonName: verificationToken, now })).certPem,
      contentType: 'text/plain',
    });
    await s.get(`/cas/${caId}`);
    await s.post(`/cas/${caId}/verify`, {
      body: (await issueTestCertificate(ca, { commonName: verificationToken, now })).certPem,
      contentType: 'text/plain',
    });
    const device = await issueTestCertificate(ca, { commonName: 'auto-device', now });
    // What the SDKs send (method in the query), then the per-method path without it.
    await anonymous.post('/enroll?method=ca', { body: {}, cert: { cert: device.certPem, key: device.keyPem } });
    await anonymous.post('/enroll/ca', { body: {}, cert: { cert: device.certPem, key: device.keyPem } });
    await anonymous.post('/enroll?method=ca', { body: {} });
    await s.get(`/identities?filter=${encodeURIComponent('name = "third-party-ca-auto-device"')}`);
    const login = await anonymous.post('/authenticate?method=cert', {
      body: {},
      cert: { cert: device.certPem, key: device.keyPem },
    });
    s.useToken('auto-device', login.data?.token);
    await s.as('auto-device').client.get('/current-identity');
    const ottcaId = await s.create('ottca-identity', '/identities', {
      name: 'ottca-identity',
      type: 'Device',
      isAdmin: false,
      enrollment: { ottca: caId },
    });
    const token = await identityEnrollmentToken(s, ottcaId, 'ottca');
    const ottcaDevice = await issueTestCertificate(ca, { commonName: 'ottca-device', now });
    await anonymous.post(`/enroll/ottca?token=${token}`, { body: {} });
    await anonymous.post(`/enroll/ottca?token=${token}`, {
      body: {},
      cert: { cert: ottcaDevice.certPem, key: ottcaDevice.keyPem },
    });
    await anonymous.post(`/enroll/ottca?token=${token}`, {
      body: {},
      cert: { cert: ottcaDevice.certPem, key: ottcaDevice.keyPem },
    });
    await s.get(`/identities/${ottcaId}/authenticators`);
    // Identities the CA enrolment created (through the client API, so the sequence did not track them).
    const byCa = await s.get(`/identities?filter=${encodeURIComponent('name contains "third-party-ca-"')}&sort=name`);
    for (const [index, created] of ((byCa.data ?? []) as Array<{ id: string }>).entries()) {
      s.name(created.id, `ca-enrolled-${index}`);
      await s.delete(`/identities/${created.id}`);
    }
  }),
  sequence('enroll-routers', async (s) => {
    const edgeRouter = await s.create('enroll-edge-router', '/edge-routers', {
      name: 'enroll-edge-router',
      isTunnelerEnabled: true,
      roleAttributes: ['public'],
    });
    const erott = (await s.get(`/edge-routers/${edgeRouter}`)).data?.enrollmentToken;
    s.name(erott, 'erott-token');
    const anonymous = s.client.as('anonymous');
    const edgeCsrs = await routerCsrs(edgeRouter);
    // The contract's own path, with the client CSR missing (upstream's binding has read the body by then).
    await anonymous.post(`/enroll/erott?token=${erott}`, { body: { serverCertCsr: edgeCsrs.body.serverCertCsr } });
    // What `ziti router enroll` sends: the enrollment URL its JWT names.
    await anonymous.post(`/enroll?method=erott&token=${erott}`, {
      body: { serverCertCsr: edgeCsrs.body.serverCertCsr },
    });
    const enrolled = await anonymous.post(`/enroll?method=erott&token=${erott}`, { body: edgeCsrs.body });
    await anonymous.post(`/enroll?method=erott&token=${erott}`, { body: edgeCsrs.body });
    await s.get(`/edge-routers/${edgeRouter}`);
    await s.get(`/identities?filter=${encodeURIComponent('name = "enroll-edge-router"')}`);
    const routerCert = { cert: String(enrolled.data?.cert ?? ''), key: edgeCsrs.clientKey };
    const renewal = await routerCsrs(edgeRouter);
    await anonymous.post('/enroll/extend/router', { body: renewal.body });
    await anonymous.post('/enroll/extend/router', { body: { certCsr: renewal.body.certCsr }, cert: routerCert });
    await anonymous.post('/enroll/extend/router', { body: renewal.body, cert: routerCert });
    await s.post(`/edge-routers/${edgeRouter}/re-enroll`);
    await s.get(`/edge-routers/${edgeRouter}`);

    const transitRouter = await s.create('enroll-transit-router', '/transit-routers', {
      name: 'enroll-transit-router',
    });
    const trott = (await s.get(`/transit-routers/${transitRouter}`)).data?.enrollmentToken;
    s.name(trott, 'trott-token');
    const transitCsrs = await routerCsrs(transitRouter);
    await anonymous.post(`/enroll?method=trott&token=${trott}`, { body: transitCsrs.body });
    await anonymous.post(`/enroll?method=trott&token=${trott}`, { body: transitCsrs.body });
    await s.get(`/transit-routers/${transitRouter}`);
  }),
  sequence('enrollment-keys', async (s) => {
    const anonymous = s.client.as('anonymous');
    const jwks = await anonymous.get('/enroll/jwks');
    const keyId = String(jwks.json && (jwks.json as { keys?: Array<{ kid?: string }> }).keys?.[0]?.kid);
    s.name(keyId, 'jwks-kid');
    await anonymous.post('/enroll/challenge', { body: { keyId, nonce: randomUUID() } });
    await anonymous.post('/enroll/challenge', { body: { keyId: 'no-such-key', nonce: randomUUID() } });
    await anonymous.post('/enroll/challenge', { body: { keyId, nonce: 'not-a-uuid' } });
    await anonymous.post('/enroll/challenge', { body: {} });
  }),
];
