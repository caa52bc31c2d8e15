// External JWT signers as an identity provider uses them: signers from a certificate and from a JWKS served on
// loopback, the public list clients read before login, `ext-jwt` logins with real signed JWTs (and the ones that
// must fail: another key, expired, another audience, an unknown kid or identity), a signer as a second factor, and
// a signer in use that cannot be deleted.
import { newSigningKey, signJwt, startJwksServer, type SigningKey } from '../../support/jwt-issuer.js';
import { sequence, type Steps } from '../steps.js';
import { authPolicy, policyUser } from './auth-policies.js';
import { PASSWORD } from './fixtures.js';

const ISSUER = 'https://idp.example';
const AUDIENCE = 'ziti-diff';

/** One key pair for both runs, so both controllers hold the same certificate (and fingerprint) and accept the same JWTs. */
let sharedKeys: Promise<{ signer: SigningKey; other: SigningKey; jwks: SigningKey }> | undefined;
const keys = () =>
  (sharedKeys ??= Promise.all([newSigningKey('RS256'), newSigningKey('RS256'), newSigningKey('ES256')]).then(
    ([signer, other, jwks]) => ({ signer, other, jwks }),
  ));

const inMinutes = (minutes: number) => Math.floor(Date.now() / 1000) + minutes * 60;

const extJwtLogin = (s: Steps, jwt: string) =>
  s.client.as('anonymous').post('/authenticate?method=ext-jwt', {
    body: { configTypes: ['all'] },
    headers: { authorization: `Bearer ${jwt}` },
  });

export const extJwt = [
  sequence('ext-jwt-certificate-signer', async (s) => {
    const { signer, other } = await keys();
    const signerId = await s.create('ejc-signer', '/external-jwt-signers', {
      name: 'ejc-signer',
      certPem: signer.certPem,
      kid: signer.kid,
      issuer: ISSUER,
      audience: AUDIENCE,
      claimsProperty: 'email',
      useExternalId: true,
      enabled: true,
      externalAuthUrl: 'https://idp.example/authorize',
      jwksEndpoint: null,
      tags: {},
    });
    await s.get(`/external-jwt-signers/${signerId}`);
    await s.client.as('anonymous').get('/external-jwt-signers');
    await s.client.as('anonymous').get(`/external-jwt-signers?filter=${encodeURIComponent('name = "ejc-signer"')}`);
    await s.client.as('anonymous').get(`/external-jwt-signers?filter=${encodeURIComponent(`issuer = "${ISSUER}"`)}`);
    const policy = await s.create(
      'ejc-policy',
      '/auth-policies',
      authPolicy('ejc-policy', { extJwt: true, allowedSigners: [signerId] }),
    );
    const user = await s.create('ejc-user', '/identities', {
      name: 'ejc-user',
      type: 'User',
      isAdmin: false,
      authPolicyId: policy,
      externalId: 'ejc-user@example.com',
    });
    const claims = { email: 'ejc-user@example.com' };
    const good = await extJwtLogin(
      s,
      await signJwt(signer, {
        issuer: ISSUER,
        audience: AUDIENCE,
        subject: 'ejc-subject',
        claims,
        expiresAt: inMinutes(5),
      }),
    );
    s.useToken('ejc-user', good.data?.token);
    s.name(good.data?.id, 'ejc-api-session');
    await s.as('ejc-user').client.get('/current-identity');
    await s.as('ejc-user').client.get('/current-api-session');
    // JWTs that must not log anyone in.
    await extJwtLogin(
      s,
      await signJwt(other, { issuer: ISSUER, audience: AUDIENCE, claims, expiresAt: inMinutes(5), kid: signer.kid }),
    );
    await extJwtLogin(
      s,
      await signJwt(signer, { issuer: ISSUER, audience: AUDIENCE, claims, expiresAt: inMinutes(-5) }),
    );
    await extJwtLogin(
      s,
      await signJwt(signer, { issuer: ISSUER, audience: 'someone-else', claims, expiresAt: inMinutes(5) }),
    );
    await extJwtLogin(
      s,
      await signJwt(signer, { issuer: 'https://unknown.example', audience: AUDIENCE, claims, expiresAt: inMinutes(5) }),
    );
    await extJwtLogin(
      s,
      await signJwt(signer, {
        issuer: ISSUER,
        audience: AUDIENCE,
        claims,
        expiresAt: inMinutes(5),
        kid: 'no-such-kid',
      }),
    );
    await extJwtLogin(
      s,
      await signJwt(signer, {
        issuer: ISSUER,
        audience: AUDIENCE,
        claims: { email: 'nobody@example.com' },
        expiresAt: inMinutes(5),
      }),
    );
    await s.client.as('anonymous').post('/authenticate?method=ext-jwt', { body: {} });
    // Disabled, the signer logs no one in and leaves the public list.
    await s.patch(`/external-jwt-signers/${signerId}`, { body: { enabled: false } });
    await extJwtLogin(
      s,
      await signJwt(signer, { issuer: ISSUER, audience: AUDIENCE, claims, expiresAt: inMinutes(5) }),
    );
    await s.client.as('anonymous').get('/external-jwt-signers');
    // In use by a policy, it cannot go; once the policy and its identity are gone, it can.
    await s.delete(`/external-jwt-signers/${signerId}`);
    await s.delete(`/identities/${user}`);
    await s.delete(`/auth-policies/${policy}`);
    await s.delete(`/external-jwt-signers/${signerId}`);
  }),
  sequence('ext-jwt-jwks-signer', async (s) => {
    const { jwks: key } = await keys();
    const server = await startJwksServer();
    try {
      server.keys = [key.publicJwk];
      s.name(server.url, 'jwks-server');
      const signerId = await s.create('ejj-signer', '/external-jwt-signers', {
        name: 'ejj-signer',
        jwksEndpoint: `${server.url}/jwks`,
        issuer: 'https://jwks-idp.example',
        audience: AUDIENCE,
        claimsProperty: 'sub',
        useExternalId: false,
        enabled: true,
        tags: {},
      });
      await s.get(`/external-jwt-signers/${signerId}`);
      const policy = await s.create('ejj-policy', '/auth-policies', authPolicy('ejj-policy', { extJwt: true }));
      const user = await s.create('ejj-user', '/identities', {
        name: 'ejj-user',
        type: 'User',
        isAdmin: false,
        authPolicyId: policy,
      });
      const jwt = (subject: string) =>
        signJwt(key, { issuer: 'https://jwks-idp.example', audience: AUDIENCE, subject, expiresAt: inMinutes(5) });
      const good = await extJwtLogin(s, await jwt(user));
      s.name(good.data?.id, 'ejj-api-session');
      await extJwtLogin(s, await jwt('no-such-identity'));
      // The provider rotates to a key the controller has not seen: moments after the last fetch it is refused (ours
      // refetches for an unknown kid at most once a second), a little later the controller fetches the keys again.
      const rotated = await newSigningKey('ES256');
      server.keys = [rotated.publicJwk];
      const rotatedJwt = await signJwt(rotated, {
        issuer: 'https://jwks-idp.example',
        audience: AUDIENCE,
        subject: user,
        expiresAt: inMinutes(5),
      });
      await extJwtLogin(s, rotatedJwt);
      await s.wait(1500);
      const afterRotation = await extJwtLogin(s, rotatedJwt);
      s.name(afterRotation.data?.id, 'ejj-api-session-2');
      await s.delete(`/external-jwt-signers/${signerId}`);
    } finally {
      await server.close();
    }
  }),
  sequence('ext-jwt-second-factor', async (s) => {
    const { signer } = await keys();
    const signerId = await s.create('ejs-second', '/external-jwt-signers', {
      name: 'ejs-second',
      certPem: signer.certPem,
      kid: signer.kid,
      issuer: 'https://second.example',
      audience: AUDIENCE,
      claimsProperty: 'sub',
      useExternalId: false,
      enabled: true,
      externalAuthUrl: 'https://second.example/authorize',
    });
    const policy = await s.create(
      'ejs-policy',
      '/auth-policies',
      authPolicy('ejs-policy', { requireExtJwtSigner: signerId }),
    );
    const user = await policyUser(s, 'ejs-user', policy);
    const login = await s.client.login('ejs-user', 'ejs-user-login', PASSWORD);
    s.name(login.data?.id, 'ejs-api-session');
    const me = s.as('ejs-user').client;
    await me.get('/current-api-session');
    await me.get('/services');
    const bearer = await signJwt(signer, {
      issuer: 'https://second.example',
      audience: AUDIENCE,
      subject: user,
      expiresAt: inMinutes(5),
    });
    await me.get('/services', { headers: { authorization: `Bearer ${bearer}` } });
    await me.get('/current-api-session', { headers: { authorization: `Bearer ${bearer}` } });
    await s.delete(`/external-jwt-signers/${signerId}`);
  }),
];
