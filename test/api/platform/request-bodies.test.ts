// Hostile bodies get a clear 400 and cost little: any nesting depth, and bodies over the cap of their route class,
// refused before they are read.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { loadContract, type OperationSpec } from '../../../src/http/spec/load-spec.js';
import { buildTestApp, type TestApp } from '../../support/test-app.js';
import { assertError } from '../../support/conformance.js';
import { createEdgeRouter, createIdentity, createUser, login } from '../../support/factories.js';
import { newCsr, newKeyPair } from '../../support/test-keys.js';
import { CLIENT, MANAGEMENT } from '../../support/api-paths.js';

const SMALL_CAP = 64 * 1024;
const LARGE_CAP = 1024 * 1024;

const nestedArrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const nestedObjects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

/** A concrete URL for an operation: path parameters filled, required query parameters given a valid value. */
function urlOf(op: OperationSpec): string {
  const base = op.api === 'client' ? CLIENT : MANAGEMENT;
  const query =
    op.operationId === 'authenticate' ? '?method=password' : op.operationId.startsWith('enroll') ? '?method=ott' : '';
  return `${base}${op.path.replace(/\{[^}]+\}/g, 'some-id')}${query}`;
}

/** Operations that read a JSON body (a GET's body is never read). */
const jsonBodyOperations = [...loadContract('client').operations, ...loadContract('management').operations].filter(
  (op) =>
    op.method !== 'GET' &&
    op.parameters.some((parameter) => parameter.in === 'body') &&
    op.consumes.includes('application/json'),
);

describe('request bodies', () => {
  let t: TestApp;
  let token: string;
  before(async () => {
    t = await buildTestApp();
    token = await t.loginAsAdmin();
  });
  after(() => t.close());

  describe('nesting', () => {
    it('answers 2,300 levels of arrays or objects with 400 on every operation that takes JSON, anonymously', async () => {
      assert.ok(jsonBodyOperations.length > 80);
      for (const op of jsonBodyOperations) {
        for (const payload of [nestedArrays(2300), nestedObjects(2300)]) {
          const result = await t.call({
            method: op.method,
            url: urlOf(op),
            headers: { 'content-type': 'application/json' },
            payload,
          });
          assertError(result, 400, 'COULD_NOT_PARSE_BODY');
          assert.match(
            (result.body as { error: { cause: { message: string } } }).error.cause.message,
            /exceeded max depth$/,
            op.operationId,
          );
        }
      }
    });

    it('renders a rejected value bounded in depth and length', async () => {
      const tags = JSON.parse(nestedObjects(400)) as unknown;
      const result = await t.call({
        method: 'POST',
        url: `${MANAGEMENT}/identities`,
        token,
        payload: { name: 'deep-tags', type: 'User', isAdmin: false, tags },
      });
      assertError(result, 400, 'COULD_NOT_VALIDATE', 'tags.a');
      const { value } = (result.body as { error: { cause: { value: string } } }).error.cause;
      assert.ok(value.length <= 4099, String(value.length));
      assert.ok(value.includes('...'));
    });

    it('stores and serves config data nested 400 levels deep', async () => {
      const type = await t.call({
        method: 'POST',
        url: `${MANAGEMENT}/config-types`,
        token,
        payload: { name: 'any-data', schema: {} },
      });
      const configTypeId = (type.body as { data: { id: string } }).data.id;
      const data = { a: JSON.parse(nestedArrays(400)) as unknown };
      const created = await t.call({
        method: 'POST',
        url: `${MANAGEMENT}/configs`,
        token,
        payload: { name: 'deep-data', configTypeId, data },
      });
      assert.equal(created.status, 201, created.text);
      const read = await t.call({
        method: 'GET',
        url: `${MANAGEMENT}/configs/${(created.body as { data: { id: string } }).data.id}`,
        token,
      });
      assert.deepEqual((read.body as { data: { data: unknown } }).data.data, data);
    });
  });

  describe('size caps', () => {
    const tooLarge = (result: Awaited<ReturnType<TestApp['call']>>, limit: number) => {
      assertError(result, 400, 'COULD_NOT_PARSE_BODY');
      assert.equal(
        (result.body as { error: { cause: { message: string } } }).error.cause.message,
        `request body is too large: the limit for this request is ${limit} bytes`,
      );
      assert.equal(result.headers.connection, 'close');
    };
    const arrayOfSize = (bytes: number) => `[${'1,'.repeat(Math.ceil(bytes / 2))}1]`;

    it('refuses a body over the small cap before authentication, on public and admin operations alike', async () => {
      const payload = arrayOfSize(SMALL_CAP);
      const headers = { 'content-type': 'application/json' };
      tooLarge(
        await t.call({ method: 'POST', url: `${CLIENT}/authenticate?method=password`, headers, payload }),
        SMALL_CAP,
      );
      tooLarge(await t.call({ method: 'POST', url: `${MANAGEMENT}/identities`, headers, payload }), SMALL_CAP);
      tooLarge(
        await t.call({
          method: 'POST',
          url: `${CLIENT}/enroll?method=ott&token=2f1e7e43-6a4b-4f0e-9d2c-0b6f4b8f9a11`,
          headers: { 'content-type': 'text/plain' },
          payload,
        }),
        SMALL_CAP,
      );
      // A session on a public operation changes nothing.
      tooLarge(
        await t.call({ method: 'POST', url: `${CLIENT}/authenticate?method=password`, token, headers, payload }),
        SMALL_CAP,
      );
    });

    it('reads up to the large cap from an authenticated caller, and refuses more', async () => {
      const type = await t.call({
        method: 'POST',
        url: `${MANAGEMENT}/config-types`,
        token,
        payload: { name: 'big-data', schema: {} },
      });
      const configTypeId = (type.body as { data: { id: string } }).data.id;
      const data = { blob: 'x'.repeat(SMALL_CAP * 4) };
      const created = await t.call({
        method: 'POST',
        url: `${MANAGEMENT}/configs`,
        token,
        payload: { name: 'big-config', configTypeId, data },
      });
      assert.equal(created.status, 201, created.text);
      const over = { name: 'too-big', configTypeId, data: { blob: 'x'.repeat(LARGE_CAP) } };
      tooLarge(await t.call({ method: 'POST', url: `${MANAGEMENT}/configs`, token, payload: over }), LARGE_CAP);
    });

    it('gives an ordinary identity the large cap on its own operations only', async () => {
      const admin = token;
      const user = await createUser(t, admin);
      const userToken = await login(t, user.username, user.password);
      const payload = { currentPassword: user.password, password: 'x'.repeat(SMALL_CAP) };
      const changed = await t.call({
        method: 'PUT',
        url: `${CLIENT}/current-identity/authenticators/${user.authenticatorId}`,
        token: userToken,
        payload,
      });
      // Read and validated (the password is too long), not refused for its size.
      assertError(changed, 400, 'COULD_NOT_VALIDATE', 'password');
    });

    it('cuts a chunked body at the cap', async () => {
      const chunks = Array.from({ length: 40 }, () => Buffer.from(' '.repeat(4096)));
      const response = await t.app.inject({
        method: 'POST',
        url: `${CLIENT}/authenticate?method=password`,
        headers: { 'content-type': 'application/json' },
        payload: Readable.from(chunks),
      });
      assert.equal(response.statusCode, 400);
      assert.match(response.body, /request body is too large: the limit for this request is 65536 bytes/);
      assert.equal(response.headers.connection, 'close');
    });

    it('ignores the body of a request that matches no operation, unread', async () => {
      const result = await t.call({
        method: 'POST',
        url: `${MANAGEMENT}/no-such-thing`,
        headers: { 'content-type': 'application/json' },
        payload: arrayOfSize(SMALL_CAP * 2),
      });
      assertError(result, 404, 'NOT_FOUND');
      assert.equal(result.headers.connection, 'close');
    });

    it('still takes the largest legitimate unauthenticated bodies: RSA-4096 CSRs', async () => {
      const rsa4096 = await newKeyPair('rsa', 4096);
      const identityId = await createIdentity(t, token, { enrollment: { ott: true } });
      const identity = await t.call({ method: 'GET', url: `${MANAGEMENT}/identities/${identityId}`, token });
      const ott = (identity.body as { data: { enrollment: { ott: { token: string } } } }).data.enrollment.ott;
      const csr = await newCsr(rsa4096, `C=US, O=OpenZiti, CN=${identityId}`);
      const enrolled = await t.call({
        method: 'POST',
        url: `${CLIENT}/enroll?method=ott&token=${ott.token}`,
        headers: { 'content-type': 'text/plain' },
        payload: csr,
      });
      assert.equal(enrolled.status, 200, enrolled.text);

      const routerId = await createEdgeRouter(t, token);
      const router = await t.call({ method: 'GET', url: `${MANAGEMENT}/edge-routers/${routerId}`, token });
      const { enrollmentToken } = (router.body as { data: { enrollmentToken: string } }).data;
      const sans = [{ type: 'dns' as const, value: 'router.example.com' }];
      const csrs = {
        serverCertCsr: await newCsr(rsa4096, `C=US, O=OpenZiti, CN=${routerId}`, sans),
        certCsr: await newCsr(rsa4096, `C=US, O=OpenZiti, CN=${routerId}`, sans),
      };
      const routerEnrolled = await t.call({
        method: 'POST',
        url: `${CLIENT}/enroll?method=erott&token=${enrollmentToken}`,
        payload: csrs,
      });
      assert.equal(routerEnrolled.status, 200, routerEnrolled.text);
    });
  });

  describe('numbers and times out of range', () => {
    const disable = async (durationText: string) => {
      const id = await createIdentity(t, token);
      return t.call({
        method: 'POST',
        url: `${MANAGEMENT}/identities/${id}/disable`,
        token,
        headers: { 'content-type': 'application/json' },
        payload: `{"durationMinutes":${durationText}}`,
      });
    };

    it('answers a number no int64 holds as upstream decoding does: 400 COULD_NOT_PARSE_BODY', async () => {
      const cases: [string, string][] = [
        ['1e400', '+Inf'],
        ['-1e400', '-Inf'],
        ['123456789012345678901234567890', '1.2345678901234568e+29'],
      ];
      for (const [text, shown] of cases) {
        const result = await disable(text);
        assertError(result, 400, 'COULD_NOT_PARSE_BODY');
        const reason = `parsing disable body from "" failed, because json: cannot unmarshal number ${shown} into Go struct field DisableParams.durationMinutes of type int64`;
        assert.equal((result.body as { error: { cause: { message: string } } }).error.cause.message, reason);
      }
    });

    it('refuses a disable that would end after the year 9999 with 400 COULD_NOT_VALIDATE', async () => {
      for (const text of ['9223372036854775807', '100000000000'])
        assertError(await disable(text), 400, 'COULD_NOT_VALIDATE', 'durationMinutes');
      assert.equal((await disable('5256000')).status, 200);
    });

    it('refuses a date-time that names no instant', async () => {
      const id = await createIdentity(t, token);
      const result = await t.call({
        method: 'POST',
        url: `${MANAGEMENT}/enrollments`,
        token,
        payload: { identityId: id, method: 'ott', expiresAt: '2099-01-01T00:00:00+99:99' },
      });
      assertError(result, 400, 'COULD_NOT_PARSE_BODY');
    });
  });
});
