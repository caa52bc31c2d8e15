// Authenticator rules: one per method per identity, passwords hashed on every set, certificates fingerprinted.
import { X509Certificate } from 'node:crypto';
import { ApiError } from '../../errors/api-error.js';
import type { EntityChange, EntityRules, EntityValues } from '../../crud/entity-rules.js';
import type { Db } from '../../store/store.js';
import { hashPassword } from '../../auth/password.js';
import { identityRefs } from '../../auth/identity-links.js';
import { certificateFingerprint } from '../../pki/fingerprint.js';
import { splitPemCertificates } from '../../pki/pem.js';

const METHODS = ['updb', 'cert'];

async function requireIdentity(tx: Db, id: unknown): Promise<void> {
  const found = await tx.selectFrom('identities').select('id').where('id', '=', String(id)).executeTakeFirst();
  if (!found) throw ApiError.invalidField('identityId', 'no identity found with the given id', id);
}

async function requireFreeMethod(tx: Db, identityId: string, method: string): Promise<void> {
  const taken = await tx.selectFrom('authenticators').select('id').where('identity_id', '=', identityId).where('method', '=', method).executeTakeFirst();
  if (taken) throw new ApiError('MAX_AUTHENTICATOR_METHODS_REACHED');
}

/** The API's password schema (5–100) applies to every password we store, create bodies included. */
function checkPassword(password: unknown): string {
  if (typeof password !== 'string' || password.length < 5 || password.length > 100) {
    throw ApiError.invalidField('password', 'password must be 5 to 100 characters', password === undefined ? undefined : '******');
  }
  return password;
}

/** Exactly one certificate, issued by our signing CA (third-party CAs come with the CA issue, #6). */
function certificateFrom(pem: unknown, signingCertPem: string): string {
  const blocks = typeof pem === 'string' ? splitPemCertificates(pem) : [];
  if (blocks.length !== 1) throw new ApiError('COULD_NOT_PARSE_PEM_BLOCK');
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(blocks[0]!);
  } catch {
    throw new ApiError('COULD_NOT_PARSE_PEM_BLOCK');
  }
  const signer = new X509Certificate(signingCertPem);
  if (!certificate.checkIssued(signer) || !certificate.verify(signer.publicKey)) throw new ApiError('CERTIFICATE_FAILED_VALIDATION');
  return certificateFingerprint(blocks[0]!);
}

async function applySecrets(change: EntityChange, signingCertPem: string): Promise<void> {
  const after = change.after!;
  const body = change.body ?? {};
  if (after.method === 'updb') {
    if (body.certPem !== undefined && body.certPem !== null) throw new ApiError('INVALID_AUTHENTICATOR_PROPERTIES');
    if (change.op === 'create' || (body.password !== undefined && body.password !== null)) {
      if (!after.username) throw ApiError.invalidField('username', 'username is required', after.username);
      const { hash, salt } = await hashPassword(checkPassword(body.password));
      after.passwordHash = hash;
      after.passwordSalt = salt;
    }
    return;
  }
  if ((body.username ?? null) !== null || (body.password ?? null) !== null) throw new ApiError('INVALID_AUTHENTICATOR_PROPERTIES');
  if (change.op === 'create' || change.changed.has('certPem')) after.fingerprint = certificateFrom(after.certPem, signingCertPem);
}

export const authenticatorRules: EntityRules = {
  async validate({ tx, deps }, change) {
    const after = change.after!;
    if (change.op === 'create') {
      if (!METHODS.includes(after.method as string)) throw ApiError.invalidField('method', 'method must be updb or cert', after.method);
      await requireIdentity(tx, after.identityId);
      await requireFreeMethod(tx, after.identityId as string, after.method as string);
    }
    if (change.op !== 'create' && after.method === 'cert' && (change.changed.has('username') || (change.body?.password ?? null) !== null)) {
      throw new ApiError('CAN_NOT_UPDATE_AUTHENTICATOR');
    }
    await applySecrets(change, deps.pki.signingCertPem);
  },

  async extend({ db }, entities) {
    const refFor = await identityRefs(db, entities.map((e) => e.identityId as string));
    return entities.map((entity: EntityValues) => ({
      identity: refFor(entity.identityId as string),
      ...(entity.method === 'updb' ? { certPem: undefined, fingerprint: undefined } : { username: undefined }),
    }));
  },
};
