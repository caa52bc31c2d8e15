import 'reflect-metadata';
import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { SubjectAlternativeNameExtension, X509CertificateGenerator } from '@peculiar/x509';
import type { ApiError } from '../errors/api-error.js';
import { externalIdOf, normaliseExternalIdClaim, type ExternalIdClaim } from './external-id-claim.js';

const claim = (overrides: Partial<ExternalIdClaim>): ExternalIdClaim => ({
  location: 'COMMON_NAME',
  matcher: 'ALL',
  matcherCriteria: '',
  parser: 'NONE',
  parserCriteria: '',
  index: 0,
  ...overrides,
});

void describe('externalIdOf', () => {
  let pem = '';
  before(async () => {
    const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
    const keys = await webcrypto.subtle.generateKey(algorithm, false, ['sign', 'verify']);
    const certificate = await X509CertificateGenerator.createSelfSigned({
      name: 'CN=team-a:device-9',
      keys,
      signingAlgorithm: algorithm,
      extensions: [
        new SubjectAlternativeNameExtension([
          { type: 'url', value: 'https://example.com/x' },
          { type: 'url', value: 'spiffe://trust.example/ns/prod/sa/web' },
          { type: 'email', value: 'device-9@devices.example.com' },
        ]),
      ],
    });
    pem = certificate.toString('pem');
  });

  void it('reads the common name, split and indexed', () => {
    assert.equal(externalIdOf(pem, claim({})), 'team-a:device-9');
    assert.equal(externalIdOf(pem, claim({ parser: 'SPLIT', parserCriteria: ':', index: 1 })), 'device-9');
    assert.equal(externalIdOf(pem, claim({ parser: 'SPLIT', parserCriteria: ':', index: 2 })), undefined);
  });

  void it('keeps URIs by scheme, and strips a matched prefix or suffix', () => {
    assert.equal(
      externalIdOf(pem, claim({ location: 'SAN_URI', matcher: 'SCHEME', matcherCriteria: 'spiffe' })),
      'spiffe://trust.example/ns/prod/sa/web',
    );
    assert.equal(
      externalIdOf(pem, claim({ location: 'SAN_URI', matcher: 'PREFIX', matcherCriteria: 'spiffe://trust.example/' })),
      'ns/prod/sa/web',
    );
    assert.equal(externalIdOf(pem, claim({ location: 'SAN_URI', index: 1 })), 'spiffe://trust.example/ns/prod/sa/web');
    assert.equal(
      externalIdOf(pem, claim({ location: 'SAN_EMAIL', matcher: 'SUFFIX', matcherCriteria: '@devices.example.com' })),
      'device-9',
    );
    assert.equal(
      externalIdOf(pem, claim({ location: 'SAN_EMAIL', matcher: 'PREFIX', matcherCriteria: 'nobody' })),
      undefined,
    );
  });
});

void describe('normaliseExternalIdClaim', () => {
  void it('fills absent criteria as upstream stores them and refuses SCHEME outside SAN_URI', () => {
    assert.equal(normaliseExternalIdClaim(null), null);
    assert.deepEqual(
      normaliseExternalIdClaim({
        location: 'SAN_URI',
        matcher: 'ALL',
        parser: 'NONE',
        matcherCriteria: null,
        index: null,
      }),
      claim({ location: 'SAN_URI' }),
    );
    const field = (raw: unknown) => {
      try {
        normaliseExternalIdClaim(raw);
        return undefined;
      } catch (error) {
        return [(error as ApiError).code, ((error as ApiError).cause as { field: string }).field];
      }
    };
    assert.deepEqual(field({ location: 'COMMON_NAME', matcher: 'SCHEME', parser: 'NONE' }), [
      'COULD_NOT_VALIDATE',
      'externalIdClaim.matcher',
    ]);
    assert.deepEqual(field({ matcher: 'ALL', parser: 'NONE' }), ['COULD_NOT_VALIDATE', 'externalIdClaim.location']);
  });
});
