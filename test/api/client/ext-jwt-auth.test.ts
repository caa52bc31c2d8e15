import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SignJWT } from 'jose';
import { buildTestApp, type TestApp } from '../../support/test-app.js';
import { assertError, type CallResult } from '../../support/conformance.js';
import { createAuthPolicy, createEntity, createIdentity, createUser, login } from '../../support/factories.js';
import {
  newSigningKey,
  signJwt,
  startJwksServer,
  type JwksServer,
  type JwtOptions,
  type SigningKey,
} from '../../support/jwt-issuer.js';
import { CLIENT as client, MANAGEMENT as management } from '../../support/api-paths.js';

interface Session {
  token: string;
  identityId: string;
  authenticatorId: string;
  authQueries: Record<string, unknown>[];
}
const dataOf = <T>(result: CallResult) => (result.body as { data: T }).data;

let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}`;

describe('ext-jwt authentication', () => {
  let t: TestApp;
  let admin: string;
  let jwks: JwksServer;
  let certKey: SigningKey;
  let certSigner: { id: string; issuer: string };
  let jwksKey: SigningKey;
  let jwksSigner: { id: string; issuer: string };

  const seconds = (offsetMs = 0) => Math.floor((t.clock().getTime() + offsetMs) / 1000);
  const extJwtLogin = (jwts: string[], api: 'client' | 'management' = 'client') =>
    t.call({
      method: 'POST',
      url: `/edge/${api}/v1/authenticate?method=ext-jwt`,
      headers: { authorization: jwts.map((jwt) => `Bearer ${jwt}`).join(', ') },
    });
  /** Two Authorization headers, as upstream's clients send a primary and a secondary JWT. */
  const injectWithBearers = async (method: 'GET' | 'POST', url: string, jwts: string[], token?: string) => {
    const headers: Record<string, string | string[]> = { authorization: jwts.map((jwt) => `Bearer ${jwt}`) };
    if (token) headers['zt-session'] = token;
    const response = await t.app.inject({ method, url, headers: headers as Record<string, string> });
    return { status: response.statusCode, body: response.body ? (JSON.parse(response.body) as unknown) : undefined };
  };
  const signerBody = (overrides: Record<string, unknown>) => ({
    name: unique('signer'),
    enabled: true,
    issuer: `https://${unique('idp')}.example`,
    audience: 'ziti',
    ...overrides,
  });
  async function addSigner(overrides: Record<string, unknown>): Promise<{ id: string; issuer: string }> {
    const body = signerBody(overrides);
    return { id: await createEntity(t, admin, 'external-jwt-signers', body), issuer: body.issuer };
  }
  const jwtFor = (key: SigningKey, signer: { issuer: string }, subject: string, options: Partial<JwtOptions> = {}) =>
    signJwt(key, { issuer: signer.issuer, audience: 'ziti', subject, expiresAt: seconds(5 * 60_000), ...options });

  before(async () => {
    t = await buildTestApp();
    admin = await t.loginAsAdmin();
    jwks = await startJwksServer();
    certKey = await newSigningKey('ES256', t.clock());
    jwksKey = await newSigningKey('RS256', t.clock());
    jwks.keys = [jwksKey.publicJwk];
    certSigner = await addSigner({
      certPem: certKey.certPem,
      kid: certKey.kid,
      externalAuthUrl: 'https://login.example/cert',
    });
    jwksSigner = await addSigner({ jwksEndpoint: `${jwks.url}/jwks` });
  });
  after(async () => {
    await t.close();
    await jwks.close();
  });

  describe('primary', () => {
    it('logs an identity in with a JWT from a certificate signer or a JWKS signer', async () => {
      const identityId = await createIdentity(t, admin);
      for (const [key, signer] of [
        [certKey, certSigner],
        [jwksKey, jwksSigner],
      ] as const) {
        const result = await extJwtLogin([await jwtFor(key, signer, identityId)]);
        assert.equal(result.status, 200, result.text);
        const session = dataOf<Session>(result);
        assert.deepEqual(
          [session.identityId, session.authenticatorId, session.authQueries],
          [identityId, `extJwtId:${signer.id}`, []],
        );
        assert.equal(
          (await t.call({ method: 'GET', url: `${client}/current-identity`, token: session.token })).status,
          200,
        );
      }
    });

    it('uses the certificate fingerprint as the kid of a certificate signer without one', async () => {
      const key = await newSigningKey('ES256', t.clock());
      const signer = await addSigner({ certPem: key.certPem });
      const fingerprint = dataOf<{ fingerprint: string }>(
        await t.call({ method: 'GET', url: `${management}/external-jwt-signers/${signer.id}`, token: admin }),
      ).fingerprint;
      const identityId = await createIdentity(t, admin);
      assert.equal((await extJwtLogin([await jwtFor(key, signer, identityId, { kid: fingerprint })])).status, 200);
      assertError(await extJwtLogin([await jwtFor(key, signer, identityId)]), 401, 'INVALID_AUTH');
    });

    it('refuses every JWT that is not exactly right with 401 INVALID_AUTH', async () => {
      const identityId = await createIdentity(t, admin);
      const other = await newSigningKey('ES256', t.clock());
      const refused: [string, Promise<string>][] = [
        ['unknown issuer', jwtFor(certKey, { issuer: 'https://nobody.example' }, identityId)],
        ['wrong audience', jwtFor(certKey, certSigner, identityId, { audience: 'someone-else' })],
        ['no audience', jwtFor(certKey, certSigner, identityId, { audience: undefined })],
        ['expired', jwtFor(certKey, certSigner, identityId, { expiresAt: seconds(-1000) })],
        ['not yet valid', jwtFor(certKey, certSigner, identityId, { notBefore: seconds(60_000) })],
        ['signed by another key', jwtFor({ ...other, kid: certKey.kid }, certSigner, identityId)],
        ['no kid', jwtFor(certKey, certSigner, identityId, { kid: null })],
        ['unknown identity', jwtFor(certKey, certSigner, 'no-such-identity')],
        [
          'HS256',
          new SignJWT({ sub: identityId })
            .setProtectedHeader({ alg: 'HS256', kid: certKey.kid })
            .setIssuer(certSigner.issuer)
            .setAudience('ziti')
            .sign(new Uint8Array(32)),
        ],
        [
          'alg none',
          Promise.resolve(
            `${Buffer.from(JSON.stringify({ alg: 'none', kid: certKey.kid })).toString('base64url')}.${Buffer.from(JSON.stringify({ iss: certSigner.issuer, aud: 'ziti', sub: identityId })).toString('base64url')}.`,
          ),
        ],
        ['not a JWT', Promise.resolve('definitely-not-a-jwt')],
      ];
      for (const [why, jwt] of refused) {
        const result = await extJwtLogin([await jwt]);
        assert.equal(result.status, 401, `${why}: ${result.text}`);
        assertError(result, 401, 'INVALID_AUTH');
      }
      assertError(await t.call({ method: 'POST', url: `${client}/authenticate?method=ext-jwt` }), 401, 'INVALID_AUTH');
      // Without exp or with an audience list that holds the signer's, the JWT is accepted (upstream: exp optional).
      assert.equal(
        (
          await extJwtLogin([
            await jwtFor(certKey, certSigner, identityId, { expiresAt: undefined, audience: ['x', 'ziti'] }),
          ])
        ).status,
        200,
      );
    });

    it('finds the identity by external id and a custom claim when the signer says so', async () => {
      const externalId = unique('alice@example.com');
      const identityId = await createIdentity(t, admin, { externalId });
      const key = await newSigningKey('ES256', t.clock());
      const signer = await addSigner({
        certPem: key.certPem,
        kid: key.kid,
        useExternalId: true,
        claimsProperty: 'email',
      });
      const session = dataOf<Session>(
        await extJwtLogin([await jwtFor(key, signer, 'ignored', { claims: { email: externalId } })]),
      );
      assert.equal(session.identityId, identityId);
      assertError(await extJwtLogin([await jwtFor(key, signer, externalId)]), 401, 'INVALID_AUTH');
      assertError(await extJwtLogin([await jwtFor(key, signer, 'x', { claims: { email: 42 } })]), 401, 'INVALID_AUTH');
    });

    it('refuses disabled signers and disabled identities', async () => {
      const identityId = await createIdentity(t, admin);
      const key = await newSigningKey('ES256', t.clock());
      const signer = await addSigner({ certPem: key.certPem, kid: key.kid });
      await t.call({
        method: 'PATCH',
        url: `${management}/external-jwt-signers/${signer.id}`,
        token: admin,
        payload: { enabled: false },
      });
      assertError(await extJwtLogin([await jwtFor(key, signer, identityId)]), 401, 'INVALID_AUTH');
      await t.call({
        method: 'POST',
        url: `${management}/identities/${identityId}/disable`,
        token: admin,
        payload: { durationMinutes: 0 },
      });
      assertError(await extJwtLogin([await jwtFor(certKey, certSigner, identityId)]), 401, 'INVALID_AUTH');
    });

    it('follows the auth policy: ext-jwt allowed, and only from the allowed signers', async () => {
      const closed = await createAuthPolicy(t, admin, { extJwt: { allowed: false, allowedSigners: [] } });
      const onlyJwks = await createAuthPolicy(t, admin, { extJwt: { allowed: true, allowedSigners: [jwksSigner.id] } });
      const closedIdentity = await createIdentity(t, admin, { authPolicyId: closed });
      const restricted = await createIdentity(t, admin, { authPolicyId: onlyJwks });
      assertError(await extJwtLogin([await jwtFor(certKey, certSigner, closedIdentity)]), 401, 'INVALID_AUTH');
      assertError(await extJwtLogin([await jwtFor(certKey, certSigner, restricted)]), 401, 'INVALID_AUTH');
      assert.equal((await extJwtLogin([await jwtFor(jwksKey, jwksSigner, restricted)])).status, 200);
      // Of two bearer tokens, the one the policy accepts wins.
      const both = await injectWithBearers('POST', `${client}/authenticate?method=ext-jwt`, [
        await jwtFor(certKey, certSigner, restricted),
        await jwtFor(jwksKey, jwksSigner, restricted),
      ]);
      assert.equal(both.status, 200);
    });
  });

  describe('JWKS keys', () => {
    it('fetches the keys once, refetches on an unknown kid (at most once a second), and sees a new key', async () => {
      const server = await startJwksServer();
      try {
        const first = await newSigningKey('ES256', t.clock());
        server.keys = [first.publicJwk];
        const signer = await addSigner({ jwksEndpoint: `${server.url}/jwks` });
        const identityId = await createIdentity(t, admin);
        assert.equal((await extJwtLogin([await jwtFor(first, signer, identityId)])).status, 200);
        assert.equal((await extJwtLogin([await jwtFor(first, signer, identityId)])).status, 200);
        assert.equal(server.fetches, 1, 'known keys are served from the cache');

        const rotated = await newSigningKey('ES256', t.clock());
        t.clock.advance(1_000);
        assertError(await extJwtLogin([await jwtFor(rotated, signer, identityId)]), 401, 'INVALID_AUTH');
        assert.equal(server.fetches, 2, 'an unknown kid refetches');
        server.keys = [first.publicJwk, rotated.publicJwk];
        assertError(await extJwtLogin([await jwtFor(rotated, signer, identityId)]), 401, 'INVALID_AUTH');
        assert.equal(server.fetches, 2, 'one refetch per second at most');
        t.clock.advance(1_000);
        assert.equal((await extJwtLogin([await jwtFor(rotated, signer, identityId)])).status, 200);
        assert.equal(server.fetches, 3);
      } finally {
        await server.close();
      }
    });

    it('refuses keys from an endpoint that redirects to another host, is too large or fails', async () => {
      const server = await startJwksServer();
      try {
        const key = await newSigningKey('ES256', t.clock());
        const identityId = await createIdentity(t, admin);
        const keysBody = JSON.stringify({ keys: [key.publicJwk] });
        server.routes.set('/same-host', () => ({ status: 302, headers: { location: '/keys' }, body: '' }));
        server.routes.set('/keys', () => ({
          status: 200,
          headers: { 'content-type': 'application/json' },
          body: keysBody,
        }));
        server.routes.set('/other-host', () => ({
          status: 302,
          headers: { location: server.url.replace('127.0.0.1', 'localhost') + '/keys' },
          body: '',
        }));
        server.routes.set('/huge', () => ({
          status: 200,
          body: JSON.stringify({ keys: [key.publicJwk], padding: 'x'.repeat(300 * 1024) }),
        }));
        server.routes.set('/broken', () => ({ status: 500, body: 'no' }));
        const outcomes: Record<string, number> = {};
        for (const path of ['/same-host', '/other-host', '/huge', '/broken']) {
          const signer = await addSigner({ jwksEndpoint: `${server.url}${path}` });
          outcomes[path] = (await extJwtLogin([await jwtFor(key, signer, identityId)])).status;
        }
        assert.deepEqual(outcomes, { '/same-host': 200, '/other-host': 401, '/huge': 401, '/broken': 401 });
      } finally {
        await server.close();
      }
    });
  });

  describe('secondary factor (requireExtJwtSigner)', () => {
    it('keeps the session partial on every request that lacks the signer JWT for this identity', async () => {
      const policy = await createAuthPolicy(t, admin, { secondary: { requireExtJwtSigner: certSigner.id } });
      const user = await createUser(t, admin, { authPolicyId: policy });
      const other = await createIdentity(t, admin, { authPolicyId: policy });
      const result = await t.call({
        method: 'POST',
        url: `${client}/authenticate?method=password`,
        payload: { username: user.username, password: user.password },
      });
      const session = dataOf<Session>(result);
      assert.deepEqual(session.authQueries, [
        { httpUrl: 'https://login.example/cert', provider: 'url', typeId: 'EXT-JWT' },
      ]);
      assertError(
        await t.call({ method: 'GET', url: `${client}/services`, token: session.token }),
        401,
        'UNAUTHORIZED',
      );

      const mine = await jwtFor(certKey, certSigner, user.id);
      const withJwt = await injectWithBearers('GET', `${client}/services`, [mine], session.token);
      assert.equal(withJwt.status, 200);
      const current = await injectWithBearers('GET', `${client}/current-api-session`, [mine], session.token);
      assert.deepEqual((current.body as { data: Session }).data.authQueries, []);
      // Another identity's JWT from the same signer does not count (upstream accepts it).
      assert.equal(
        (
          await injectWithBearers(
            'GET',
            `${client}/services`,
            [await jwtFor(certKey, certSigner, other)],
            session.token,
          )
        ).status,
        401,
      );
      // Nor does a JWT from another signer.
      assert.equal(
        (
          await injectWithBearers(
            'GET',
            `${client}/services`,
            [await jwtFor(jwksKey, jwksSigner, user.id)],
            session.token,
          )
        ).status,
        401,
      );
      // Without it the next request is partial again.
      assertError(
        await t.call({ method: 'GET', url: `${client}/services`, token: session.token }),
        401,
        'UNAUTHORIZED',
      );
    });

    it('refuses the login when the required signer cannot be satisfied (disabled)', async () => {
      const key = await newSigningKey('ES256', t.clock());
      const signer = await addSigner({ certPem: key.certPem, kid: key.kid });
      const policy = await createAuthPolicy(t, admin, { secondary: { requireExtJwtSigner: signer.id } });
      const user = await createUser(t, admin, { authPolicyId: policy });
      assert.equal(
        (
          await t.call({
            method: 'POST',
            url: `${client}/authenticate?method=password`,
            payload: { username: user.username, password: user.password },
          })
        ).status,
        200,
      );
      await t.call({
        method: 'PATCH',
        url: `${management}/external-jwt-signers/${signer.id}`,
        token: admin,
        payload: { enabled: false },
      });
      const refused = await t.call({
        method: 'POST',
        url: `${client}/authenticate?method=password`,
        payload: { username: user.username, password: user.password },
      });
      assertError(refused, 401, 'INVALID_AUTH');
    });

    it('does not let an admin with the factor outstanding use admin operations', async () => {
      const policy = await createAuthPolicy(t, admin, { secondary: { requireExtJwtSigner: certSigner.id } });
      const user = await createUser(t, admin, { authPolicyId: policy, isAdmin: true });
      const token = await login(t, user.username, user.password, 'management');
      assertError(await t.call({ method: 'GET', url: `${management}/identities`, token }), 401, 'UNAUTHORIZED');
      const full = await injectWithBearers(
        'GET',
        `${management}/identities`,
        [await jwtFor(certKey, certSigner, user.id)],
        token,
      );
      assert.equal(full.status, 200);
    });
  });
});
