import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createHash, X509Certificate } from 'node:crypto';
import { buildTestApp, type TestApp, testTime } from '../../support/test-app.js';
import { assertError } from '../../support/conformance.js';
import { createUser, login } from '../../support/factories.js';
import { createCsr } from '../../support/third-party-ca.js';

const base = '/edge/client/v1/current-api-session/certificates';

interface Created {
  id: string;
  certificate: string;
  cas: string;
  _links: { self: { href: string } };
}

describe('API-session certificates', () => {
  let t: TestApp;
  let admin: string;
  let mine: string;
  let theirs: string;

  before(async () => {
    t = await buildTestApp();
    admin = await t.loginAsAdmin();
    const user = await createUser(t, admin);
    mine = await login(t, user.username, user.password);
    theirs = await login(t, user.username, user.password);
  });
  after(() => t.close());

  async function createCertificate(token: string, commonName = 'session-cert'): Promise<Created> {
    const { csrPem } = await createCsr(commonName, 'ec', [{ type: 'dns', value: 'dropped.example' }]);
    const result = await t.call({ method: 'POST', url: base, token, payload: { csr: csrPem } });
    assert.equal(result.status, 201, result.text);
    return (result.body as { data: Created }).data;
  }

  describe('createCurrentApiSessionCertificate', () => {
    it('signs a 12-hour client certificate from now, with the CA bundle', async () => {
      const created = await createCertificate(mine);
      assert.equal(created._links.self.href, `./current-api-session/certificates/${created.id}`);
      assert.equal(created.cas, t.deps.pki.caBundlePem);
      const certificate = new X509Certificate(created.certificate);
      assert.ok(certificate.checkIssued(new X509Certificate(t.deps.pki.signingCertPem)));
      assert.equal(Date.parse(certificate.validFrom), Math.floor(t.clock().getTime() / 1000) * 1000);
      assert.equal(Date.parse(certificate.validTo) - Date.parse(certificate.validFrom), 12 * 3_600_000);
      assert.deepEqual(certificate.keyUsage, ['1.3.6.1.5.5.7.3.2']);
      assert.equal(certificate.subjectAltName, undefined, 'the CSR’s SANs are not copied');
    });

    it('refuses a bad CSR with 400 COULD_NOT_PROCESS_CSR', async () => {
      assertError(
        await t.call({ method: 'POST', url: base, token: mine, payload: { csr: 'not a csr' } }),
        400,
        'COULD_NOT_PROCESS_CSR',
      );
    });

    it('needs a session', async () => {
      const { csrPem } = await createCsr('anonymous');
      assertError(await t.call({ method: 'POST', url: base, payload: { csr: csrPem } }), 401, 'UNAUTHORIZED');
    });
  });

  describe('list, detail and delete', () => {
    it('show each session only its own certificates', async () => {
      const own = await createCertificate(mine, 'own');
      const other = await createCertificate(theirs, 'other');
      const listed = await t.call({ method: 'GET', url: base, token: mine });
      assert.equal(listed.status, 200, listed.text);
      const ids = (listed.body as { data: { id: string }[] }).data.map((c) => c.id);
      assert.ok(ids.includes(own.id));
      assert.ok(!ids.includes(other.id), 'upstream lists every session’s certificates (quirk Q6); we do not');

      const detail = await t.call({ method: 'GET', url: `${base}/${own.id}`, token: mine });
      assert.equal(detail.status, 200, detail.text);
      const data = (detail.body as { data: Record<string, unknown> }).data;
      assert.equal(data.certificate, own.certificate);
      // The CSR says CN=own, O=Test; upstream's signer rebuilds the subject in pkix.Name order, then prints it reversed.
      assert.equal(data.subject, 'CN=own,O=Test', 'as upstream v1.1.8 answers for the same CSR');
      assert.equal(data.fingerprint, createHash('sha1').update(new X509Certificate(own.certificate).raw).digest('hex'));
      assert.equal(data.validFrom, testTime());
      assert.equal(data.validTo, testTime(12 * 3600_000));

      assertError(await t.call({ method: 'GET', url: `${base}/${other.id}`, token: mine }), 404, 'NOT_FOUND');
      assertError(await t.call({ method: 'DELETE', url: `${base}/${other.id}`, token: mine }), 404, 'NOT_FOUND');
      assert.equal((await t.call({ method: 'DELETE', url: `${base}/${own.id}`, token: mine })).status, 200);
      assertError(await t.call({ method: 'GET', url: `${base}/${own.id}`, token: mine }), 404, 'NOT_FOUND');
      assert.equal((await t.call({ method: 'GET', url: `${base}/${other.id}`, token: theirs })).status, 200);
    });

    it('filters and pages like other lists', async () => {
      const session = await login(t, ...(await credentials()));
      await createCertificate(session, 'alpha');
      await createCertificate(session, 'beta');
      const filtered = await t.call({
        method: 'GET',
        url: `${base}?filter=${encodeURIComponent('subject contains "beta"')}`,
        token: session,
      });
      assert.deepEqual(
        (filtered.body as { data: { subject: string }[] }).data.map((c) => c.subject),
        ['CN=beta,O=Test'],
      );
      const paged = await t.call({ method: 'GET', url: `${base}?limit=1`, token: session });
      assert.equal((paged.body as { meta: { pagination: { totalCount: number } } }).meta.pagination.totalCount, 2);
      // Upstream's symbols: apiSession, subject, fingerprint and the base ones; not the validity dates.
      const fields = (paged.body as { meta: { filterableFields: string[] } }).meta.filterableFields;
      assert.deepEqual([...fields].sort(), [
        'apiSession',
        'createdAt',
        'fingerprint',
        'id',
        'isSystem',
        'subject',
        'tags',
        'updatedAt',
      ]);
      assertError(
        await t.call({
          method: 'GET',
          url: `${base}?filter=${encodeURIComponent('validTo > datetime(2020-01-01T00:00:00Z)')}`,
          token: session,
        }),
        400,
        'INVALID_FILTER',
      );
    });

    it('go with their session at logout', async () => {
      const session = await login(t, ...(await credentials()));
      await createCertificate(session);
      const count = async () =>
        (
          (await t.call({ method: 'GET', url: '/edge/management/v1/summary', token: admin })).body as {
            data: { apiSessionCertificates: number };
          }
        ).data.apiSessionCertificates;
      const before = await count();
      assert.equal(
        (await t.call({ method: 'DELETE', url: '/edge/client/v1/current-api-session', token: session })).status,
        200,
      );
      assert.equal(await count(), before - 1);
    });
  });

  async function credentials(): Promise<[string, string]> {
    const user = await createUser(t, admin);
    return [user.username, user.password];
  }
});
