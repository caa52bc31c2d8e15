import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../support/conformance.js';
import { createIdentity, createUser, login } from '../../support/factories.js';
import { httpsChecked } from '../../support/third-party-ca.js';
import { newCsr, newKeyPair } from '../../support/test-keys.js';
import { buildTlsTestApp, type TlsTestApp } from '../../support/tls-client.js';
import { CLIENT, MANAGEMENT } from '../../support/api-paths.js';

// Upstream's authenticator store ends the API sessions an authenticator opened when the authenticator is deleted,
// which re-enroll does at once (AuthenticatorManager.ReEnroll), before the new enrollment is used.
describe('re-enrolling or deleting an authenticator ends the API sessions it opened', () => {
  let t: TlsTestApp;
  let admin: string;

  before(async () => {
    t = await buildTlsTestApp();
    admin = await t.loginAsAdmin();
  });
  after(() => t.close());

  const currentIdentity = (token: string) => t.call({ method: 'GET', url: `${CLIENT}/current-identity`, token });
  const assertAlive = async (token: string) => assert.equal((await currentIdentity(token)).status, 200);
  const assertEnded = async (token: string) => assertError(await currentIdentity(token), 401, 'UNAUTHORIZED');
  const expiresAt = () => new Date(t.clock().getTime() + 3_600_000).toISOString();

  async function identityDetail(id: string): Promise<Record<string, unknown>> {
    const result = await t.call({ method: 'GET', url: `${MANAGEMENT}/identities/${id}`, token: admin });
    assert.equal(result.status, 200, result.text);
    return (result.body as { data: Record<string, unknown> }).data;
  }

  async function reEnroll(authenticatorId: string): Promise<string> {
    const result = await t.call({
      method: 'POST',
      url: `${MANAGEMENT}/authenticators/${authenticatorId}/re-enroll`,
      token: admin,
      payload: { expiresAt: expiresAt() },
    });
    assert.equal(result.status, 201, result.text);
    const enrollment = await t.call({
      method: 'GET',
      url: `${MANAGEMENT}/enrollments/${(result.body as { data: { id: string } }).data.id}`,
      token: admin,
    });
    return (enrollment.body as { data: { token: string } }).data.token;
  }

  /** The C SDK's enroll: a fresh key, its CSR as text/plain, the issued certificate read from `data.cert`. */
  async function enrollOtt(identityId: string, enrollmentToken: string) {
    const key = await newKeyPair('ec');
    const csr = await newCsr(key, `C=US, ST=NY, O=OpenZiti, DC=localhost, CN=${identityId}`);
    const path = `${CLIENT}/enroll?method=ott&token=${enrollmentToken}`;
    const result = await httpsChecked(t, {
      method: 'POST',
      path,
      headers: { 'content-type': 'text/plain', accept: 'application/json' },
      body: csr,
    });
    assert.equal(result.status, 200, result.text);
    return { cert: (result.json as { data: { cert: string } }).data.cert, key: key.keyPem };
  }

  async function certLogin(credential: { cert: string; key: string }): Promise<string> {
    const body = JSON.stringify({
      sdkInfo: { type: 'ziti-sdk-c', version: '1.0.12' },
      envInfo: { os: 'Linux' },
      configTypes: [],
    });
    const result = await httpsChecked(t, {
      method: 'POST',
      path: `${CLIENT}/authenticate?method=cert`,
      headers: { 'content-type': 'application/json' },
      body,
      ...credential,
    });
    assert.equal(result.status, 200, result.text);
    return (result.json as { data: { token: string } }).data.token;
  }

  it('ends the certificate sessions at re-enroll; the password session of the same identity and other identities stay', async () => {
    const identityId = await createIdentity(t, admin, { enrollment: { ott: true } });
    const { token: ottToken } = ((await identityDetail(identityId)).enrollment as { ott: { token: string } }).ott;
    const first = await enrollOtt(identityId, ottToken);
    const [certSession, secondCertSession] = [await certLogin(first), await certLogin(first)];
    const password = 'a-password-of-its-own';
    const username = `both-${identityId}`;
    const updb = await t.call({
      method: 'POST',
      url: `${MANAGEMENT}/authenticators`,
      token: admin,
      payload: { method: 'updb', identityId, username, password },
    });
    assert.equal(updb.status, 201, updb.text);
    const passwordSession = await login(t, username, password);
    const bystander = await createUser(t, admin);
    const bystanderSession = await login(t, bystander.username, bystander.password);
    await assertAlive(certSession);

    const certId = ((await identityDetail(identityId)).authenticators as { cert: { id: string } }).cert.id;
    const newToken = await reEnroll(certId);
    await assertEnded(certSession);
    await assertEnded(secondCertSession);
    await assertAlive(passwordSession);
    await assertAlive(bystanderSession);

    // The new enrollment gives a new certificate that logs in; the old sessions stay ended.
    const renewed = await enrollOtt(identityId, newToken);
    await assertAlive(await certLogin(renewed));
    await assertEnded(certSession);
  });

  it('ends the password sessions at re-enroll, before the new password is set', async () => {
    const user = await createUser(t, admin);
    const [client, management] = [
      await login(t, user.username, user.password),
      await login(t, user.username, user.password, 'management'),
    ];
    await assertAlive(client);
    const newToken = await reEnroll(user.authenticatorId);
    await assertEnded(client);
    await assertEnded(management);
    const enroll = await t.call({
      method: 'POST',
      url: `${CLIENT}/enroll/updb?token=${newToken}`,
      payload: { password: 'the-new-password' },
    });
    assert.equal(enroll.status, 200, enroll.text);
    await assertAlive(await login(t, user.username, 'the-new-password'));
    await assertEnded(client);
  });

  it('ends them when an admin deletes the authenticator', async () => {
    const user = await createUser(t, admin);
    const session = await login(t, user.username, user.password);
    const deleted = await t.call({
      method: 'DELETE',
      url: `${MANAGEMENT}/authenticators/${user.authenticatorId}`,
      token: admin,
    });
    assert.equal(deleted.status, 200, deleted.text);
    await assertEnded(session);
  });
});
