// Key generation and PEM export, and the bridge from node:crypto KeyObjects to the WebCrypto keys @peculiar/x509 uses.
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  webcrypto,
  X509Certificate,
  type KeyObject,
} from 'node:crypto';

/** A private key ready for @peculiar/x509, with the signature algorithm Go would pick for it. */
export interface WebSigningKey {
  cryptoKey: webcrypto.CryptoKey;
  algorithm: webcrypto.EcdsaParams | webcrypto.RsaHashedImportParams;
}

const ecCurves: Record<string, { namedCurve: string; hash: string }> = {
  prime256v1: { namedCurve: 'P-256', hash: 'SHA-256' },
  secp384r1: { namedCurve: 'P-384', hash: 'SHA-384' },
  secp521r1: { namedCurve: 'P-521', hash: 'SHA-512' },
};

/** A fresh EC P-256 private key (the controller's own CAs and server certificate use P-256, hence ES256 JWTs). */
export function generateEcPrivateKey(): KeyObject {
  return generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
}

/** PKCS#8 PEM of a private key. */
export function exportPrivateKeyPem(key: KeyObject): string {
  return key.export({ type: 'pkcs8', format: 'pem' }).toString();
}

/** Parses a private key PEM (PKCS#8, SEC1 or PKCS#1). */
export function importPrivateKeyPem(pem: string): KeyObject {
  return createPrivateKey(pem);
}

/** DER SubjectPublicKeyInfo of a key's public half (accepts a private or public key). */
export function exportPublicKeyDer(key: KeyObject): Buffer {
  return (key.type === 'private' ? createPublicKey(key) : key).export({ type: 'spki', format: 'der' });
}

/** Whether `key` (private or public) is the key certified by `certPem`. */
export function isKeyForCertificate(key: KeyObject, certPem: string): boolean {
  return exportPublicKeyDer(key).equals(exportPublicKeyDer(new X509Certificate(certPem).publicKey));
}

/**
 * Imports a private KeyObject into WebCrypto for signing. Algorithms follow Go's defaults for a CA key, as the
 * certificates ziti issues do: ECDSA P-256/384/521 with SHA-256/384/512, RSA with PKCS#1 v1.5 and SHA-256.
 */
export async function toWebSigningKey(key: KeyObject): Promise<WebSigningKey> {
  const pkcs8 = key.export({ type: 'pkcs8', format: 'der' });
  if (key.asymmetricKeyType === 'ec') {
    const curve = ecCurves[key.asymmetricKeyDetails?.namedCurve ?? ''];
    if (!curve) throw new Error(`unsupported EC curve ${key.asymmetricKeyDetails?.namedCurve ?? '(none)'}`);
    const cryptoKey = await webcrypto.subtle.importKey(
      'pkcs8',
      pkcs8,
      { name: 'ECDSA', namedCurve: curve.namedCurve },
      false,
      ['sign'],
    );
    return { cryptoKey, algorithm: { name: 'ECDSA', hash: curve.hash } };
  }
  if (key.asymmetricKeyType === 'rsa') {
    const algorithm = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
    return { cryptoKey: await webcrypto.subtle.importKey('pkcs8', pkcs8, algorithm, false, ['sign']), algorithm };
  }
  throw new Error(`unsupported key type ${key.asymmetricKeyType ?? '(none)'}`);
}
