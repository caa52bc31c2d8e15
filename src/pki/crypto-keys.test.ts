import assert from 'node:assert/strict';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  exportPrivateKeyPem,
  generateEcPrivateKey,
  importPrivateKeyPem,
  isKeyForCertificate,
  toWebSigningKey,
} from './crypto-keys.js';
import { issueCertificate } from './issue-certificate.js';

void describe('crypto keys', () => {
  void it('generates P-256 keys that round-trip through PKCS#8 PEM', () => {
    const key = generateEcPrivateKey();
    const pem = exportPrivateKeyPem(key);
    assert.match(pem, /^-----BEGIN PRIVATE KEY-----\n/);
    assert.equal(key.asymmetricKeyDetails?.namedCurve, 'prime256v1');
    assert.ok(importPrivateKeyPem(pem).equals(key));
  });

  void it('tells whether a private or public key belongs to a certificate', async () => {
    const key = generateEcPrivateKey();
    const now = Date.now();
    const certPem = await issueCertificate({
      subject: 'CN=k',
      subjectKey: key,
      issuerKey: key,
      notBefore: new Date(now),
      notAfter: new Date(now + 60_000),
      extensions: [],
    });
    assert.ok(isKeyForCertificate(key, certPem));
    assert.ok(isKeyForCertificate(createPublicKey(key), certPem));
    assert.ok(!isKeyForCertificate(generateEcPrivateKey(), certPem));
  });

  void it('maps keys to the signature algorithms Go uses and refuses other key types', async () => {
    assert.deepEqual((await toWebSigningKey(generateEcPrivateKey())).algorithm, { name: 'ECDSA', hash: 'SHA-256' });
    const p521 = generateKeyPairSync('ec', { namedCurve: 'secp521r1' }).privateKey;
    assert.deepEqual((await toWebSigningKey(p521)).algorithm, { name: 'ECDSA', hash: 'SHA-512' });
    await assert.rejects(toWebSigningKey(generateKeyPairSync('ed25519').privateKey), /unsupported key type ed25519/);
    await assert.rejects(
      toWebSigningKey(generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).privateKey),
      /unsupported EC curve/,
    );
  });
});
