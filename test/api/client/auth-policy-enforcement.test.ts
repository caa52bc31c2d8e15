import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTlsTestApp, type TlsResponse, type TlsTestApp } from '../../support/tls-client.js';
import { assertError } from '../../support/conformance.js';
import { createAuthPolicy, createEntity, createIdentity, createUser, login } from '../../support/factories.js';
import { enrollVerifiedMfa, secretOf, totpCode } from '../../support/mfa.js';
import { createCsr, httpsChecked, type KeyAndCert } from '../../support/third-party-ca.js';
import { newSigningKey, signJwt, type SigningKey } from '../../support/jwt-issuer.js';
import { newCsr, newKeyPair } from '../../support/test-keys.js';
import { lifetimes, signCsr } from '../../../src/pki/sign-csr.js';
import { CLIENT as client, MANAGEMENT as management } from '../../support/api-paths.js';

const TOTP_QUERY = {
  format: 'alphaNumeric',
  httpMethod: 'POST',
  httpUrl: './authenticate/mfa',
  maxLength: 6,
  minLength: 4,
  provider: 'ziti',
  typeId: 'MFA',
};

interface Session {
  token: string;
  isMfaRequired: boolean;
  isMfaComplete: boolean;
  authQueries: unknown[];
}

let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}`;

type Method = 'password' | 'cert' | 'ext-jwt';

describe('auth policies at login: no path answers authenticated for a factor not checked', () => {
  let t: TlsTestApp;
  let admin: string;
  let signingKey: SigningKey;
  let signer: { id: string; issuer: string };

  before(async () => {
    t = await buildTlsTestApp();
    admin = await t.loginAsAdmin();
    signingKey = await newSigningKey('ES256', t.clock());
    const issuer = `https://${unique('idp')}.example`;
    signer = {
      id: await createEntity(t, admin, 'external-jwt-signers', {
        name: unique('signer'),
        enabled: true,
        issuer,
        audience: 'ziti',
        certPem: signingKey.certPem,
        kid: signingKey.kid,
      }),
      issuer,
    };
  });
  after(() => t.close());

  interface Subject {
    id: string;
    username: string;
    password: string;
    certificate: KeyAndCert;
  }

  /** An identity that can log in all three ways: a password, a controller-issued certificate, a signer's JWT. */
  async function subject(body: Record<string, unknown> = {}): Promise<Subject> {
    const user = await createUser(t, admin, body);
    const csr = await createCsr(user.id, 'ec');
    const issued = await signCsr(t.deps.pki, csr.csrPem, {
      use: 'client',
      now: t.clock(),
      lifetimeMs: lifetimes.year,
      keepAltNames: false,
      backdate: true,
    });
    await createEntity(t, admin, 'authenticators', { method: 'cert', identityId: user.id, certPem: issued.certPem });
    return {
      id: user.id,
      username: user.username,
      password: user.password,
      certificate: { certPem: issued.certPem, keyPem: csr.keyPem },
    };
  }

  /** Logs in over real TLS (the certificate needs the handshake) and returns the session. */
  async function loginBy(method: Method, who: Subject, api: 'client' | 'management' = 'client'): Promise<Session> {
    const path = `/edge/${api}/v1/authenticate?method=${method}`;
    let result: TlsResponse;
    if (method === 'password') {
      result = await httpsChecked(t, {
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: who.username, password: who.password }),
      });
    } else if (method === 'cert') {
      result = await httpsChecked(t, {
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json' },
        body: '{}',
        cert: who.certificate.certPem,
        key: who.certificate.keyPem,
      });
    } else {
      const jwt = await signJwt(signingKey, {
        issuer: signer.issuer,
        audience: 'ziti',
        subject: who.id,
        expiresAt: Math.floor(t.clock().getTime() / 1000) + 300,
      });
      result = await httpsChecked(t, { method: 'POST', path, headers: { authorization: `Bearer ${jwt}` } });
    }
    assert.equal(result.status, 200, `${method}: ${result.text}`);
    return (result.json as { data: Session }).data;
  }

  const get = (url: string, token: string) => t.call({ method: 'GET', url, token });

  for (const method of ['password', 'cert', 'ext-jwt'] as const) {
    it(`a policy requiring TOTP makes a ${method} login partial, even before the identity has enrolled`, async () => {
      const policy = await createAuthPolicy(t, admin, { secondary: { requireTotp: true } });
      const who = await subject({ authPolicyId: policy });
      const session = await loginBy(method, who);
      assert.deepEqual(
        [session.isMfaRequired, session.isMfaComplete, session.authQueries],
        [false, false, [TOTP_QUERY]],
      );
      for (const url of [
        `${client}/current-identity`,
        `${client}/services`,
        `${client}/current-identity/edge-routers`,
      ]) {
        assertError(await get(url, session.token), 401, 'UNAUTHORIZED');
      }
      assert.equal((await get(`${client}/current-api-session`, session.token)).status, 200);
      assertError(
        await t.call({
          method: 'POST',
          url: `${client}/authenticate/mfa`,
          token: session.token,
          payload: { code: '123456' },
        }),
        409,
        'MFA_NOT_ENROLLED',
      );
      // Enrolling and verifying while partial completes this session.
      await enrollVerifiedMfa(t, session.token);
      assert.equal((await get(`${client}/services`, session.token)).status, 200);
    });

    it(`an admin whose MFA is pending after a ${method} login may not use admin operations`, async () => {
      const who = await subject({ isAdmin: true });
      const { secret } = await enrollVerifiedMfa(t, (await loginBy(method, who, 'management')).token, 'management');
      const session = await loginBy(method, who, 'management');
      assert.deepEqual(
        [session.isMfaRequired, session.isMfaComplete, session.authQueries],
        [true, false, [TOTP_QUERY]],
      );
      assertError(await get(`${management}/identities`, session.token), 401, 'UNAUTHORIZED');
      assertError(await get(`${management}/auth-policies`, session.token), 401, 'UNAUTHORIZED');
      const done = await t.call({
        method: 'POST',
        url: `${management}/authenticate/mfa`,
        token: session.token,
        payload: { code: totpCode(secret, t.clock()) },
      });
      assert.equal(done.status, 200, done.text);
      t.clock.advance(30_000);
      assert.equal((await get(`${management}/identities`, session.token)).status, 200);
    });
  }

  it('applies a policy change to existing sessions at once', async () => {
    const policy = await createAuthPolicy(t, admin);
    const who = await subject({ authPolicyId: policy });
    const token = await login(t, who.username, who.password);
    assert.equal((await get(`${client}/services`, token)).status, 200);
    await t.call({
      method: 'PATCH',
      url: `${management}/auth-policies/${policy}`,
      token: admin,
      payload: { secondary: { requireTotp: true } },
    });
    assertError(await get(`${client}/services`, token), 401, 'UNAUTHORIZED');
  });

  it('refuses a primary method the policy does not allow', async () => {
    const policy = await createAuthPolicy(t, admin, { updb: { allowed: false } });
    const who = await subject({ authPolicyId: policy });
    const refused = await t.call({
      method: 'POST',
      url: `${client}/authenticate?method=password`,
      payload: { username: who.username, password: who.password },
    });
    assertError(refused, 401, 'INVALID_AUTH');
    assert.equal((await loginBy('cert', who)).authQueries.length, 0);
  });

  it('plays the C SDK sequence for an MFA identity: enroll, cert login, MFA enrollment, then cert login → auth query → authenticate/mfa', async () => {
    const identityId = await createIdentity(t, admin, { enrollment: { ott: true } });
    const detail = await get(`${management}/identities/${identityId}`, admin);
    const enrollmentToken = (detail.body as { data: { enrollment: { ott: { token: string } } } }).data.enrollment.ott
      .token;
    // 1. ott enrollment as the C SDK makes it: EC P-256 CSR as text/plain, Accept JSON.
    const key = await newKeyPair('ec');
    const csr = await newCsr(key, `C=US, ST=NY, O=OpenZiti, CN=${identityId}`);
    const enrolled = await t.https({
      method: 'POST',
      path: `${client}/enroll?method=ott&token=${enrollmentToken}`,
      headers: { 'content-type': 'text/plain', accept: 'application/json' },
      body: csr,
    });
    assert.equal(enrolled.status, 200, enrolled.text);
    const certificate = { certPem: (enrolled.json as { data: { cert: string } }).data.cert, keyPem: key.keyPem };
    const cLogin = () =>
      httpsChecked(t, {
        method: 'POST',
        path: `${client}/authenticate?method=cert`,
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({
          sdkInfo: { type: 'ziti-sdk-c', version: '1.0.12' },
          envInfo: { os: 'Linux', arch: 'x86_64' },
          configTypes: ['all'],
        }),
        cert: certificate.certPem,
        key: certificate.keyPem,
      });
    const sdk = (method: string, path: string, token: string, body?: string, headers: Record<string, string> = {}) =>
      httpsChecked(t, {
        method,
        path: `${client}${path}`,
        headers: {
          'zt-session': token,
          accept: 'application/json',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        ...(body !== undefined ? { body } : {}),
      });

    // 2. First run: complete session; the app enrolls MFA (empty JSON body), reads the URL, verifies a code.
    const first = (await cLogin()).json as { data: Session };
    assert.deepEqual(first.data.authQueries, []);
    assert.equal((await sdk('POST', '/current-identity/mfa', first.data.token, '')).status, 201);
    const mfa = (await sdk('GET', '/current-identity/mfa', first.data.token)).json as {
      data: { provisioningUrl: string };
    };
    const secret = secretOf(mfa.data.provisioningUrl);
    assert.equal(
      (
        await sdk(
          'POST',
          '/current-identity/mfa/verify',
          first.data.token,
          JSON.stringify({ code: totpCode(secret, t.clock()) }),
        )
      ).status,
      200,
    );
    t.clock.advance(30_000);

    // 3. Next run: the login answer carries the MFA query, so the SDK reports "partially authenticated".
    const second = (await cLogin()).json as { data: Session };
    assert.deepEqual(second.data.authQueries, [TOTP_QUERY]);
    assert.equal((await sdk('GET', '/current-identity', second.data.token)).status, 401);
    assert.equal(
      (await sdk('POST', '/authenticate/mfa', second.data.token, JSON.stringify({ code: '000000' }))).status,
      400,
    );
    assert.equal(
      (await sdk('POST', '/authenticate/mfa', second.data.token, JSON.stringify({ code: totpCode(secret, t.clock()) })))
        .status,
      200,
    );
    // 4. Fully authenticated: the SDK's usual calls.
    assert.equal((await sdk('GET', '/current-identity', second.data.token)).status, 200);
    assert.equal((await sdk('GET', '/current-api-session/service-updates', second.data.token)).status, 200);
    assert.equal((await sdk('GET', '/services?limit=25&offset=0', second.data.token)).status, 200);
    // The app removes MFA with the header the C SDK uses.
    t.clock.advance(30_000);
    assert.equal(
      (
        await sdk('DELETE', '/current-identity/mfa', second.data.token, undefined, {
          'mfa-validation-code': totpCode(secret, t.clock()),
        })
      ).status,
      200,
    );
    assert.deepEqual(((await cLogin()).json as { data: Session }).data.authQueries, []);
  });
});
