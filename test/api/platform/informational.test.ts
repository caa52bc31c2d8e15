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
      const urls = ['/', '/version', '/edge/client/v1/version', '/edge/management/v1/version', '/edge/client/v1/', '/edge/v1/version'];
      const bodies = await Promise.all(urls.map(async (url) => (await t.call({ method: 'GET', url })).body));
      for (const body of bodies) assert.deepEqual(body, bodies[0]);
    });

    it('reports our version, runtime, capabilities and API base URLs from the advertised address', async () => {
      const { status, body } = await t.call({ method: 'GET', url: '/edge/management/v1/version' });
      assert.equal(status, 200);
      const data = (body as { data: Record<string, unknown> }).data;
      assert.match(data.version as string, /^v\d+\.\d+\.\d+$/);
      assert.match(data.buildDate as string, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      assert.equal(data.runtimeVersion, process.version);
      assert.deepEqual(data.capabilities, []);
      const apis = data.apiVersions as Record<string, { v1: { apiBaseUrls: string[]; path: string } }>;
      assert.deepEqual(Object.keys(apis).sort(), ['edge', 'edge-client', 'edge-management']);
      assert.deepEqual(apis.edge, apis['edge-client']);
      assert.deepEqual(apis['edge-management']!.v1, { apiBaseUrls: ['https://localhost:1280/edge/management/v1'], path: '/edge/management/v1' });
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
      const yaml = await t.call({ method: 'GET', url: '/edge/management/v1/specs/edge-management/spec', headers: { accept: 'text/yaml' } });
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
      const urls = ['/.well-known/est/cacerts', '/edge/client/v1/.well-known/est/cacerts', '/edge/management/v1/.well-known/est/cacerts'];
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
  });

  describe('listControllers', () => {
    it('needs a session, and is empty for a stand-alone controller', async () => {
      assertError(await t.call({ method: 'GET', url: '/edge/client/v1/controllers' }), 401, 'UNAUTHORIZED');
      const token = await t.loginAsAdmin('client');
      const { status, body } = await t.call({ method: 'GET', url: '/edge/client/v1/controllers', token });
      assert.equal(status, 200);
      assert.deepEqual((body as { data: unknown[] }).data, []);
      assert.deepEqual((body as { meta: { pagination: unknown } }).meta.pagination, { limit: 10, offset: 0, totalCount: 0 });
    });

    it('still rejects a bad filter', async () => {
      const token = await t.loginAsAdmin('client');
      assertError(await t.call({ method: 'GET', url: '/edge/client/v1/controllers?filter=nope%20%3D%201', token }), 400, 'INVALID_FILTER');
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
