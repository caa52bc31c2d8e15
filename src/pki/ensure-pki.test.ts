import 'reflect-metadata';
import assert from 'node:assert/strict';
import { createHash, X509Certificate as NodeX509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import {
  BasicConstraintsExtension,
  KeyUsageFlags,
  KeyUsagesExtension,
  SubjectAlternativeNameExtension,
  X509Certificate,
} from '@peculiar/x509';
import { fixedClock } from '../lib/clock.js';
import { ensurePki, type Pki } from './ensure-pki.js';
import { splitPemCertificates } from './pem.js';
import { pkiFileNames } from './pki-files.js';

const day = 86_400_000;
let home = '';

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'ziti-pki-test-'));
});

afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

function readPkiFiles(): Record<string, Buffer> {
  return Object.fromEntries(Object.values(pkiFileNames).map((name) => [name, readFileSync(join(home, 'pki', name))]));
}

function altNames(certPem: string): string[] {
  const names = new X509Certificate(certPem).getExtension(SubjectAlternativeNameExtension)?.names.items ?? [];
  return names.map((name) => `${name.type}:${name.value}`);
}

function isIssuedBy(certPem: string, issuerPem: string): boolean {
  const cert = new NodeX509Certificate(certPem);
  const issuer = new NodeX509Certificate(issuerPem);
  return cert.checkIssued(issuer) && cert.verify(issuer.publicKey);
}

/** Makes one HTTPS request to a server using the PKI, trusting only the root CA, with hostname checks on. */
async function requestOverTls(pki: Pki, servername: string): Promise<string> {
  const server = https.createServer({ cert: pki.serverChainPem, key: pki.serverKeyPem }, (_request, response) =>
    response.end('hello'),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise<string>((resolve, reject) => {
      const request = https.get(
        { host: '127.0.0.1', port, ca: pki.rootCertPem, servername, rejectUnauthorized: true, agent: false },
        (response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => (body += chunk.toString()));
          response.on('end', () => resolve(body));
        },
      );
      request.on('error', reject);
    });
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

void describe('ensurePki on first start', () => {
  void it('creates every file, keys as 0600 PKCS#8 in a 0700 folder', async () => {
    await ensurePki({ home, advertisedHost: 'ctrl.example.com' });
    assert.equal(statSync(join(home, 'pki')).mode & 0o777, 0o700);
    for (const name of Object.values(pkiFileNames)) {
      const path = join(home, 'pki', name);
      if (name.endsWith('.key.pem')) {
        assert.equal(statSync(path).mode & 0o777, 0o600, name);
        assert.match(readFileSync(path, 'utf8'), /^-----BEGIN PRIVATE KEY-----\n/);
      } else {
        assert.match(readFileSync(path, 'utf8'), /^-----BEGIN CERTIFICATE-----\n/);
      }
    }
  });

  void it('returns the files’ contents, the chain, the bundle and the fingerprint', async () => {
    const pki = await ensurePki({ home, advertisedHost: 'ctrl.example.com' });
    const files = readPkiFiles();
    assert.equal(pki.rootCertPem, files[pkiFileNames.rootCert]!.toString());
    assert.equal(pki.signingCertPem, files[pkiFileNames.signingCert]!.toString());
    assert.equal(pki.serverCertPem, files[pkiFileNames.serverCert]!.toString());
    assert.equal(pki.serverKeyPem, files[pkiFileNames.serverKey]!.toString());
    assert.deepEqual(splitPemCertificates(pki.serverChainPem), [pki.serverCertPem, pki.signingCertPem]);
    assert.deepEqual(splitPemCertificates(pki.caBundlePem), [pki.rootCertPem, pki.signingCertPem]);
    const expected = createHash('sha1').update(new NodeX509Certificate(pki.serverCertPem).raw).digest('hex');
    assert.equal(pki.serverCertFingerprint, expected);
    assert.match(pki.serverCertFingerprint, /^[0-9a-f]{40}$/);
    assert.equal(pki.signingKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');
    assert.equal(pki.serverKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');
  });

  void it('chains server → signing CA → self-signed root', async () => {
    const pki = await ensurePki({ home, advertisedHost: 'ctrl.example.com' });
    assert.ok(isIssuedBy(pki.serverCertPem, pki.signingCertPem));
    assert.ok(isIssuedBy(pki.signingCertPem, pki.rootCertPem));
    assert.ok(isIssuedBy(pki.rootCertPem, pki.rootCertPem));
    assert.ok(!isIssuedBy(pki.serverCertPem, pki.rootCertPem));
  });

  void it('marks the CAs as CAs (signing CA with path length 0) and the server certificate for serverAuth', async () => {
    const pki = await ensurePki({ home, advertisedHost: 'ctrl.example.com' });
    const root = new X509Certificate(pki.rootCertPem);
    const signing = new X509Certificate(pki.signingCertPem);
    const server = new X509Certificate(pki.serverCertPem);
    const rootConstraints = root.getExtension(BasicConstraintsExtension);
    assert.ok(rootConstraints?.ca && rootConstraints.critical);
    const signingConstraints = signing.getExtension(BasicConstraintsExtension);
    assert.ok(signingConstraints?.ca && signingConstraints.critical);
    assert.equal(signingConstraints.pathLength, 0);
    for (const ca of [root, signing]) {
      assert.equal(ca.getExtension(KeyUsagesExtension)?.usages, KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign);
    }
    assert.equal(new NodeX509Certificate(pki.serverCertPem).ca, false);
    assert.ok(new NodeX509Certificate(pki.serverCertPem).keyUsage.includes('1.3.6.1.5.5.7.3.1'));
    assert.ok((server.getExtension(KeyUsagesExtension)?.usages ?? 0) & KeyUsageFlags.digitalSignature);
  });

  void it('gives CAs 10 years and the server certificate 1 year from the injected clock', async () => {
    const now = fixedClock('2030-06-01T00:00:00Z');
    const pki = await ensurePki({ home, advertisedHost: 'ctrl.example.com', now });
    const years = (pem: string): number =>
      (new X509Certificate(pem).notAfter.getTime() - now().getTime()) / (365 * day);
    assert.ok(Math.abs(years(pki.rootCertPem) - 10) < 0.01);
    assert.ok(Math.abs(years(pki.signingCertPem) - 10) < 0.01);
    assert.ok(Math.abs(years(pki.serverCertPem) - 1) < 0.01);
    assert.ok(new X509Certificate(pki.serverCertPem).notBefore <= now());
  });

  void it('uses distinct positive serial numbers of at least 64 bits', async () => {
    const pki = await ensurePki({ home, advertisedHost: 'ctrl.example.com' });
    const serials = [pki.rootCertPem, pki.signingCertPem, pki.serverCertPem].map(
      (pem) => new NodeX509Certificate(pem).serialNumber,
    );
    assert.equal(new Set(serials).size, 3);
    for (const serial of serials) {
      assert.ok(serial.length >= 16, serial);
      assert.ok(parseInt(serial.slice(0, 2), 16) < 0x80, `${serial} must be positive`);
      assert.ok(BigInt(`0x${serial}`) > 0n);
    }
  });

  void it('names a DNS advertised host and the loopback names in the SANs', async () => {
    const pki = await ensurePki({ home, advertisedHost: 'ctrl.example.com' });
    assert.deepEqual(altNames(pki.serverCertPem), ['dns:ctrl.example.com', 'dns:localhost', 'ip:127.0.0.1', 'ip:::1']);
  });

  void it('names an IP advertised host as an IP SAN', async () => {
    const pki = await ensurePki({ home, advertisedHost: '192.0.2.10' });
    assert.deepEqual(altNames(pki.serverCertPem), ['ip:192.0.2.10', 'dns:localhost', 'ip:127.0.0.1', 'ip:::1']);
    const server = new NodeX509Certificate(pki.serverCertPem);
    assert.equal(server.checkIP('192.0.2.10'), '192.0.2.10');
    assert.equal(server.checkHost('192.0.2.10'), undefined);
  });

  void it('names an IPv6 advertised host as an IP SAN', async () => {
    const pki = await ensurePki({ home, advertisedHost: '2001:db8::10' });
    assert.deepEqual(altNames(pki.serverCertPem)[0], 'ip:2001:db8::10');
  });

  void it('serves TLS that verifies against the root with hostname checks', async () => {
    const pki = await ensurePki({ home, advertisedHost: 'ctrl.example.com' });
    assert.equal(await requestOverTls(pki, 'localhost'), 'hello');
    assert.equal(await requestOverTls(pki, 'ctrl.example.com'), 'hello');
    await assert.rejects(requestOverTls(pki, 'other.example.com'), /altnames|Hostname/i);
  });

  void it('rejects an empty advertised host', async () => {
    await assert.rejects(ensurePki({ home, advertisedHost: '' }), /advertisedHost/);
  });
});

void describe('ensurePki on later starts', () => {
  void it('reuses every file byte for byte when nothing changed', async () => {
    const first = await ensurePki({ home, advertisedHost: 'ctrl.example.com' });
    const before = readPkiFiles();
    const second = await ensurePki({ home, advertisedHost: 'ctrl.example.com' });
    assert.deepEqual(readPkiFiles(), before);
    assert.equal(second.serverCertFingerprint, first.serverCertFingerprint);
    assert.equal(second.caBundlePem, first.caBundlePem);
    assert.ok(second.signingKey.equals(first.signingKey));
  });

  void it('issues a new server certificate from the same signing CA when the host changes', async () => {
    const first = await ensurePki({ home, advertisedHost: 'old.example.com' });
    const before = readPkiFiles();
    const second = await ensurePki({ home, advertisedHost: 'new.example.com' });
    const after = readPkiFiles();
    for (const name of [
      pkiFileNames.rootCert,
      pkiFileNames.rootKey,
      pkiFileNames.signingCert,
      pkiFileNames.signingKey,
    ]) {
      assert.deepEqual(after[name], before[name], name);
    }
    assert.notDeepEqual(after[pkiFileNames.serverCert], before[pkiFileNames.serverCert]);
    assert.notEqual(second.serverCertFingerprint, first.serverCertFingerprint);
    assert.ok(isIssuedBy(second.serverCertPem, first.signingCertPem));
    assert.deepEqual(altNames(second.serverCertPem)[0], 'dns:new.example.com');
    assert.ok(!altNames(second.serverCertPem).includes('dns:old.example.com'));
    // The key stays, so enrollment JWTs signed before the change still verify against the served certificate.
    assert.deepEqual(after[pkiFileNames.serverKey], before[pkiFileNames.serverKey]);
  });

  void it('keeps the server certificate when the host is one of its loopback names', async () => {
    await ensurePki({ home, advertisedHost: 'ctrl.example.com' });
    const before = readPkiFiles();
    await ensurePki({ home, advertisedHost: '127.0.0.1' });
    assert.deepEqual(readPkiFiles(), before);
  });

  void it('keeps the server certificate with more than 30 days left', async () => {
    const now = fixedClock('2030-01-01T00:00:00Z');
    await ensurePki({ home, advertisedHost: 'ctrl.example.com', now });
    const before = readPkiFiles();
    now.advance(330 * day);
    await ensurePki({ home, advertisedHost: 'ctrl.example.com', now });
    assert.deepEqual(readPkiFiles(), before);
  });

  void it('reissues the server certificate within 30 days of expiry, and after it', async () => {
    const now = fixedClock('2030-01-01T00:00:00Z');
    const first = await ensurePki({ home, advertisedHost: 'ctrl.example.com', now });
    now.advance(340 * day);
    const renewed = await ensurePki({ home, advertisedHost: 'ctrl.example.com', now });
    assert.notEqual(renewed.serverCertFingerprint, first.serverCertFingerprint);
    assert.ok(isIssuedBy(renewed.serverCertPem, first.signingCertPem));
    assert.ok(new X509Certificate(renewed.serverCertPem).notAfter.getTime() > now().getTime() + 360 * day);
    assert.equal(renewed.caBundlePem, first.caBundlePem);
    now.advance(400 * day);
    const afterExpiry = await ensurePki({ home, advertisedHost: 'ctrl.example.com', now });
    assert.notEqual(afterExpiry.serverCertFingerprint, renewed.serverCertFingerprint);
  });

  void it('reissues a server certificate that another CA issued', async () => {
    const otherHome = mkdtempSync(join(tmpdir(), 'ziti-pki-test-'));
    try {
      const other = await ensurePki({ home: otherHome, advertisedHost: 'ctrl.example.com' });
      const pki = await ensurePki({ home, advertisedHost: 'ctrl.example.com' });
      writeFileSync(join(home, 'pki', pkiFileNames.serverCert), other.serverCertPem);
      const again = await ensurePki({ home, advertisedHost: 'ctrl.example.com' });
      assert.ok(isIssuedBy(again.serverCertPem, pki.signingCertPem));
    } finally {
      rmSync(otherHome, { recursive: true, force: true });
    }
  });

  void it('refuses to replace CAs when some of their files are missing', async () => {
    await ensurePki({ home, advertisedHost: 'ctrl.example.com' });
    rmSync(join(home, 'pki', pkiFileNames.rootKey));
    await assert.rejects(ensurePki({ home, advertisedHost: 'ctrl.example.com' }), /incomplete controller PKI/);
  });

  void it('refuses a CA key that does not match its certificate', async () => {
    await ensurePki({ home, advertisedHost: 'ctrl.example.com' });
    const serverKey = readFileSync(join(home, 'pki', pkiFileNames.serverKey));
    writeFileSync(join(home, 'pki', pkiFileNames.signingKey), serverKey);
    await assert.rejects(ensurePki({ home, advertisedHost: 'ctrl.example.com' }), /edge signing CA key does not match/);
  });
});
