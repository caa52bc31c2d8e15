// Paths as real clients write them (the console's `…/<id>/`, doubled slashes), answered as upstream v1.1.8 answers
// them: its router cleans the path before the lookup, inside the API that claimed the raw path.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../../support/test-app.js';
import { assertError } from '../../support/conformance.js';
import { createIdentity } from '../../support/factories.js';
import { buildTlsTestApp, type TlsTestApp } from '../../support/tls-client.js';
import { MANAGEMENT } from '../../support/api-paths.js';

describe('request paths', () => {
  let t: TestApp;
  let token: string;
  before(async () => {
    t = await buildTestApp();
    token = await t.loginAsAdmin();
  });
  after(() => t.close());

  const versionDocument = async (url: string) => {
    const result = await t.call({ method: 'GET', url });
    assert.equal(result.status, 200, `${url}: ${result.text}`);
    assert.ok((result.body as { data: { apiVersions?: unknown } }).data.apiVersions, url);
  };

  it('answers the version document at each API root, with or without the slash', async () => {
    for (const url of ['/edge/management/v1', '/edge/management/v1/', '/edge/client/v1', '/edge/client/v1/', '/', '//'])
      await versionDocument(url);
  });

  it('collapses repeated slashes and drops trailing ones, on both APIs and the legacy paths', async () => {
    const urls = [
      '/edge/management/v1/version/',
      '/edge/management/v1///version//',
      '/edge/client/v1/version/?x=1',
      '//version',
      '/version/',
    ];
    for (const url of [
      ...urls,
      '/edge/v1',
      '/edge/v1/',
      '/edge/v1//version',
      '/edge/v1/version/',
      '/edge//client/v1/version',
    ])
      await versionDocument(url);
  });

  it('serves the CA bundle under a doubled slash', async () => {
    for (const url of [
      '/edge/management/v1//.well-known/est/cacerts',
      '//.well-known/est/cacerts',
      '/edge/client/v1/.well-known/est/cacerts/',
    ]) {
      const result = await t.call({ method: 'GET', url });
      assert.equal(result.status, 200, url);
      assert.equal(result.headers['content-type'], 'application/pkcs7-mime');
    }
  });

  it('finds no route where upstream finds none, naming the path as its handler rewrote it', async () => {
    const cases: [string, string][] = [
      ['/edge//management/v1/version', '/edge//management/v1/version'],
      ['//edge/management/v1/version', '/edge/client/v1//edge/management/v1/version'],
      ['/edge/management/v1/no-such//', '/edge/management/v1/no-such//'],
      ['/.well-known/est/cacerts/', '/.well-known/est/cacerts/'],
      ['/edge/v1x/version', '/edge/client/v1x/version'],
    ];
    for (const [url, named] of cases) {
      const result = await t.call({ method: 'GET', url });
      assertError(result, 404, 'NOT_FOUND');
      assert.equal(
        (result.body as { error: { cause: { message: string } } }).error.cause.message,
        `path ${named} was not found`,
        url,
      );
    }
  });

  it('tells 405 from 404 on the cleaned path', async () => {
    const result = await t.call({ method: 'PUT', url: `${MANAGEMENT}/version/` });
    assertError(result, 405, 'METHOD_NOT_ALLOWED');
    assert.match(JSON.stringify(result.body), /method PUT is not allowed, but \[GET\] are/);
  });

  it('creates, reads, patches and deletes an identity through `…/<id>/` as the console does', async () => {
    const created = await t.call({
      method: 'POST',
      url: `${MANAGEMENT}/identities/`,
      token,
      payload: { name: 'slash-1', type: 'User', isAdmin: false },
    });
    assert.equal(created.status, 201, created.text);
    const id = (created.body as { data: { id: string } }).data.id;

    for (const url of [
      `${MANAGEMENT}/identities/${id}/`,
      `${MANAGEMENT}//identities//${id}//`,
      `${MANAGEMENT}/identities/${id}/?x=1`,
    ]) {
      const detail = await t.call({ method: 'GET', url, token });
      assert.equal(detail.status, 200, url);
      assert.equal((detail.body as { data: { id: string } }).data.id, id);
    }
    assert.equal(
      (await t.call({ method: 'PATCH', url: `${MANAGEMENT}/identities/${id}/`, token, payload: { name: 'slash-2' } }))
        .status,
      200,
    );
    const listed = await t.call({
      method: 'GET',
      url: `${MANAGEMENT}/identities/?filter=${encodeURIComponent('name = "slash-2"')}`,
      token,
    });
    assert.deepEqual(
      (listed.body as { data: { id: string }[] }).data.map((identity) => identity.id),
      [id],
    );

    assert.equal((await t.call({ method: 'DELETE', url: `${MANAGEMENT}/identities/${id}/`, token })).status, 200);
    assertError(await t.call({ method: 'DELETE', url: `${MANAGEMENT}/identities/${id}/`, token }), 404, 'NOT_FOUND');
  });

  it('answers sub-lists and actions with a trailing slash', async () => {
    const id = await createIdentity(t, token);
    const links = await t.call({ method: 'GET', url: `${MANAGEMENT}/identities/${id}/service-policies/`, token });
    assert.equal(links.status, 200, links.text);
    assert.equal(
      (
        await t.call({
          method: 'POST',
          url: `${MANAGEMENT}/identities/${id}/disable/`,
          token,
          payload: { durationMinutes: 0 },
        })
      ).status,
      200,
    );
  });
});

// inject() resolves dot segments itself, so these go over a real connection, as curl --path-as-is sends them.
describe('request paths with dot segments', () => {
  let t: TlsTestApp;
  before(async () => {
    t = await buildTlsTestApp();
  });
  after(() => t.close());

  it('resolves . and .. inside the API that claimed the path', async () => {
    for (const path of [
      '/edge/management/v1/./version',
      '/edge/management/v1/x/../version',
      '/edge/management/v1x/../v1/version',
      '/edge/client/v1/./.well-known/est/cacerts',
    ]) {
      assert.equal((await t.https({ path })).status, 200, path);
    }
  });

  it('finds no route when cleaning would leave the API that claimed the path', async () => {
    for (const path of [
      '/edge/management/v1/../client/v1/version',
      '/edge/client/v1/../management/v1/version',
      '/.well-known/est/./cacerts',
    ]) {
      const result = await t.https({ path });
      assert.equal(result.status, 404, path);
      assert.equal(result.headers['content-type'], 'application/json');
      assert.deepEqual((result.json as { error: { cause: unknown } }).error.cause, {
        code: 'UNHANDLED',
        message: `path ${path} was not found`,
      });
    }
  });
});
