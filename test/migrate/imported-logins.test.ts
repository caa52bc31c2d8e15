// After the import, on upstream's own PKI files: what upstream's clients hold keeps working. Old certificates and
// passwords log in, MFA takes a code from the old secret and an old recovery code, mailed enrollment JWTs enroll
// and the certificates ours then issues chain to the same signing CA.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { certificateFingerprint } from '../../src/pki/fingerprint.js';
import { totpCode } from '../support/mfa.js';
import { createCsr } from '../support/third-party-ca.js';
import {
  fixtureFolder,
  fixturePkiSettings,
  importedApp,
  recordedAt,
  recordedSecrets,
  type ImportedApp,
} from './imported-app.js';
import { upstreamClient, type UpstreamClient } from './upstream-client.js';

const secrets = recordedSecrets();
const tokenOf = (json: unknown) => (json as { data: { token: string } }).data.token;

describe('logging in and enrolling after the import, on upstream PKI', () => {
  let imported: ImportedApp;
  let client: UpstreamClient;
  let now: Date;
  before(async () => {
    imported = await importedApp({ settings: fixturePkiSettings() }, true);
    // Pending enrollments expire and certificates start at the recording's time; TOTP codes are of that time too.
    now = new Date(recordedAt().getTime() + 60_000);
    imported.app.clock.set(now);
    client = upstreamClient(`https://127.0.0.1:${imported.app.port}`);
  });
  after(() => imported.close());

  it("serves upstream's server certificate and CA bundle", () => {
    const pki = imported.app.deps.pki;
    const serverChain = readFileSync(join(fixtureFolder, 'pki', 'server.chain.pem'), 'utf8');
    assert.equal(pki.serverCertFingerprint, certificateFingerprint(serverChain));
    assert.match(pki.caBundlePem, /BEGIN CERTIFICATE/);
    assert.equal(pki.signingCertPem.trim(), readFileSync(join(fixtureFolder, 'pki', 'signing.cert'), 'utf8').trim());
  });

  it('logs an old identity in with the certificate upstream issued', async () => {
    const { certPem, keyPem } = secrets.certificates.client ?? assert.fail('no client certificate');
    const reply = await client.request('POST', '/edge/client/v1/authenticate?method=cert', {
      body: '{}',
      contentType: 'application/json',
      cert: certPem,
      key: keyPem,
    });
    assert.equal(reply.status, 200, reply.text);
    assert.equal((reply.json as { data: { identityId: string } }).data.identityId, secrets.ids.client);
  });

  it('logs an old identity in with its password, and refuses a wrong one', async () => {
    const good = await client.request('POST', '/edge/client/v1/authenticate?method=password', {
      body: JSON.stringify({ username: 'pw-user', password: secrets.password }),
      contentType: 'application/json',
    });
    assert.equal(good.status, 200, good.text);
    const bad = await client.request('POST', '/edge/client/v1/authenticate?method=password', {
      body: JSON.stringify({ username: 'pw-user', password: `${secrets.password}x` }),
      contentType: 'application/json',
    });
    assert.equal(bad.status, 401);
  });

  it('completes MFA with a code from the old secret, and with an old recovery code once', async () => {
    const first = tokenOf(
      await client.json('POST', '/edge/client/v1/authenticate?method=password', undefined, {
        username: 'mfa-user',
        password: secrets.password,
      }),
    );
    await client.json('POST', '/edge/client/v1/authenticate/mfa', first, { code: totpCode(secrets.mfa.secret, now) });
    const identity = await client.json('GET', '/edge/client/v1/current-identity', first);
    assert.equal((identity as { data: { name: string } }).data.name, 'mfa-user');

    const recovery = secrets.mfa.recoveryCodes[0] ?? assert.fail('no recovery code');
    const second = tokenOf(
      await client.json('POST', '/edge/client/v1/authenticate?method=password', undefined, {
        username: 'mfa-user',
        password: secrets.password,
      }),
    );
    await client.json('POST', '/edge/client/v1/authenticate/mfa', second, { code: recovery });
    const third = tokenOf(
      await client.json('POST', '/edge/client/v1/authenticate?method=password', undefined, {
        username: 'mfa-user',
        password: secrets.password,
      }),
    );
    const reused = await client.request('POST', '/edge/client/v1/authenticate/mfa', {
      token: third,
      body: JSON.stringify({ code: recovery }),
      contentType: 'application/json',
    });
    // MFA_INVALID_TOKEN (400), as for any wrong code: a recovery code is consumed on use.
    assert.equal(reused.status, 400, reused.text);
    assert.match(reused.text, /MFA_INVALID_TOKEN/);
  });

  it('enrolls a pending ott JWT upstream mailed, signing with the same signing CA', async () => {
    const jwt = secrets.pendingJwts['pending-ott'] ?? assert.fail('no pending JWT');
    const claims = decodeJwt(jwt);
    const { csrPem, keyPem } = await createCsr('pending-ott');
    const certPem = await client.enrollOtt(String(claims.jti), csrPem);
    const issued = new X509Certificate(certPem);
    const signer = new X509Certificate(readFileSync(join(fixtureFolder, 'pki', 'signing.cert')));
    assert.ok(issued.checkIssued(signer) && issued.verify(signer.publicKey), 'issued by the signing CA');
    const login = await client.request('POST', '/edge/client/v1/authenticate?method=cert', {
      body: '{}',
      contentType: 'application/json',
      cert: certPem,
      key: keyPem,
    });
    assert.equal(login.status, 200, login.text);
    assert.equal((login.json as { data: { identityId: string } }).data.identityId, secrets.ids['pending-ott']);
  });

  it('enrolls a pending updb JWT, whose signature still verifies against the server certificate', async () => {
    const jwt = secrets.pendingJwts['pending-updb'] ?? assert.fail('no pending JWT');
    const header = JSON.parse(Buffer.from(jwt.split('.')[0] ?? '', 'base64url').toString()) as { kid: string };
    assert.equal(header.kid, imported.app.deps.pki.serverCertFingerprint);
    await client.enrollUpdb(String(decodeJwt(jwt).jti), 'New-Password-1');
    await client.login('pending-updb', 'New-Password-1');
  });
});
