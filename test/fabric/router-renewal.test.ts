// Certificate renewal over the control channel (issue 30 item 2), as a v1.1.8 router's certificate checker and
// `ziti router run --extend` do it: the new pair comes back signed with the CSRs' SANs, the old certificate keeps
// working until the router verifies the new one, then the new one is the router's on every instance and the old one
// is refused at the next connect; the channel it renewed over stays open. SQLite, or PostgreSQL under npm run
// test:postgres.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { certificateFingerprint } from '../../src/pki/fingerprint.js';
import {
  ContentType as EdgeType,
  EnrollmentExtendRouterVerifyRequestSchema,
  ErrorSchema,
} from '../../src/fabric/messages/gen/edge_ctrl_pb.js';
import { testDatabaseUrl } from '../support/test-app.js';
import { buildTlsTestApp, type TlsTestApp } from '../support/tls-client.js';
import { enrollEdgeRouter, TestRouter, waitUntil, type EnrolledRouter } from '../support/test-router.js';
import { postgresSchema, sqliteFile, type SharedDatabase } from '../support/two-instances.js';

const MANAGEMENT = '/edge/management/v1';

describe(`router certificate renewal over the control channel (${testDatabaseUrl ? 'PostgreSQL' : 'SQLite'})`, () => {
  let database: SharedDatabase;
  let t: TlsTestApp;
  let other: TlsTestApp;
  let token: string;
  let otherToken: string;
  let port: number;
  let otherPort: number;

  before(async () => {
    database = testDatabaseUrl ? await postgresSchema() : sqliteFile();
    t = await buildTlsTestApp(database.options);
    other = await buildTlsTestApp(database.options);
    [token, otherToken] = [await t.loginAsAdmin(), await other.loginAsAdmin()];
    port = (await t.fabric.controlPlane.listen('127.0.0.1', 0)).port;
    otherPort = (await other.fabric.controlPlane.listen('127.0.0.1', 0)).port;
  });
  after(async () => {
    await t?.close();
    await other?.close();
    await database?.drop();
  });

  const detail = async (app: TlsTestApp, adminToken: string, id: string) =>
    (
      (await app.call({ method: 'GET', url: `${MANAGEMENT}/edge-routers/${id}`, token: adminToken })).body as {
        data: { fingerprint: string; unverifiedFingerprint: string | null; isOnline: boolean };
      }
    ).data;
  const connect = (at: number, router: { id: string; certPem: string; keyPem: string }) =>
    TestRouter.connect({ port: at, router, ca: t.deps.pki.caBundlePem });

  it('renews, keeps the old certificate until verified, then accepts only the new one (on every instance)', async () => {
    const router: EnrolledRouter = await enrollEdgeRouter(t, token, { name: 'renewing' });
    const oldFingerprint = (await detail(t, token, router.id)).fingerprint;
    const connected = await connect(port, router);

    const unverified = await connected.renew(router.id, {
      verify: false,
      sans: [
        { type: 'dns', value: 'router.example' },
        { type: 'ip', value: '127.0.0.1' },
      ],
    });
    const client = new X509Certificate(unverified.certPem);
    const server = new X509Certificate(unverified.serverCertPem);
    assert.equal(client.subject.includes(`CN=${router.id}`), true);
    assert.equal(client.subjectAltName, 'DNS:router.example, IP Address:127.0.0.1');
    assert.equal(server.subjectAltName, 'DNS:router.example, IP Address:127.0.0.1');
    assert.ok(Date.parse(client.validTo) - Date.parse(client.validFrom) >= 364 * 86_400_000, 'a year');
    const pending = await detail(other, otherToken, router.id);
    assert.deepEqual(
      [pending.fingerprint, pending.unverifiedFingerprint],
      [oldFingerprint, certificateFingerprint(client.raw)],
    );
    // Not verified (the router could not save its files, or crashed): the old certificate still connects.
    await connected.close();
    await t.fabric.controlPlane.presenceFlushed();
    const again = await connect(otherPort, router);

    const renewed = await again.renew(router.id);
    assert.equal(renewed.verifyCode, '');
    const shown = await detail(t, token, router.id);
    assert.equal(shown.fingerprint, certificateFingerprint(new X509Certificate(renewed.certPem).raw));
    assert.equal(shown.unverifiedFingerprint ?? null, null);
    // The channel it renewed over stays open past the watch that drops re-enrolled routers.
    await other.fabric.controlPlane.watchRouters();
    assert.equal(again.channel.isClosed, false);
    await again.close();
    await other.fabric.controlPlane.presenceFlushed();

    await assert.rejects(connect(port, router), /connection closed before the hello exchange/);
    await assert.rejects(connect(otherPort, router), /connection closed before the hello exchange/);
    const onNew = await connect(port, { id: router.id, certPem: renewed.certPem, keyPem: renewed.keyPem });
    await t.fabric.controlPlane.presenceFlushed();
    await waitUntil(async () => (await detail(other, otherToken, router.id)).isOnline);
    await onNew.close();
  });

  it('answers a verification with nothing outstanding, or another certificate, with upstream’s codes', async () => {
    const router = await enrollEdgeRouter(t, token, { name: 'verify-refusals' });
    const connected = await connect(port, router);
    const verify = async (clientCertPem: string) => {
      const reply = await connected.channel.request(
        {
          contentType: EdgeType.EnrollmentExtendRouterVerifyRequestType,
          headers: new Map(),
          body: toBinary(
            EnrollmentExtendRouterVerifyRequestSchema,
            create(EnrollmentExtendRouterVerifyRequestSchema, { clientCertPem }),
          ),
        },
        5000,
      );
      return fromBinary(ErrorSchema, reply.body).code;
    };
    assert.equal(await verify(''), 'MISSING_CLIENT_PEM');
    assert.equal(await verify(router.certPem), 'INVALID_ROUTER_STATE');
    await connected.renew(router.id, { verify: false });
    assert.equal(await verify(router.certPem), 'INVALID_CLIENT_PEM');
    await connected.close();
  });

  it('sends nothing for a CSR naming another router, and keeps the certificate', async () => {
    const router = await enrollEdgeRouter(t, token, { name: 'wrong-name' });
    const connected = await connect(port, router);
    await assert.rejects(connected.renew('someone-else'), /did not send the awaited message/);
    assert.equal((await detail(t, token, router.id)).unverifiedFingerprint ?? null, null);
    await connected.close();
  });
});
