import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { X509Certificates } from '@peculiar/x509';
import { buildTestApp, type TestApp } from '../../support/test-app.js';
import { assertError } from '../../support/conformance.js';

describe('informational endpoints', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  describe('listVersion', () => {
    it('answers the same document at /, /version and under both API prefixes', async () => {
      const urls = [
        '/',
        '/version',
        '/edge/client/v1/version',
        '/edge/management/v1/version',
        '/edge/client/v1/',
        '/edge/v1/version',
      ];
      const bodies = await Promise.all(urls.map(async (url) => (await t.call({ method: 'GET', url })).body));
      for (const body of bodies) assert.deepEqual(body, bodies[0]);
    });

    it('reports our version, runtime, capabilities and API base URLs from the advertised address', async () => {
      const { status, body } = await t.call({ method: 'GET', url: '/edge/management/v1/version' });
      assert.equal(status, 200);
      const data = (body as { data: Record<string, unknown> }).data;
      // Upstream's version, which routers and SDKs compare against; ours is in the server header.
      assert.equal(data.version, 'v1.1.8');
      assert.equal(data.revision, t.deps.build.revision);
      assert.match(data.buildDate as string, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      assert.equal(data.runtimeVersion, process.version);
      assert.deepEqual(data.capabilities, []);
      const apis = data.apiVersions as Record<string, { v1: { apiBaseUrls: string[]; path: string } }>;
      assert.deepEqual(Object.keys(apis).sort(), ['edge', 'edge-client', 'edge-management']);
      assert.deepEqual(apis.edge, apis['edge-client']);
      assert.deepEqual(apis['edge-management']!.v1, {
        apiBaseUrls: ['https://localhost:1280/edge/management/v1'],
        path: '/edge/management/v1',
      });
      assert.deepEqual((body as { meta: unknown }).meta, { apiEnrollmentVersion: '0.0.1', apiVersion: '0.0.1' });
    });

    it('sets the instance id and server headers', async () => {
      const a = await t.call({ method: 'GET', url: '/version' });
      const b = await t.call({ method: 'GET', url: '/edge/client/v1/version' });
      assert.match(String(a.headers['ziti-instance-id']), /^c[0-9a-z]{24}$/);
      assert.equal(a.headers['ziti-instance-id'], b.headers['ziti-instance-id']);
      assert.match(String(a.headers.server), /^ziti-controller\/v/);
    });
  });

  it('lists every known capability', async () => {
    const { body } = await t.call({ method: 'GET', url: '/edge/client/v1/enumerated-capabilities' });
    assert.deepEqual((body as { data: unknown }).data, ['OIDC_AUTH', 'HA_CONTROLLER']);
  });

  it('lists the https protocol address on the client API', async () => {
    const { body } = await t.call({ method: 'GET', url: '/edge/client/v1/protocols' });
    assert.deepEqual((body as { data: unknown }).data, { https: { address: 'localhost:1280' } });
  });

  describe('specs', () => {
    it('lists both documents and details each', async () => {
      const list = await t.call({ method: 'GET', url: '/edge/management/v1/specs' });
      const ids = (list.body as { data: { id: string }[] }).data.map((s) => s.id);
      assert.deepEqual(ids, ['edge-client', 'edge-management']);
      const detail = await t.call({ method: 'GET', url: '/edge/client/v1/specs/edge-management' });
      assert.equal((detail.body as { data: { name: string } }).data.name, 'edge-management');
    });

    it('serves our own documents raw, as JSON or YAML', async () => {
      const json = await t.call({ method: 'GET', url: '/edge/client/v1/specs/edge-client/spec' });
      assert.equal(json.status, 200);
      assert.equal(json.headers['content-type'], 'application/json');
      const document = JSON.parse(json.text) as { swagger: string; basePath: string; paths: Record<string, unknown> };
      assert.equal(document.swagger, '2.0');
      assert.equal(document.basePath, '/edge/client/v1');
      assert.ok(document.paths['/authenticate']);
      const yaml = await t.call({
        method: 'GET',
        url: '/edge/management/v1/specs/edge-management/spec',
        headers: { accept: 'text/yaml' },
      });
      assert.equal(yaml.headers['content-type'], 'text/yaml');
      assert.match(yaml.text, /^swagger: "?2\.0"?/m);
    });

    it('answers 404 NOT_FOUND for an unknown spec', async () => {
      assertError(await t.call({ method: 'GET', url: '/edge/client/v1/specs/nope' }), 404, 'NOT_FOUND');
      assertError(await t.call({ method: 'GET', url: '/edge/client/v1/specs/nope/spec' }), 404, 'NOT_FOUND');
    });
  });

  describe('listWellKnownCas', () => {
    it('serves the CA bundle as base64 PKCS#7 in 64-character lines ending with a newline, at the root and per API', async () => {
      const urls = [
        '/.well-known/est/cacerts',
        '/edge/client/v1/.well-known/est/cacerts',
        '/edge/management/v1/.well-known/est/cacerts',
      ];
      for (const url of urls) {
        const result = await t.call({ method: 'GET', url });
        assert.equal(result.status, 200, url);
        assert.equal(result.headers['content-type'], 'application/pkcs7-mime');
        assert.ok(result.text.endsWith('\n'));
        for (const line of result.text.trimEnd().split('\n')) assert.ok(line.length <= 64);
        const certs = new X509Certificates(Buffer.from(result.text.replace(/\n/g, ''), 'base64'));
        assert.equal(certs.length, 2);
      }
    });

    it('answers the bundle to a client that accepts only JSON, as upstream does (its Go client sends that on everything)', async () => {
      const urls = [
        '/.well-known/est/cacerts',
        '/edge/client/v1/.well-known/est/cacerts',
        '/edge/management/v1/.well-known/est/cacerts',
      ];
      for (const url of urls) {
        const result = await t.call({ method: 'GET', url, headers: { accept: 'application/json' } });
        assert.equal(result.status, 200, `${url}: ${result.text}`);
        assert.equal(result.headers['content-type'], 'application/pkcs7-mime');
        assert.equal(new X509Certificates(Buffer.from(result.text.replace(/\n/g, ''), 'base64')).length, 2);
      }
    });
  });

  describe('listControllers', () => {
    type ControllerEntry = Record<string, unknown> & {
      apiAddresses: Record<string, Array<{ url: string; version: string }>>;
    };
    const list = async (api: 'client' | 'management', query = '') => {
      const token = await t.loginAsAdmin(api);
      const result = await t.call({ method: 'GET', url: `/edge/${api}/v1/controllers${query}`, token });
      assert.equal(result.status, 200, result.text);
      return result.body as { data: ControllerEntry[]; meta: { pagination: unknown; filterableFields: string[] } };
    };

    it('needs a session', async () => {
      assertError(await t.call({ method: 'GET', url: '/edge/client/v1/controllers' }), 401, 'UNAUTHORIZED');
    });

    it('describes this instance from its settings and the shared server certificate, online', async () => {
      const { data, meta } = await list('management');
      assert.deepEqual(meta.pagination, { limit: 10, offset: 0, totalCount: 1 });
      assert.ok(meta.filterableFields.includes('isOnline'));
      const [entry] = data;
      assert.equal(entry?.id, t.deps.instanceId, 'each instance under the id it answers with (ziti-instance-id)');
      assert.equal(entry?.name, 'localhost');
      assert.equal(entry?.isOnline, true);
      assert.equal(entry?.ctrlAddress, null, 'no router control channel here');
      assert.equal(entry?.fingerprint, t.deps.pki.serverCertFingerprint);
      assert.equal(entry?.certPem, t.deps.pki.serverCertPem);
      assert.equal(entry?.lastJoinedAt, t.deps.health.startedAt);
      assert.deepEqual(entry?.apiAddresses, {
        'edge-client': [{ url: 'https://localhost:1280/edge/client/v1', version: 'v1' }],
        'edge-management': [{ url: 'https://localhost:1280/edge/management/v1', version: 'v1' }],
      });
      assert.deepEqual(entry?._links, { self: { href: `./controllers/${t.deps.instanceId}` } });
    });

    it('shows clients only their own API and no control address', async () => {
      const [entry] = (await list('client')).data;
      assert.equal('ctrlAddress' in entry!, false);
      assert.deepEqual(Object.keys(entry!.apiAddresses), ['edge-client']);
    });

    it('filters, sorts and pages like any list, and rejects a bad filter', async () => {
      assert.equal(
        (await list('management', `?filter=${encodeURIComponent('isOnline = true and name = "localhost"')}`)).data
          .length,
        1,
      );
      const none = await list('management', `?filter=${encodeURIComponent('name = "elsewhere"')}`);
      assert.deepEqual(none.data, []);
      assert.deepEqual(none.meta.pagination, { limit: 10, offset: 0, totalCount: 0 });
      assert.equal((await list('client', '?offset=1')).data.length, 0);
      const token = await t.loginAsAdmin('client');
      assertError(
        await t.call({ method: 'GET', url: '/edge/client/v1/controllers?filter=nope%20%3D%201', token }),
        400,
        'INVALID_FILTER',
      );
    });

    it('takes its name from controller.name when set', async () => {
      const named = await buildTestApp({
        settings: { controllerName: 'ctrl-east-1', advertisedHost: 'ctrl.example.com', advertisedPort: 8441 },
      });
      try {
        const token = await named.loginAsAdmin();
        const result = await named.call({ method: 'GET', url: '/edge/management/v1/controllers', token });
        const [entry] = (result.body as { data: ControllerEntry[] }).data;
        assert.equal(entry?.name, 'ctrl-east-1');
        assert.equal(entry?.apiAddresses['edge-client']?.[0]?.url, 'https://ctrl.example.com:8441/edge/client/v1');
      } finally {
        await named.close();
      }
    });
  });

  describe('listSummary', () => {
    it('counts entities for admins, with the version meta', async () => {
      assertError(await t.call({ method: 'GET', url: '/edge/management/v1/summary' }), 401, 'UNAUTHORIZED');
      const token = await t.loginAsAdmin();
      const { status, body } = await t.call({ method: 'GET', url: '/edge/management/v1/summary', token });
      assert.equal(status, 200);
      const { data, meta } = body as { data: Record<string, number>; meta: unknown };
      assert.equal(data.identities, 1);
      assert.equal(data.identityTypes, 2);
      assert.equal(data.authPolicies, 1);
      assert.equal(data.services, 0);
      assert.deepEqual(meta, { apiEnrollmentVersion: '0.0.1', apiVersion: '0.0.1' });
    });
  });
});
