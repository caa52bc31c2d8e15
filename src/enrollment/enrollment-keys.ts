// `/enroll/jwks` and `/enroll/challenge`: the key that signs enrollment JWTs, and proof that the controller holds it.
import { createPublicKey, sign } from 'node:crypto';
import { exportJWK } from 'jose';
import { ApiError } from '../errors/api-error.js';
import type { OperationHandler } from '../http/operation.js';
import type { Pki } from '../pki/ensure-pki.js';
import { jwtAlgorithm } from './enrollment-jwt.js';

/** The digest each JWS algorithm signs with (RFC 7518 §3.1). */
const digestOf: Readonly<Record<string, string>> = {
  RS256: 'sha256',
  ES256: 'sha256',
  ES384: 'sha384',
  ES512: 'sha512',
};

/**
 * Upstream v1.1.8 declares this and the challenge but answers 501 (quirk Q16); both follow the contract here, as an
 * extension. The contract's `jwks` is the bare key set, no envelope: what JWKS consumers (jose, Go's keyfunc) read.
 */
export const getEnrollmentJwks: OperationHandler = {
  access: 'public',
  async handle({ deps }) {
    const { pki } = deps;
    const jwk = await exportJWK(createPublicKey(pki.serverKey));
    return {
      status: 200,
      json: { keys: [{ ...jwk, kid: pki.serverCertFingerprint, alg: jwtAlgorithm(pki), use: 'sig' }] },
    };
  },
};

/** A JWS-style signature: EC as raw r‖s (RFC 7518 §3.4), RSA as PKCS#1 v1.5, base64url without padding. */
function signNonce(pki: Pki, nonce: string): { algorithm: string; signature: string } {
  const algorithm = jwtAlgorithm(pki);
  const signature = sign(digestOf[algorithm] ?? 'sha256', Buffer.from(nonce, 'utf8'), {
    key: pki.serverKey,
    dsaEncoding: 'ieee-p1363',
  });
  return { algorithm, signature: signature.toString('base64url') };
}

/**
 * The client names a key from the JWKS and sends a fresh UUID; the signature over the nonce's UTF-8 bytes proves
 * the controller holds that key, and `caPool` is the trust bundle to use once it believes it. The contract
 * validates the body (both fields required, nonce a UUID) before this runs.
 */
export const enrollmentChallenge: OperationHandler<'enrollmentChallenge', 'client'> = {
  access: 'public',
  handle({ deps, body }) {
    const { keyId, nonce } = body;
    const { pki } = deps;
    if (keyId !== pki.serverCertFingerprint)
      return Promise.reject(ApiError.invalidField('keyId', 'no enrollment signing key with the given id', keyId));
    const { algorithm, signature } = signNonce(pki, nonce);
    return Promise.resolve({
      status: 200,
      json: { algorithm, caPool: pki.caBundlePem, kid: pki.serverCertFingerprint, signature },
    });
  },
};
