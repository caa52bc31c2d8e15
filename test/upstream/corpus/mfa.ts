// TOTP MFA as an authenticator app and the SDKs use it: enrollment with the secret read from the provisioning URL,
// the QR code, verification with a real code, recovery codes, the partial session of the next login (what it may
// and may not call, `authenticate/mfa` with a code and with a recovery code), removal by the identity and by an
// admin; an admin whose MFA is pending; both APIs.
import { secretOf, totpCode } from '../../support/mfa.js';
import type { Reply, Steps } from '../steps.js';
import { sequence } from '../steps.js';
import { ordinaryUser, PASSWORD } from './fixtures.js';

const STEP_MS = 30_000;

/**
 * An authenticator app for one identity on one controller. Both accept the codes of two steps either side of now;
 * ours takes each step once and never an earlier one (RFC 6238 §5.2), so each call takes the next step not used
 * yet, starting a step back: four codes a sequence, without waiting for the clock.
 */
class Authenticator {
  private lastStep = -Infinity;
  constructor(readonly secret: string) {}

  code(): string {
    const now = Math.floor(Date.now() / STEP_MS);
    const step = Math.max(this.lastStep + 1, now - 1);
    if (step > now + 2) throw new Error('no unused TOTP step within the window');
    this.lastStep = step;
    return totpCode(this.secret, new Date(step * STEP_MS));
  }
}

/** Starts MFA and reads its detail: the secret and recovery codes get names (they differ between the runs). */
async function startMfa(api: Steps, label: string): Promise<{ app: Authenticator; recoveryCodes: string[] }> {
  // The C SDK sends an empty body with a JSON content type.
  await api.post('/current-identity/mfa', { body: '' });
  const detail = await api.get('/current-identity/mfa');
  const url = String(detail.data?.provisioningUrl ?? '');
  const secret = url === '' ? 'AAAAAAAAAAAAAAAA' : secretOf(url);
  api.name(secret, `${label}-secret`);
  const recoveryCodes = nameRecoveryCodes(api, detail, label);
  return { app: new Authenticator(secret), recoveryCodes };
}

function nameRecoveryCodes(api: Steps, reply: Reply, label: string): string[] {
  const codes = (reply.data?.recoveryCodes ?? []) as string[];
  codes.forEach((code, index) => api.name(code, `${label}-recovery-${index}`));
  return codes;
}

export const mfa = [
  sequence('mfa-enrollment', async (s) => {
    const user = await ordinaryUser(s, 'mfa-user');
    const me = s.as('mfa-user').client;
    await me.get('/current-identity/mfa');
    await me.get('/current-identity/mfa/qr-code', { headers: { accept: '*/*' } });
    const { app, recoveryCodes } = await startMfa(me, 'mfa-user');
    await me.post('/current-identity/mfa', { body: '' });
    await me.get('/current-identity/mfa/qr-code', { headers: { accept: 'image/png' } });
    await me.get('/current-identity/mfa/recovery-codes', { headers: { 'mfa-validation-code': '000000' } });
    await me.post('/current-identity/mfa/verify', { body: { code: '000000' } });
    await me.post('/current-identity/mfa/verify', { body: { code: recoveryCodes[0] ?? 'ABCDEF' } });
    await me.post('/current-identity/mfa/verify', { body: {} });
    await me.post('/current-identity/mfa/verify', { body: { code: app.code() } });
    await me.post('/current-identity/mfa/verify', { body: { code: '000000' } });
    await me.get('/current-identity/mfa');
    await me.get('/current-identity/mfa/qr-code', { headers: { accept: '*/*' } });
    await me.get('/current-api-session');
    await me.get('/current-identity');
    await s.get(`/identities/${user.id}`);
    // Recovery codes: shown with a TOTP code (the C SDK sends it as a header), regenerated with a recovery code.
    await me.get('/current-identity/mfa/recovery-codes');
    await me.get('/current-identity/mfa/recovery-codes', { headers: { 'mfa-validation-code': '000000' } });
    await me.post('/current-identity/mfa/recovery-codes', { body: { code: '000000' } });
    await me.post('/current-identity/mfa/recovery-codes', { body: { code: recoveryCodes[0] ?? 'ABCDEF' } });
    const fresh = nameRecoveryCodes(
      me,
      await me.management.get('/current-identity/mfa/recovery-codes', {
        headers: { 'mfa-validation-code': app.code() },
      }),
      'mfa-user-new',
    );

    // The next login is partial until MFA: what it may call, then a TOTP code completes it.
    await s.client.login('mfa-partial', user.username, PASSWORD);
    const partial = s.as('mfa-partial').client;
    await partial.get('/current-api-session');
    await partial.get('/current-identity');
    await partial.get('/services');
    await partial.get('/current-identity/mfa');
    await partial.get('/current-identity/mfa/recovery-codes', { headers: { 'mfa-validation-code': '000000' } });
    await partial.management.get('/current-identity');
    await partial.post('/authenticate/mfa', { body: { code: '000000' } });
    await partial.post('/authenticate/mfa', { body: {} });
    await partial.post('/authenticate/mfa', { body: { code: app.code() } });
    await partial.get('/current-api-session');
    await partial.get('/services');
    // Another login completed with a recovery code, which then no longer works.
    await s.client.login('mfa-recovered', user.username, PASSWORD);
    const recovered = s.as('mfa-recovered').client;
    await recovered.post('/authenticate/mfa', { body: { code: fresh[0] ?? 'ABCDEF' } });
    await recovered.get('/current-identity');
    await s.client.login('mfa-reused', user.username, PASSWORD);
    await s.as('mfa-reused').management.post('/authenticate/mfa', { body: { code: fresh[0] ?? 'ABCDEF' } });

    // Removal by the identity: a code is required once verified.
    await me.delete('/current-identity/mfa');
    await me.delete('/current-identity/mfa', { headers: { 'mfa-validation-code': '000000' } });
    await me.delete('/current-identity/mfa', { headers: { 'mfa-validation-code': app.code() } });
    await me.get('/current-identity/mfa');
    await me.delete('/current-identity/mfa');
    await s.client.login('mfa-after', user.username, PASSWORD);
    await s.as('mfa-after').client.get('/services');
    await s.as('mfa-after').client.post('/authenticate/mfa', { body: { code: '123456' } });
  }),
  sequence('mfa-admin-removal', async (s) => {
    const user = await ordinaryUser(s, 'mfa-removed');
    const me = s.as('mfa-removed').management;
    const { app } = await startMfa(me, 'mfa-removed');
    await me.get('/current-identity/mfa/qr-code', { headers: { accept: 'image/png' } });
    await me.post('/current-identity/mfa/verify', { body: { code: app.code() } });
    await me.post('/current-identity/mfa/recovery-codes', { body: { code: '000000' } });
    await s.get(`/identities/${user.id}`);
    await s.delete(`/identities/${user.id}/mfa`);
    await s.get(`/identities/${user.id}`);
    await me.get('/current-identity/mfa');
    await s.delete(`/identities/${user.id}/mfa`);
    await s.delete('/identities/no-such-identity/mfa');
    // An unverified enrollment is removed without a code.
    await startMfa(me, 'mfa-unverified');
    await me.delete('/current-identity/mfa');
    await me.get('/current-identity/mfa');
    await s.as('anonymous').delete(`/identities/${user.id}/mfa`);
    await s.as('mfa-removed').delete(`/identities/${user.id}/mfa`);
  }),
  sequence('mfa-pending-admin', async (s) => {
    const admin = await s.create('mfa-admin', '/identities', { name: 'mfa-admin', type: 'User', isAdmin: true });
    await s.create('mfa-admin-updb', '/authenticators', {
      method: 'updb',
      identityId: admin,
      username: 'mfa-admin-login',
      password: PASSWORD,
    });
    await s.management.login('mfa-admin', 'mfa-admin-login', PASSWORD);
    const { app } = await startMfa(s.as('mfa-admin').management, 'mfa-admin');
    await s.as('mfa-admin').management.post('/current-identity/mfa/verify', { body: { code: app.code() } });
    await s.management.login('mfa-admin-partial', 'mfa-admin-login', PASSWORD);
    const partial = s.as('mfa-admin-partial').management;
    const mine = `/identities?filter=${encodeURIComponent('name = "mfa-admin"')}`;
    await partial.get(mine);
    await partial.get('/current-api-session');
    await partial.post('/authenticate/mfa', { body: { code: app.code() } });
    await partial.get(mine);
    await s.delete(`/identities/${admin}/mfa`);
  }),
];
