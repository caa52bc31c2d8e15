// Enrollment JWTs (docs/reference/pki-enrollment-auth.md §2.1): signed with the key of the TLS server certificate the
// controller presents, so SDKs can check the token against the certificate they see at `iss` before trusting anything
// else.
import { SignJWT } from 'jose';
import type { Pki } from '../pki/ensure-pki.js';
import type { Settings } from '../settings/settings.schema.js';

export type EnrollmentMethod = 'ott' | 'ottca' | 'updb' | 'erott' | 'trott';

export function issuerUrl(settings: Pick<Settings, 'advertisedHost' | 'advertisedPort'>): string {
  const host = settings.advertisedHost.includes(':') ? `[${settings.advertisedHost}]` : settings.advertisedHost;
  return `https://${host}:${settings.advertisedPort}`;
}

/** ES256 for the controller's P-256 server key (the SDKs accept RS256, ES256, ES384 and ES512). */
export function jwtAlgorithm(pki: Pki): string {
  const curve = pki.serverKey.asymmetricKeyDetails?.namedCurve;
  if (pki.serverKey.asymmetricKeyType === 'rsa') return 'RS256';
  return curve === 'secp384r1' ? 'ES384' : curve === 'secp521r1' ? 'ES512' : 'ES256';
}

export interface EnrollmentClaims {
  subject: string;
  token: string;
  method: EnrollmentMethod;
  expiresAt: Date;
}

/** Claims in upstream's order: iss, sub, aud, exp, jti, em, ctrls (golang-jwt v5 output). */
export async function signEnrollmentJwt(pki: Pki, settings: Settings, claims: EnrollmentClaims): Promise<string> {
  const payload = {
    iss: issuerUrl(settings),
    sub: claims.subject,
    aud: [''],
    exp: Math.floor(claims.expiresAt.getTime() / 1000),
    jti: claims.token,
    em: claims.method,
    // A stand-alone controller has no HA peers.
    ctrls: null,
  };
  return new SignJWT(payload)
    .setProtectedHeader({ alg: jwtAlgorithm(pki), kid: pki.serverCertFingerprint, typ: 'JWT' })
    .sign(pki.serverKey);
}
