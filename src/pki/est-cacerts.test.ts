import 'reflect-metadata';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { X509Certificates } from '@peculiar/x509';
import { formatEstCaCerts } from './est-cacerts.js';
import { certificateFingerprint } from './fingerprint.js';
import { issueCertificate } from './issue-certificate.js';

function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function parseBody(body: string): X509Certificates {
  return new X509Certificates(Buffer.from(body.replace(/\n/g, ''), 'base64'));
}

void describe('formatEstCaCerts', () => {
  const certPems: string[] = [];

  before(async () => {
    const now = new Date();
    const notAfter = new Date(now.getTime() + 86_400_000);
    const rootKey = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
    const root = await issueCertificate({
      subject: 'CN=est root',
      subjectKey: rootKey,
      issuerKey: rootKey,
      notBefore: now,
      notAfter,
      extensions: [],
      hasSubjectKeyId: true,
    });
    const signingKey = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
    const signing = await issueCertificate({
      subject: 'CN=est signing',
      subjectKey: signingKey,
      issuerCertPem: root,
      issuerKey: rootKey,
      notBefore: now,
      notAfter,
      extensions: [],
    });
    certPems.push(root, signing);
  });

  void it('writes base64 in lines of at most 64 characters and ends with a newline', () => {
    const body = formatEstCaCerts(certPems);
    assert.ok(body.endsWith('\n'));
    const lines = body.slice(0, -1).split('\n');
    assert.ok(lines.length > 1);
    for (const line of lines) {
      assert.match(line, /^[A-Za-z0-9+/=]{1,64}$/);
    }
    assert.ok(lines.slice(0, -1).every((line) => line.length === 64));
  });

  void it('parses back into the same certificates, in order', () => {
    const parsed = parseBody(formatEstCaCerts(certPems));
    assert.deepEqual(
      [...parsed].map((cert) => certificateFingerprint(new Uint8Array(cert.rawData))),
      certPems.map((pem) => certificateFingerprint(pem)),
    );
  });

  void it('is a degenerate SignedData: no digest algorithms, data content type without content, no signers', () => {
    const der = Buffer.from(formatEstCaCerts(certPems).replace(/\n/g, ''), 'base64');
    const hex = der.toString('hex');
    // version 1, empty digestAlgorithms SET, encapContentInfo { id-data } with no eContent, then [0] certificates.
    assert.match(hex, /^3082....06092a864886f70d010702a082....3082....0201013100300b06092a864886f70d010701a082/);
    assert.ok(hex.endsWith('3100'), 'empty signerInfos SET at the end');
  });

  void it('encodes long bundles with multi-byte lengths', () => {
    const many = Array.from({ length: 150 }, () => certPems[0]!);
    assert.equal(parseBody(formatEstCaCerts(many)).length, 150);
  });

  void it('encodes an empty bundle', () => {
    assert.equal(parseBody(formatEstCaCerts([])).length, 0);
  });

  void it('is accepted by openssl pkcs7', { skip: !hasOpenssl() && 'openssl not installed' }, () => {
    const der = Buffer.from(formatEstCaCerts(certPems).replace(/\n/g, ''), 'base64');
    const printed = execFileSync('openssl', ['pkcs7', '-inform', 'DER', '-print_certs', '-noout'], {
      input: der,
    }).toString();
    assert.match(printed, /subject=CN ?= ?est root/);
    assert.match(printed, /subject=CN ?= ?est signing/);
  });
});
