import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../../support/test-app.js';
import { assertError } from '../../support/conformance.js';
import { createEntity, createIdentity, createUser, login } from '../../support/factories.js';
import { createCsr, createTestCa, issueTestCertificate, type TestCa } from '../../support/third-party-ca.js';
import { lifetimes, signCsr } from '../../../src/pki/sign-csr.js';

type Authenticator = Record<string, unknown> & { id: string };

describe('authenticators', () => {
  let t: TestApp;
  let token: string;
  const base = '/edge/management/v1/authenticators';
  before(async () => {
    t = await buildTestApp();
    token = await t.loginAsAdmin();
  });
  after(() => t.close());

  describe('management CRUD (updb)', () => {
    it('creates, details and lists without ever showing the password', async () => {
      const user = await createUser(t, token);
      const detail = await t.call({ method: 'GET', url: `${base}/${user.authenticatorId}`, token });
      const data = (detail.body as { data: Authenticator }).data;
      assert.equal(data.method, 'updb');
      assert.equal(data.username, user.username);
      assert.equal(data.identityId, user.id);
      assert.equal((data.identity as { id: string }).id, user.id);
      assert.deepEqual((data._links as Record<string, unknown>).identities, { href: `./identities/${user.id}` });
      assert.doesNotMatch(detail.text, /password|salt/i);
      const list = await t.call({
        method: 'GET',
        url: `${base}?filter=${encodeURIComponent(`identity = "${user.id}" and method = "updb"`)}`,
        token,
      });
      assert.deepEqual(
        (list.body as { data: Authenticator[] }).data.map((a) => a.id),
        [user.authenticatorId],
      );
      assertError(
        await t.call({ method: 'GET', url: `${base}?filter=${encodeURIComponent('updbPassword = "x"')}`, token }),
        400,
        'INVALID_FILTER',
      );
    });

    it('finds authenticators by username through the filter symbol updbUsername', async () => {
      const user = await createUser(t, token);
      const list = await t.call({
        method: 'GET',
        url: `${base}?filter=${encodeURIComponent(`updbUsername = "${user.username}"`)}`,
        token,
      });
      assert.equal((list.body as { data: unknown[] }).data.length, 1);
    });

    it('allows one authenticator per method per identity', async () => {
      const user = await createUser(t, token);
      const again = await t.call({
        method: 'POST',
        url: base,
        token,
        payload: { method: 'updb', identityId: user.id, username: `${user.username}-2`, password: 'another-pw' },
      });
      assertError(again, 409, 'MAX_AUTHENTICATOR_METHODS_REACHED');
    });

    it('refuses bad input', async () => {
      const id = await createIdentity(t, token);
      const post = (payload: unknown) => t.call({ method: 'POST', url: base, token, payload });
      assertError(
        await post({ method: 'updb', identityId: 'nope', username: 'someone', password: 'secret-pw' }),
        400,
        'COULD_NOT_VALIDATE',
        'identityId',
      );
      assertError(await post({ method: 'magic', identityId: id }), 400, 'COULD_NOT_VALIDATE', 'method');
      assertError(
        await post({ method: 'updb', identityId: id, username: 'someone' }),
        400,
        'COULD_NOT_VALIDATE',
        'password',
      );
      assertError(
        await post({ method: 'updb', identityId: id, username: 'someone', password: 'abc' }),
        400,
        'COULD_NOT_VALIDATE',
        'password',
      );
      assertError(
        await post({ method: 'updb', identityId: id, password: 'secret-pw' }),
        400,
        'COULD_NOT_VALIDATE',
        'username',
      );
      assertError(
        await post({ method: 'updb', identityId: id, username: 'u', password: 'secret-pw', certPem: 'x' }),
        400,
        'INVALID_AUTHENTICATOR_PROPERTIES',
      );
      assertError(
        await post({ method: 'cert', identityId: id, certPem: 'not a pem' }),
        400,
        'COULD_NOT_PARSE_PEM_BLOCK',
      );
      assertError(await post({ identityId: id }), 400, 'COULD_NOT_VALIDATE', 'method');
    });

    it('refuses a username another authenticator has', async () => {
      const user = await createUser(t, token);
      const other = await createIdentity(t, token);
      const result = await t.call({
        method: 'POST',
        url: base,
        token,
        payload: { method: 'updb', identityId: other, username: user.username, password: 'secret-pw' },
      });
      assertError(result, 400, 'COULD_NOT_VALIDATE', 'username');
    });

    it('PUT and PATCH change the password with a new salt; the old one stops working', async () => {
      const user = await createUser(t, token);
      assert.equal(
        (
          await t.call({
            method: 'PUT',
            url: `${base}/${user.authenticatorId}`,
            token,
            payload: { username: user.username, password: 'changed-1' },
          })
        ).status,
        200,
      );
      await login(t, user.username, 'changed-1');
      const refused = await t.call({
        method: 'POST',
        url: '/edge/client/v1/authenticate?method=password',
        payload: { username: user.username, password: user.password },
      });
      assertError(refused, 401, 'INVALID_AUTH');
      assert.equal(
        (
          await t.call({
            method: 'PATCH',
            url: `${base}/${user.authenticatorId}`,
            token,
            payload: { password: 'changed-2' },
          })
        ).status,
        200,
      );
      await login(t, user.username, 'changed-2');
      assert.equal(
        (
          await t.call({
            method: 'PATCH',
            url: `${base}/${user.authenticatorId}`,
            token,
            payload: { username: `${user.username}-renamed` },
          })
        ).status,
        200,
      );
      await login(t, `${user.username}-renamed`, 'changed-2');
      assertError(
        await t.call({
          method: 'PUT',
          url: `${base}/${user.authenticatorId}`,
          token,
          payload: { username: user.username, password: 'abc' },
        }),
        400,
        'COULD_NOT_VALIDATE',
        'password',
      );
    });

    it('deletes; the credentials stop working; 404 afterwards', async () => {
      const user = await createUser(t, token);
      assert.equal((await t.call({ method: 'DELETE', url: `${base}/${user.authenticatorId}`, token })).status, 200);
      assertError(await t.call({ method: 'DELETE', url: `${base}/${user.authenticatorId}`, token }), 404, 'NOT_FOUND');
      const refused = await t.call({
        method: 'POST',
        url: '/edge/client/v1/authenticate?method=password',
        payload: { username: user.username, password: user.password },
      });
      assertError(refused, 401, 'INVALID_AUTH');
    });
  });

  describe('management CRUD (cert)', () => {
    let caCounter = 0;
    /** A third-party CA registered through /cas, verified with a proof certificate unless told otherwise. */
    async function registerCa(verified: boolean): Promise<{ id: string; testCa: TestCa }> {
      const testCa = await createTestCa(`Authenticator Test CA ${++caCounter}`, t.clock());
      const id = await createEntity(t, token, 'cas', {
        name: `authenticator-ca-${caCounter}`,
        certPem: testCa.certPem,
        isAutoCaEnrollmentEnabled: false,
        isOttCaEnrollmentEnabled: false,
        isAuthEnabled: true,
        identityRoles: [],
      });
      if (verified) {
        const detail = await t.call({ method: 'GET', url: `/edge/management/v1/cas/${id}`, token });
        const proof = await issueTestCertificate(testCa, {
          commonName: (detail.body as { data: { verificationToken: string } }).data.verificationToken,
          now: t.clock(),
        });
        const result = await t.call({
          method: 'POST',
          url: `/edge/management/v1/cas/${id}/verify`,
          token,
          headers: { 'content-type': 'text/plain' },
          payload: proof.certPem,
        });
        assert.equal(result.status, 200, result.text);
      }
      return { id, testCa };
    }

    const controllerIssued = async (commonName: string) =>
      (
        await signCsr(t.deps.pki, (await createCsr(commonName)).csrPem, {
          use: 'client',
          now: t.clock(),
          lifetimeMs: lifetimes.year,
          keepAltNames: false,
        })
      ).certPem;

    const post = (payload: unknown) => t.call({ method: 'POST', url: base, token, payload });

    it('accepts a certificate from a verified third-party CA; deleting the CA deletes the authenticator', async () => {
      const ca = await registerCa(true);
      const identityId = await createIdentity(t, token);
      const leaf = await issueTestCertificate(ca.testCa, { commonName: 'bound-by-admin', now: t.clock() });
      const created = await post({ method: 'cert', identityId, certPem: leaf.certPem });
      assert.equal(created.status, 201, created.text);
      const id = (created.body as { data: { id: string } }).data.id;
      const detail = (await t.call({ method: 'GET', url: `${base}/${id}`, token })).body as { data: Authenticator };
      assert.match(detail.data.fingerprint as string, /^[0-9a-f]{40}$/);
      assert.equal(detail.data.username, undefined);
      assert.equal((await t.call({ method: 'DELETE', url: `/edge/management/v1/cas/${ca.id}`, token })).status, 200);
      assertError(await t.call({ method: 'GET', url: `${base}/${id}`, token }), 404, 'NOT_FOUND');
    });

    it('re-enrolls a certificate a third-party CA issued as ottca with that CA', async () => {
      const ca = await registerCa(true);
      const identityId = await createIdentity(t, token);
      const leaf = await issueTestCertificate(ca.testCa, { commonName: 're-enrolled', now: t.clock(), keyType: 'rsa' });
      const created = await post({ method: 'cert', identityId, certPem: leaf.certPem });
      assert.equal(created.status, 201, created.text);
      const id = (created.body as { data: { id: string } }).data.id;
      const expiresAt = new Date(t.clock().getTime() + 3_600_000).toISOString();
      const reEnrolled = await t.call({
        method: 'POST',
        url: `${base}/${id}/re-enroll`,
        token,
        payload: { expiresAt },
      });
      assert.equal(reEnrolled.status, 201, reEnrolled.text);
      const enrollmentId = (reEnrolled.body as { data: { id: string } }).data.id;
      const enrollment = (
        await t.call({ method: 'GET', url: `/edge/management/v1/enrollments/${enrollmentId}`, token })
      ).body as { data: Record<string, unknown> };
      assert.deepEqual(
        [enrollment.data.method, enrollment.data.caId, enrollment.data.identityId],
        ['ottca', ca.id, identityId],
      );
    });

    it('takes full bodies: the other method\'s fields as "" or null, never stored, so "" usernames never collide', async () => {
      for (const commonName of ['full-body-1', 'full-body-2']) {
        const created = await post({
          method: 'cert',
          identityId: await createIdentity(t, token),
          certPem: await controllerIssued(commonName),
          username: '',
          password: null,
          tags: {},
        });
        assert.equal(created.status, 201, created.text);
        const detail = (
          await t.call({ method: 'GET', url: `${base}/${(created.body as { data: { id: string } }).data.id}`, token })
        ).body as { data: Authenticator };
        assert.equal(detail.data.username, undefined);
      }
      const updb = await post({
        method: 'updb',
        identityId: await createIdentity(t, token),
        username: 'full-body-user',
        password: 'secret-pw',
        certPem: '',
        tags: {},
      });
      assert.equal(updb.status, 201, updb.text);
      const id = (updb.body as { data: { id: string } }).data.id;
      // A blank username is none, which a password authenticator cannot be without.
      assertError(
        await t.call({ method: 'PATCH', url: `${base}/${id}`, token, payload: { username: '    ' } }),
        400,
        'COULD_NOT_VALIDATE',
        'username',
      );
      assertError(
        await t.call({
          method: 'PUT',
          url: `${base}/${id}`,
          token,
          payload: { username: '    ', password: 'secret-pw' },
        }),
        400,
        'COULD_NOT_VALIDATE',
        'username',
      );
      await login(t, 'full-body-user', 'secret-pw');
    });

    it('refuses certificates from an unverified or unknown CA, and more than one certificate', async () => {
      const unverified = await registerCa(false);
      const identityId = await createIdentity(t, token);
      const early = await issueTestCertificate(unverified.testCa, { commonName: 'too-early', now: t.clock() });
      assertError(
        await post({ method: 'cert', identityId, certPem: early.certPem }),
        400,
        'CERTIFICATE_FAILED_VALIDATION',
      );
      const unknown = await createTestCa('Nobody We Know', t.clock());
      const stranger = await issueTestCertificate(unknown, { commonName: 'stranger', now: t.clock() });
      assertError(
        await post({ method: 'cert', identityId, certPem: stranger.certPem }),
        400,
        'CERTIFICATE_FAILED_VALIDATION',
      );
      assertError(
        await post({ method: 'cert', identityId, certPem: `${stranger.certPem}${unknown.certPem}` }),
        400,
        'COULD_NOT_PARSE_PEM_BLOCK',
      );
      const list = await t.call({
        method: 'GET',
        url: `${base}?filter=${encodeURIComponent(`identity = "${identityId}"`)}`,
        token,
      });
      assert.deepEqual((list.body as { data: unknown[] }).data, []);
    });

    it('re-checks a changed certificate: a controller-issued one unties the authenticator from its CA', async () => {
      const ca = await registerCa(true);
      const identityId = await createIdentity(t, token);
      const leaf = await issueTestCertificate(ca.testCa, { commonName: 'first', now: t.clock() });
      const created = await post({ method: 'cert', identityId, certPem: leaf.certPem });
      const id = (created.body as { data: { id: string } }).data.id;
      const stranger = await issueTestCertificate(await createTestCa('Another Stranger', t.clock()), {
        commonName: 'x',
        now: t.clock(),
      });
      assertError(
        await t.call({ method: 'PATCH', url: `${base}/${id}`, token, payload: { certPem: stranger.certPem } }),
        400,
        'CERTIFICATE_FAILED_VALIDATION',
      );
      const ours = await controllerIssued('second');
      assert.equal(
        (await t.call({ method: 'PATCH', url: `${base}/${id}`, token, payload: { certPem: ours } })).status,
        200,
      );
      assert.equal((await t.call({ method: 'DELETE', url: `/edge/management/v1/cas/${ca.id}`, token })).status, 200);
      const detail = await t.call({ method: 'GET', url: `${base}/${id}`, token });
      assert.equal(detail.status, 200, detail.text);
      assert.equal((detail.body as { data: Authenticator }).data.certPem, ours);
    });
  });

  describe("the caller's own authenticators", () => {
    it("lists and details only the caller's own, on both APIs", async () => {
      const alice = await createUser(t, token);
      const bob = await createUser(t, token);
      const aliceToken = await login(t, alice.username, alice.password);
      for (const api of ['client', 'management']) {
        const list = await t.call({
          method: 'GET',
          url: `/edge/${api}/v1/current-identity/authenticators`,
          token: aliceToken,
        });
        assert.deepEqual(
          (list.body as { data: Authenticator[] }).data.map((a) => a.id),
          [alice.authenticatorId],
        );
        const own = await t.call({
          method: 'GET',
          url: `/edge/${api}/v1/current-identity/authenticators/${alice.authenticatorId}`,
          token: aliceToken,
        });
        assert.equal(own.status, 200);
        // Linked only to itself under current-identity, as upstream v1.1.8 answers.
        const self = { self: { href: `./current-identity/authenticators/${alice.authenticatorId}` } };
        assert.deepEqual((own.body as { data: { _links: unknown } }).data._links, self);
        assert.deepEqual((list.body as { data: Array<{ _links: unknown }> }).data[0]!._links, self);
        const foreign = await t.call({
          method: 'GET',
          url: `/edge/${api}/v1/current-identity/authenticators/${bob.authenticatorId}`,
          token: aliceToken,
        });
        assertError(foreign, 404, 'NOT_FOUND');
      }
    });

    it('changes the password with the current one; a wrong current password is 401 on currentPassword', async () => {
      const user = await createUser(t, token);
      const userToken = await login(t, user.username, user.password);
      const url = `/edge/client/v1/current-identity/authenticators/${user.authenticatorId}`;
      const wrong = await t.call({
        method: 'PATCH',
        url,
        token: userToken,
        payload: { currentPassword: 'not-the-password', password: 'new-password-1' },
      });
      assertError(wrong, 401, 'UNAUTHORIZED', 'currentPassword');
      assert.equal(
        (wrong.body as { error: { cause: { reason: string; value: string } } }).error.cause.reason,
        'invalid current password',
      );
      assert.equal(
        (wrong.body as { error: { cause: { reason: string; value: string } } }).error.cause.value,
        '******',
        'never echoed',
      );
      assertError(
        await t.call({ method: 'PATCH', url, token: userToken, payload: { password: 'new-password-1' } }),
        400,
        'COULD_NOT_VALIDATE',
        'currentPassword',
      );
      const ok = await t.call({
        method: 'PATCH',
        url,
        token: userToken,
        payload: { currentPassword: user.password, password: 'new-password-1' },
      });
      assert.equal(ok.status, 200, ok.text);
      await login(t, user.username, 'new-password-1');
      const put = await t.call({
        method: 'PUT',
        url,
        token: userToken,
        payload: { currentPassword: 'new-password-1', username: user.username, password: 'new-password-2' },
      });
      assert.equal(put.status, 200, put.text);
      await login(t, user.username, 'new-password-2');
    });

    it("cannot change someone else's authenticator", async () => {
      const alice = await createUser(t, token);
      const bob = await createUser(t, token);
      const aliceToken = await login(t, alice.username, alice.password);
      const result = await t.call({
        method: 'PATCH',
        url: `/edge/client/v1/current-identity/authenticators/${bob.authenticatorId}`,
        token: aliceToken,
        payload: { currentPassword: bob.password, password: 'stolen-password' },
      });
      assertError(result, 404, 'NOT_FOUND');
      await login(t, bob.username, bob.password);
    });
  });
});
