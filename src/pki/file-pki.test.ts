import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadFilePki, PkiFileError, type PkiFiles } from './file-pki.js';
import { splitPemCertificates } from './pem.js';

// The PKI a real upstream v1.1.8 controller ran on (ziti pki: root CA → intermediate = signing CA → server).
const folder = new URL('../../test/migrate/fixtures/v1.1.8/pki/', import.meta.url).pathname;
const files: PkiFiles = {
  serverCert: join(folder, 'server.chain.pem'),
  serverKey: join(folder, 'server.key'),
  ca: join(folder, 'ca.pem'),
  signingCert: join(folder, 'signing.cert'),
  signingKey: join(folder, 'signing.key'),
};
const subjects = (bundle: string) =>
  splitPemCertificates(bundle).map((pem) => /CN=([^\n,]+)/.exec(new X509Certificate(pem).subject)?.[1]);

describe('loadFilePki', () => {
  it("takes upstream's files: server chain, CA bundle of root and signing CA, signing key", () => {
    const pki = loadFilePki(files);
    assert.deepEqual(subjects(pki.serverChainPem), ['server', 'intermediate-ca', 'root-ca']);
    assert.deepEqual(subjects(pki.caBundlePem), ['root-ca', 'intermediate-ca']);
    assert.deepEqual(subjects(pki.signingCertPem), ['intermediate-ca']);
    assert.deepEqual(subjects(pki.rootCertPem), ['root-ca']);
    assert.equal(pki.signingKey.asymmetricKeyType, 'ec');
  });

  it('completes a server chain given as the leaf alone', () => {
    const leaf = splitPemCertificates(readFileSync(files.serverCert, 'utf8'))[0] ?? '';
    const pki = loadFilePki({ ...files, serverCert: `pem:${leaf}` });
    assert.deepEqual(subjects(pki.serverChainPem), ['server', 'intermediate-ca']);
  });

  it('refuses a key that is not the certificate’s, naming the part', () => {
    assert.throws(() => loadFilePki({ ...files, signingKey: files.serverKey }), /signing key .* does not match/);
  });

  it('refuses a missing file, naming it', () => {
    assert.throws(() => loadFilePki({ ...files, ca: join(folder, 'absent.pem') }), PkiFileError);
    assert.throws(() => loadFilePki({ ...files, ca: join(folder, 'absent.pem') }), /CA bundle .*absent\.pem/);
  });

  it('refuses a signing certificate that is no CA', () => {
    assert.throws(
      () => loadFilePki({ ...files, signingCert: join(folder, 'client.cert'), signingKey: files.serverKey }),
      /not a CA/,
    );
  });
});
