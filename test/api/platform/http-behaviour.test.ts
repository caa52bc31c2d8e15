import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../../support/test-app.js';
import { assertError } from '../../support/conformance.js';

describe('HTTP behaviour clients notice', () => {
  let t: TestApp;
  let token: string;
  before(async () => {
    t = await buildTestApp();
    token = await t.loginAsAdmin();
  });
  after(() => t.close());

  it('answers an unknown path with 404 NOT_FOUND naming the path', async () => {
    const result = await t.call({ method: 'GET', url: '/edge/management/v1/no-such-thing' });
    assertError(result, 404, 'NOT_FOUND');
    assert.deepEqual((result.body as { error: { cause: unknown } }).error.cause, {
      code: 'UNHANDLED',
      message: 'path /edge/management/v1/no-such-thing was not found',
    });
  });

  it('answers a known path with another verb with 405 METHOD_NOT_ALLOWED', async () => {
    const result = await t.call({ method: 'PUT', url: '/edge/management/v1/version' });
    assertError(result, 405, 'METHOD_NOT_ALLOWED');
    assert.match(JSON.stringify(result.body), /method PUT is not allowed, but \[GET\] are/);
  });

  it('answers malformed JSON with 400 COULD_NOT_PARSE_BODY', async () => {
    const result = await t.call({
      method: 'POST',
      url: '/edge/management/v1/authenticate?method=password',
      headers: { 'content-type': 'application/json' },
      payload: '{"username": "admin", ',
    });
    assertError(result, 400, 'COULD_NOT_PARSE_BODY');
  });

  it('answers a JSON value of the wrong type with 400 COULD_NOT_PARSE_BODY, as upstream decoding does', async () => {
    const result = await t.call({
      method: 'POST',
      url: '/edge/management/v1/authenticate?method=password',
      payload: { username: 42, password: 'admin-password-1' },
    });
    assertError(result, 400, 'COULD_NOT_PARSE_BODY');
    assert.match(JSON.stringify(result.body), /username/);
  });

  it('answers a value that breaks a constraint with 400 COULD_NOT_VALIDATE on the field', async () => {
    const result = await t.call({
      method: 'POST',
      url: '/edge/management/v1/authenticate?method=password',
      payload: { username: 'ab', password: 'admin-password-1' },
    });
    assertError(result, 400, 'COULD_NOT_VALIDATE', 'username');
  });

  it('answers a wrong enum value in the query with 400 COULD_NOT_VALIDATE', async () => {
    const result = await t.call({ method: 'POST', url: '/edge/client/v1/authenticate?method=magic', payload: {} });
    assertError(result, 400, 'COULD_NOT_VALIDATE', 'method');
  });

  it('answers a non-integer limit with 400 COULD_NOT_VALIDATE', async () => {
    assertError(
      await t.call({ method: 'GET', url: '/edge/management/v1/identity-types?limit=ten', token }),
      400,
      'COULD_NOT_VALIDATE',
      'limit',
    );
  });

  it('accepts unknown query parameters', async () => {
    const result = await t.call({
      method: 'GET',
      url: '/edge/management/v1/identity-types?asIdentity=x&sort=name%20desc&foo=1&foo=2',
      token,
    });
    assert.equal(result.status, 200);
    assert.deepEqual(
      (result.body as { data: { name: string }[] }).data.map((d) => d.name),
      ['Router', 'Default'],
    );
  });

  it('rejects a JSON body sent with another content type', async () => {
    const result = await t.call({
      method: 'POST',
      url: '/edge/management/v1/authenticate?method=password',
      headers: { 'content-type': 'text/plain' },
      payload: '{"username":"admin","password":"admin-password-1"}',
    });
    assertError(result, 400, 'COULD_NOT_VALIDATE', 'Content-Type');
  });

  it('treats an empty body with a JSON content type as no body', async () => {
    const result = await t.call({
      method: 'POST',
      url: '/edge/management/v1/authenticate?method=password',
      headers: { 'content-type': 'application/json' },
      payload: '',
    });
    assertError(result, 400, 'COULD_NOT_VALIDATE');
  });

  it('validates before it authorizes', async () => {
    // A bad parameter on an admin-only route is a 400 even without a session, as upstream.
    assertError(
      await t.call({ method: 'GET', url: '/edge/management/v1/identity-types?limit=x' }),
      400,
      'COULD_NOT_VALIDATE',
    );
    assertError(await t.call({ method: 'GET', url: '/edge/management/v1/identity-types' }), 401, 'UNAUTHORIZED');
  });

  it('answers CORS preflight with 200 and reflects the origin', async () => {
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/edge/management/v1/identities',
      headers: { origin: 'https://console.example', 'access-control-request-method': 'GET' },
    });
    assert.equal(preflight.statusCode, 200);
    assert.equal(preflight.headers['access-control-allow-origin'], 'https://console.example');
    assert.equal(preflight.headers['access-control-allow-credentials'], 'true');
    assert.equal(preflight.headers['access-control-allow-headers'], 'content-type, accept, authorization, zt-session');
    const simple = await t.call({
      method: 'GET',
      url: '/edge/management/v1/version',
      headers: { origin: 'https://console.example' },
    });
    assert.equal(simple.headers['access-control-allow-origin'], 'https://console.example');
  });

  it('serves un-prefixed and legacy /edge/v1 client paths', async () => {
    const legacy = await t.call({
      method: 'POST',
      url: '/edge/v1/authenticate?method=password',
      payload: { username: 'admin', password: 'admin-password-1' },
    });
    assert.equal(legacy.status, 200);
    const bare = await t.call({
      method: 'POST',
      url: '/authenticate?method=password',
      payload: { username: 'admin', password: 'admin-password-1' },
    });
    assert.equal(bare.status, 200);
  });

  it('writes JSON like Go does: compact, HTML unescaped, ending in a newline', async () => {
    const result = await t.call({
      method: 'GET',
      url: '/edge/management/v1/identity-types?filter=name%20%3D%20%22%3Cb%3E%22',
      token,
    });
    assert.ok(result.text.endsWith('}\n'));
    assert.ok(!result.text.includes('\n{'));
  });
});
