import 'reflect-metadata';
import assert from 'node:assert/strict';
import { generateKeyPairSync, X509Certificate as NodeX509Certificate } from 'node:crypto';
import { describe, it } from 'node:test';
import { AuthorityKeyIdentifierExtension, SubjectKeyIdentifierExtension, X509Certificate } from '@peculiar/x509';
import { issueCertificate, randomSerialNumber } from './issue-certificate.js';

const day = 86_400_000;

void describe('randomSerialNumber', () => {
  void it('is 16 bytes, positive, with a non-zero top byte, and random', () => {
    const serials = Array.from({ length: 200 }, () => randomSerialNumber());
    for (const serial of serials) {
      assert.match(serial, /^[4-7][0-9a-f]{31}$/);
    }
    assert.equal(new Set(serials).size, serials.length);
  });
});

void describe('issueCertificate', () => {
  void it('signs with each supported key type and links key identifiers to the issuer', async () => {
    const now = new Date();
    const notAfter = new Date(now.getTime() + day);
    for (const issuerKey of [
      generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).privateKey,
      generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey,
    ]) {
      const caPem = await issueCertificate({
        subject: 'CN=ca',
        subjectKey: issuerKey,
        issuerKey,
        notBefore: now,
        notAfter,
        extensions: [],
        hasSubjectKeyId: true,
      });
      const leafKey = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
      const leafPem = await issueCertificate({
        subject: 'CN=leaf',
        subjectKey: leafKey,
        issuerCertPem: caPem,
        issuerKey,
        notBefore: now,
        notAfter,
        extensions: [],
      });
      const ca = new NodeX509Certificate(caPem);
      const leaf = new NodeX509Certificate(leafPem);
      assert.ok(leaf.checkIssued(ca) && leaf.verify(ca.publicKey));
      assert.equal(leaf.serialNumber.length, 32);
      const caSki = new X509Certificate(caPem).getExtension(SubjectKeyIdentifierExtension)?.keyId;
      assert.ok(caSki);
      assert.equal(new X509Certificate(leafPem).getExtension(AuthorityKeyIdentifierExtension)?.keyId, caSki);
      assert.equal(new X509Certificate(leafPem).getExtension(SubjectKeyIdentifierExtension), null);
      assert.equal(new X509Certificate(caPem).getExtension(AuthorityKeyIdentifierExtension), null);
    }
  });
});
