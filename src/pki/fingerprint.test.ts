import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { describe, it } from 'node:test';
import { certificateFingerprint } from './fingerprint.js';
import { issueCertificate } from './issue-certificate.js';

async function createCertificatePem(): Promise<string> {
  const key = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
  const now = Date.now();
  return issueCertificate({
    subject: 'CN=fingerprint test',
    subjectKey: key,
    issuerKey: key,
    notBefore: new Date(now),
    notAfter: new Date(now + 86_400_000),
    extensions: [],
  });
}

void describe('certificateFingerprint', () => {
  void it('is the lowercase hex SHA-1 of the DER, without separators', async () => {
    const pem = await createCertificatePem();
    const expected = createHash('sha1').update(new X509Certificate(pem).raw).digest('hex');
    assert.match(certificateFingerprint(pem), /^[0-9a-f]{40}$/);
    assert.equal(certificateFingerprint(pem), expected);
  });

  void it('gives the same value for PEM and DER input', async () => {
    const pem = await createCertificatePem();
    assert.equal(certificateFingerprint(new X509Certificate(pem).raw), certificateFingerprint(pem));
  });

  void it('differs between certificates', async () => {
    assert.notEqual(
      certificateFingerprint(await createCertificatePem()),
      certificateFingerprint(await createCertificatePem()),
    );
  });
});
