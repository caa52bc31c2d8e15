// Auth policies enforced where logins and passwords happen: primary methods allowed and refused, password rules,
// lockout after failed attempts, login throttling, a policy requiring TOTP (a partial session until MFA is enrolled
// and verified).
import { sequence, type Steps } from '../steps.js';
import { enrolledIdentity, PASSWORD } from './fixtures.js';

interface PolicyOptions {
  cert?: boolean;
  updb?: boolean;
  extJwt?: boolean;
  allowedSigners?: string[];
  maxAttempts?: number;
  lockoutDurationMinutes?: number;
  minPasswordLength?: number;
  strictPasswords?: boolean;
  requireTotp?: boolean;
  requireExtJwtSigner?: string | null;
}

/** A complete auth policy body, as the console sends it. */
export function authPolicy(name: string, options: PolicyOptions = {}) {
  const strict = options.strictPasswords ?? false;
  return {
    name,
    primary: {
      cert: { allowed: options.cert ?? true, allowExpiredCerts: false },
      extJwt: { allowed: options.extJwt ?? false, allowedSigners: options.allowedSigners ?? [] },
      updb: {
        allowed: options.updb ?? true,
        lockoutDurationMinutes: options.lockoutDurationMinutes ?? 0,
        maxAttempts: options.maxAttempts ?? 0,
        minPasswordLength: options.minPasswordLength ?? 5,
        requireMixedCase: strict,
        requireNumberChar: strict,
        requireSpecialChar: strict,
      },
    },
    secondary: { requireTotp: options.requireTotp ?? false, requireExtJwtSigner: options.requireExtJwtSigner ?? null },
    tags: {},
  };
}

/** An identity bound to `policyId` with a password; returns its id (no login). */
export async function policyUser(s: Steps, name: string, policyId: string, password = PASSWORD): Promise<string> {
  const id = await s.create(name, '/identities', { name, type: 'User', isAdmin: false, authPolicyId: policyId });
  await s.create(`${name}-updb`, '/authenticators', {
    method: 'updb',
    identityId: id,
    username: `${name}-login`,
    password,
  });
  return id;
}

const login = (s: Steps, username: string, password: string) =>
  s.client.as('anonymous').post('/authenticate?method=password', { body: { username, password } });

export const authPolicies = [
  sequence('auth-policy-passwords-and-lockout', async (s) => {
    const policy = await s.create(
      'apl-policy',
      '/auth-policies',
      authPolicy('apl-policy', {
        maxAttempts: 2,
        lockoutDurationMinutes: 5,
        minPasswordLength: 10,
        strictPasswords: true,
      }),
    );
    await s.get(`/auth-policies/${policy}`);
    // Password rules wherever a password is set: an authenticator, then the identity's own change.
    const weak = await s.create('apl-weak', '/identities', {
      name: 'apl-weak',
      type: 'User',
      isAdmin: false,
      authPolicyId: policy,
    });
    await s.post('/authenticators', {
      body: { method: 'updb', identityId: weak, username: 'apl-weak-login', password: 'lowercase-only' },
    });
    await policyUser(s, 'apl-user', policy, 'Strong-Pass-1!');
    await s.client.login('apl-user', 'apl-user-login', 'Strong-Pass-1!');
    const authenticatorId = (await s.as('apl-user').client.get('/current-identity/authenticators')).data?.[0]?.id;
    s.name(authenticatorId, 'apl-user-authenticator');
    await s.as('apl-user').client.patch(`/current-identity/authenticators/${authenticatorId}`, {
      body: { password: 'short', currentPassword: 'Strong-Pass-1!' },
    });
    await s.as('apl-user').client.patch(`/current-identity/authenticators/${authenticatorId}`, {
      body: { password: 'Stronger-Pass-2?', currentPassword: 'Strong-Pass-1!' },
    });
    // Lockout: two wrong passwords in a row, then even the right one is refused.
    await login(s, 'apl-user-login', 'wrong-password-1');
    await login(s, 'apl-user-login', 'wrong-password-2');
    await login(s, 'apl-user-login', 'Stronger-Pass-2?');
    await s.get(`/identities?filter=${encodeURIComponent('name = "apl-user"')}`);
  }),
  sequence('auth-policy-primary-methods', async (s) => {
    const noCert = await s.create('apm-no-cert', '/auth-policies', authPolicy('apm-no-cert', { cert: false }));
    const noUpdb = await s.create('apm-no-updb', '/auth-policies', authPolicy('apm-no-updb', { updb: false }));
    const device = await enrolledIdentity(s, 'apm-device');
    await s.patch(`/identities/${device.id}`, { body: { authPolicyId: noCert } });
    await s.client
      .as('anonymous')
      .post('/authenticate?method=cert', { body: {}, cert: { cert: device.cert, key: device.key } });
    await s.patch(`/identities/${device.id}`, { body: { authPolicyId: noUpdb } });
    await s.client
      .as('anonymous')
      .post('/authenticate?method=cert', { body: {}, cert: { cert: device.cert, key: device.key } });
    await s.patch(`/identities/${device.id}`, { body: { authPolicyId: '' } });
    await policyUser(s, 'apm-user', noUpdb);
    await login(s, 'apm-user-login', PASSWORD);
    await s.client
      .as('anonymous')
      .post('/authenticate?method=ext-jwt', { body: {}, headers: { authorization: 'Bearer not.a.jwt' } });
    // A policy in use cannot be deleted.
    await s.delete(`/auth-policies/${noUpdb}`);
    await s.delete('/auth-policies/default');
  }),
  sequence('auth-policy-require-totp', async (s) => {
    const policy = await s.create('apt-policy', '/auth-policies', authPolicy('apt-policy', { requireTotp: true }));
    await policyUser(s, 'apt-user', policy);
    const first = await s.client.login('apt-user', 'apt-user-login', PASSWORD);
    s.name(first.data?.id, 'apt-api-session');
    const partial = s.as('apt-user').client;
    await partial.get('/current-api-session');
    await partial.get('/services');
    await partial.get('/current-identity');
    await partial.post('/authenticate/mfa', { body: { code: '123456' } });
    // Enrollment is allowed while partial; it starts, the QR code shows.
    await partial.post('/current-identity/mfa', { body: '' });
    await partial.get('/current-identity/mfa/qr-code', { headers: { accept: '*/*' } });
    await partial.post('/current-identity/mfa/verify', { body: { code: '000000' } });
    await partial.delete('/current-identity/mfa');
    await partial.management.get('/current-identity');
  }),
  sequence('login-throttling', async (s) => {
    await policyUser(s, 'thr-user', 'default');
    for (let attempt = 0; attempt < 11; attempt++) await login(s, 'thr-user-login', `wrong-password-${attempt}`);
    await login(s, 'thr-user-login', PASSWORD);
  }),
];
