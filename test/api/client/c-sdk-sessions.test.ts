import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { validateResponse } from '../../../src/http/spec/load-spec.js';
import { operationFor } from '../../support/conformance.js';
import { createEdgeRouter, createEntity, createIdentity, createService } from '../../support/factories.js';
import {
  buildTlsTestApp,
  type TlsRequestOptions,
  type TlsResponse,
  type TlsTestApp,
} from '../../support/tls-client.js';
import { newCsr, newKeyPair } from '../../support/test-keys.js';
import { CLIENT, MANAGEMENT } from '../../support/api-paths.js';

/**
 * The C SDK 1.0.12's sequence (docs/reference/real-clients.md), over real mutual TLS: certificate login, services,
 * posture responses, then Dial and Bind sessions and their refresh, reading exactly the fields the SDK reads.
 */
describe('the C SDK dials and binds', () => {
  let t: TlsTestApp;
  let admin: string;
  let identityId: string;
  let certificate: { cert: string; key: string };
  let serviceId: string;
  let osCheck: string;

  /** Real HTTPS, checked as the conformance helper checks inject() replies: exact JSON type and the schema. */
  async function sdk(options: TlsRequestOptions & { method: 'GET' | 'POST' | 'DELETE' }): Promise<TlsResponse> {
    const result = await t.https(options);
    const where = `${options.method} ${options.path} → ${result.status}`;
    assert.equal(result.headers['content-type'], 'application/json', `${where}: ${result.text}`);
    const operation = operationFor(options.method, options.path);
    assert.ok(operation, where);
    assert.deepEqual(validateResponse(operation, result.status, result.json), [], `${where}: schema`);
    return result;
  }

  const json = (body: unknown) => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  before(async () => {
    t = await buildTlsTestApp();
    admin = await t.loginAsAdmin();

    // An identity enrolled with ott, as the SDK enrolls it: the CSR's key is what it later logs in with.
    identityId = await createIdentity(t, admin, { enrollment: { ott: true }, roleAttributes: ['sdk'] });
    const detail = await t.call({ method: 'GET', url: `${MANAGEMENT}/identities/${identityId}`, token: admin });
    const enrollmentToken = (detail.body as { data: { enrollment: { ott: { token: string } } } }).data.enrollment.ott
      .token;
    const key = await newKeyPair('ec');
    const csr = await newCsr(key, `C=US, ST=NY, O=OpenZiti, DC=localhost, CN=${identityId}`);
    const enrolled = await t.https({
      method: 'POST',
      path: `${CLIENT}/enroll?method=ott&token=${enrollmentToken}`,
      headers: { 'content-type': 'text/plain', accept: 'application/json' },
      body: csr,
    });
    assert.equal(enrolled.status, 200, enrolled.text);
    certificate = { cert: (enrolled.json as { data: { cert: string } }).data.cert, key: key.keyPem };

    // An enrolled (verified) edge router, as current-identity/edge-routers lists only those.
    const routerId = await createEdgeRouter(t, admin, { roleAttributes: ['public'] });
    const routerDetail = await t.call({ method: 'GET', url: `${MANAGEMENT}/edge-routers/${routerId}`, token: admin });
    const routerToken = (routerDetail.body as { data: { enrollmentToken: string } }).data.enrollmentToken;
    const [serverKey, clientKey] = await Promise.all([newKeyPair('rsa'), newKeyPair('ec')]);
    const sans = [
      { type: 'dns' as const, value: 'router.example.com' },
      { type: 'ip' as const, value: '127.0.0.1' },
    ];
    const csrs = {
      serverCertCsr: await newCsr(serverKey, `C=US, O=OpenZiti, CN=${routerId}`, sans),
      certCsr: await newCsr(clientKey, `C=US, O=OpenZiti, CN=${routerId}`, sans),
    };
    const routerEnrolled = await t.https({
      method: 'POST',
      path: `${CLIENT}/enroll?method=erott&token=${routerToken}`,
      ...json(csrs),
    });
    assert.equal(routerEnrolled.status, 200, routerEnrolled.text);

    await createEntity(t, admin, 'edge-router-policies', {
      name: 'sdk-routers',
      semantic: 'AnyOf',
      identityRoles: ['#sdk'],
      edgeRouterRoles: ['#public'],
    });
    await createEntity(t, admin, 'service-edge-router-policies', {
      name: 'all-services',
      semantic: 'AnyOf',
      serviceRoles: ['#all'],
      edgeRouterRoles: ['#public'],
    });
    osCheck = await createEntity(t, admin, 'posture-checks', {
      name: 'sdk-os',
      typeId: 'OS',
      roleAttributes: ['sdk-posture'],
      operatingSystems: [{ type: 'Linux', versions: ['>=5.0.0'] }],
    });
    serviceId = await createService(t, admin, { name: 'sdk-service', roleAttributes: ['sdk-service'] });
    for (const type of ['Dial', 'Bind']) {
      await createEntity(t, admin, 'service-policies', {
        name: `sdk-${type}`,
        type,
        semantic: 'AllOf',
        identityRoles: ['#sdk'],
        serviceRoles: ['#sdk-service'],
        postureCheckRoles: ['#sdk-posture'],
      });
    }
  });
  after(() => t.close());

  it('logs in with its certificate, reports posture, creates Dial and Bind sessions and refreshes them', async () => {
    const login = await sdk({
      method: 'POST',
      path: `${CLIENT}/authenticate?method=cert`,
      ...json({
        sdkInfo: { type: 'ziti-sdk-c', version: '1.0.12', appId: 'test', appVersion: '1.0' },
        envInfo: { os: 'Linux', osRelease: '6.1.0', arch: 'x86_64' },
        configTypes: ['all'],
      }),
      ...certificate,
    });
    assert.equal(login.status, 200, login.text);
    const headers = { 'zt-session': (login.json as { data: { token: string } }).data.token };
    const get = (path: string) => sdk({ method: 'GET', path: `${CLIENT}/${path}`, headers });
    const post = (path: string, body: unknown) =>
      sdk({
        method: 'POST',
        path: `${CLIENT}/${path}`,
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });

    assert.equal((await get('current-identity')).status, 200);
    const routers = (await get('current-identity/edge-routers?limit=25&offset=0')).json as {
      data: { name: string; supportedProtocols: Record<string, string> }[];
    };
    assert.equal(routers.data.length, 1);
    assert.equal((await get('current-api-session/service-updates')).status, 200);
    const services = (await get('services?limit=25&offset=0')).json as {
      data: {
        id: string;
        name: string;
        postureQueries: { isPassing: boolean; postureQueries: { id: string; queryType: string }[] }[];
      }[];
    };
    const service = services.data.find((s) => s.id === serviceId)!;
    assert.ok(
      service.postureQueries.every((policy) => !policy.isPassing),
      'nothing reported yet',
    );

    // It answers the posture queries it was given, then tells the controller the endpoint woke.
    const queried = service.postureQueries
      .flatMap((policy) => policy.postureQueries)
      .find((query) => query.queryType === 'OS')!;
    assert.equal(queried.id, osCheck);
    assert.equal(
      (
        await post('posture-response-bulk', [
          { id: queried.id, typeId: 'OS', type: 'Linux', version: '6.1.0', build: '6.1.0-17-amd64' },
        ])
      ).status,
      201,
    );
    assert.equal(
      (await post('posture-response', { id: 'endpoint-state', typeId: 'ENDPOINT_STATE', woken: false, unlocked: true }))
        .status,
      201,
    );

    for (const type of ['Dial', 'Bind']) {
      const created = await post('sessions', { serviceId, type });
      assert.equal(created.status, 201, created.text);
      const session = (
        created.json as {
          data: {
            id: string;
            token: string;
            serviceId: string;
            edgeRouters: { name: string; hostname: string; supportedProtocols: Record<string, string> }[];
          };
        }
      ).data;
      assert.match(session.token, /^[0-9a-f-]{36}$/);
      assert.equal(session.serviceId, serviceId);
      assert.deepEqual(
        session.edgeRouters.map((r) => r.name),
        routers.data.map((r) => r.name),
      );
      for (const edgeRouter of session.edgeRouters) {
        const listed = routers.data.find((r) => r.name === edgeRouter.name)!;
        // The SDK dials only through connections it opened from current-identity/edge-routers, by URL.
        assert.equal(edgeRouter.supportedProtocols.tls, listed.supportedProtocols.tls);
        assert.deepEqual(edgeRouter.supportedProtocols, listed.supportedProtocols);
        assert.equal(typeof edgeRouter.hostname, 'string');
      }
      const refreshed = await get(`sessions/${session.id}`);
      assert.equal(refreshed.status, 200);
      assert.deepEqual((refreshed.json as { data: { id: string; token: string } }).data.id, session.id);
      assert.equal((refreshed.json as { data: { token: string } }).data.token, session.token);
    }

    assert.equal((await sdk({ method: 'DELETE', path: `${CLIENT}/current-api-session`, headers })).status, 200);
    const gone = await t.call({
      method: 'GET',
      url: `${MANAGEMENT}/sessions?filter=${encodeURIComponent(`identity = "${identityId}"`)}`,
      token: admin,
    });
    assert.equal(
      (gone.body as { meta: { pagination: { totalCount: number } } }).meta.pagination.totalCount,
      0,
      'logout took its sessions',
    );
  });
});
