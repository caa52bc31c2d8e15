import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { webcrypto } from 'node:crypto';
import { Pkcs10CertificateRequestGenerator } from '@peculiar/x509';
import { goSubject } from './sign-csr.js';

const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };

void describe('goSubject', () => {
  const subjectOf = async (name: string) => {
    const keys = await webcrypto.subtle.generateKey(algorithm, false, ['sign', 'verify']);
    return goSubject(await Pkcs10CertificateRequestGenerator.create({ name, keys, signingAlgorithm: algorithm }));
  };

  void it('orders the CSR subject as Go’s pkix.Name writes it, one RDN per field', async () => {
    // The C SDK's CSR subject, given common name first.
    assert.deepEqual(await subjectOf('CN=device-1, OU=ADV-DEV, O=NetFoundry, L=Charlotte, ST=NC, C=US'), [
      { C: ['US'] },
      { ST: ['NC'] },
      { L: ['Charlotte'] },
      { O: ['NetFoundry'] },
      { OU: ['ADV-DEV'] },
      { CN: ['device-1'] },
    ]);
    assert.deepEqual(await subjectOf('O=First, CN=one, O=Second'), [{ O: ['First', 'Second'] }, { CN: ['one'] }]);
  });

  void it('keeps the last common name and drops fields pkix.Name does not know', async () => {
    assert.deepEqual(await subjectOf('CN=first, E=someone@example.com, DC=example, CN=last'), [{ CN: ['last'] }]);
    assert.deepEqual(await subjectOf('E=someone@example.com'), [{ CN: ['unnamed'] }]);
  });
});
