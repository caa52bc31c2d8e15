import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { derToPem, pemToDer, splitPemCertificates, wrapBase64 } from './pem.js';

const fakeDer = Buffer.from(Array.from({ length: 100 }, (_, index) => index));
const otherDer = Buffer.from('another certificate body');

void describe('splitPemCertificates', () => {
  void it('returns each certificate block in order and skips other block types', () => {
    const bundle = `junk\n${derToPem(fakeDer, 'CERTIFICATE')}${derToPem(otherDer, 'PRIVATE KEY')}\n${derToPem(otherDer, 'CERTIFICATE')}`;
    assert.deepEqual(splitPemCertificates(bundle), [
      derToPem(fakeDer, 'CERTIFICATE'),
      derToPem(otherDer, 'CERTIFICATE'),
    ]);
  });

  void it('normalises CRLF line endings and returns nothing for text without certificates', () => {
    const crlf = derToPem(fakeDer, 'CERTIFICATE').replace(/\n/g, '\r\n');
    assert.deepEqual(splitPemCertificates(crlf), [derToPem(fakeDer, 'CERTIFICATE')]);
    assert.deepEqual(splitPemCertificates('no pem here'), []);
  });
});

void describe('pemToDer and derToPem', () => {
  void it('round-trips bytes through 64-character lines ending with a newline', () => {
    const pem = derToPem(fakeDer, 'CERTIFICATE');
    assert.ok(pem.endsWith('-----END CERTIFICATE-----\n'));
    assert.ok(pem.split('\n').every((line) => line.length <= 64));
    assert.deepEqual(pemToDer(pem), fakeDer);
  });

  void it('rejects text without a PEM block', () => {
    assert.throws(() => pemToDer('hello'), /no PEM block/);
  });
});

void describe('wrapBase64', () => {
  void it('ends every line, including the last, with a newline', () => {
    assert.equal(wrapBase64('a'.repeat(130)), `${'a'.repeat(64)}\n${'a'.repeat(64)}\naa\n`);
    assert.equal(wrapBase64('a'.repeat(64)), `${'a'.repeat(64)}\n`);
  });
});
