// Authenticator rules: one per method per identity, passwords checked against the identity's auth policy and hashed
// on every set, certificates checked for trust. Every write goes through them, enrollments' included; an enrollment
// that verified a certificate itself passes `verifiedByCaId` (the CA's id, null for the controller's own) as an
// extra value on create, which no request body can set.
import { X509Certificate } from 'node:crypto';
import { ApiError } from '../../errors/api-error.js';
import type { EntityRules, RuleContext, WriteChange } from '../../crud/entity-rules.js';
import type { Authenticator } from './authenticator.fields.js';
import { hasAuthenticatorMethod, setAuthenticatorCa } from '../../store/queries/authenticators.js';
import { deleteApiSessionsOfAuthenticator } from '../../store/queries/api-sessions.js';
import { verifiedCas } from '../../store/queries/cas.js';
import { identityExists } from '../../store/queries/identities.js';
import type { Db } from '../../store/store.js';
import { hashPassword } from '../../auth/password.js';
import { checkPasswordRules, passwordRulesFor } from '../../auth/password-rules.js';
import { anchorsFromPem, controllerAnchors, verifyPath } from '../../auth/trust.js';
import type { Pki } from '../../pki/ensure-pki.js';
import { identityRefs } from '../../auth/identity-links.js';
import { certificateFingerprint } from '../../pki/fingerprint.js';
import { splitPemCertificates } from '../../pki/pem.js';

const METHODS = ['updb', 'cert'];

async function requireIdentity(tx: Db, id: unknown): Promise<void> {
  if (!(await identityExists(tx, String(id))))
    throw ApiError.invalidField('identityId', 'no identity found with the given id', id);
}

async function requireFreeMethod(tx: Db, identityId: string, method: string): Promise<void> {
  if (await hasAuthenticatorMethod(tx, identityId, method)) throw new ApiError('MAX_AUTHENTICATOR_METHODS_REACHED');
}

/** The CA that issued each validated certificate (undefined: the controller's own), for afterWrite to record. */
const issuingCa = new WeakMap<WriteChange<Authenticator>, string | undefined>();

/**
 * Exactly one certificate that chains to the controller's trust bundle or to a verified third-party CA (reference
 * §10.3; any key usage, and the certificate itself may have expired, as login leaves that to the auth policy).
 */
async function validateCertificate(
  tx: Db,
  pki: Pki,
  pem: unknown,
  now: Date,
): Promise<{ fingerprint: string; caId: string | undefined }> {
  const { pem: block, certificate } = singleCertificate(pem);
  const cas = await verifiedCas(tx, false);
  const anchors = [...controllerAnchors(pki), ...cas.flatMap((ca) => anchorsFromPem(ca.certPem, ca.id))];
  const anchor = verifyPath(certificate, [], anchors, { now, checkLeafValidity: false, requireClientAuth: false });
  if (!anchor) throw new ApiError('CERTIFICATE_FAILED_VALIDATION');
  return { fingerprint: certificateFingerprint(block), caId: anchor.caId };
}

function singleCertificate(pem: unknown): { pem: string; certificate: X509Certificate } {
  const blocks = typeof pem === 'string' ? splitPemCertificates(pem) : [];
  const [block] = blocks;
  if (blocks.length !== 1 || block === undefined) throw new ApiError('COULD_NOT_PARSE_PEM_BLOCK');
  try {
    return { pem: block, certificate: new X509Certificate(block) };
  } catch {
    throw new ApiError('COULD_NOT_PARSE_PEM_BLOCK');
  }
}

/** Full bodies carry the other method's fields as "" or null: only a value there is a mismatch. */
const isGiven = (value: unknown) => value !== undefined && value !== null && value !== '';

async function applySecrets({ tx, deps }: RuleContext, change: WriteChange<Authenticator>): Promise<void> {
  const { after, body } = change;
  if (after.method === 'updb') {
    if (isGiven(body.certPem)) throw new ApiError('INVALID_AUTHENTICATOR_PROPERTIES');
    // A blank username is stored as none, which a password authenticator cannot be without.
    if ((change.op === 'create' || change.changed.has('username')) && !after.username) {
      throw ApiError.invalidField('username', 'username is required', body.username);
    }
    if (change.op === 'create' || (body.password !== undefined && body.password !== null)) {
      const rules = await passwordRulesFor(tx, after.identityId);
      const { hash, salt } = await hashPassword(checkPasswordRules(body.password, rules));
      after.passwordHash = hash;
      after.passwordSalt = salt;
    }
    return;
  }
  if (isGiven(body.username) || isGiven(body.password)) throw new ApiError('INVALID_AUTHENTICATOR_PROPERTIES');
  // Not a field: an enrollment's extra value on create (see the header).
  const verifiedByCaId = 'verifiedByCaId' in after ? after.verifiedByCaId : undefined;
  if (change.op === 'create' && verifiedByCaId !== undefined) {
    // An enrollment already verified the certificate, with the intermediates the client presented in its handshake.
    after.fingerprint = certificateFingerprint(singleCertificate(after.certPem).pem);
    issuingCa.set(change, typeof verifiedByCaId === 'string' ? verifiedByCaId : undefined);
  } else if (change.op === 'create' || change.changed.has('certPem')) {
    const { fingerprint, caId } = await validateCertificate(tx, deps.pki, after.certPem, deps.clock());
    after.fingerprint = fingerprint;
    issuingCa.set(change, caId);
  }
}

/**
 * An authenticator that goes (deleted, or turned back into an enrollment by re-enroll) takes the API sessions it
 * opened with it, at once rather than when the new enrollment completes: upstream's authenticator store DeleteById.
 */
export async function endSessionsOf(tx: Db, authenticator: Pick<Authenticator, 'id' | 'identityId'>): Promise<void> {
  await deleteApiSessionsOfAuthenticator(tx, authenticator.identityId, authenticator.id);
}

export const authenticatorRules: EntityRules<Authenticator> = {
  // Migration 015's unique (identity_id, method): a concurrent writer added the method after requireFreeMethod looked.
  uniqueError: (columns) =>
    columns.includes('method') ? new ApiError('MAX_AUTHENTICATOR_METHODS_REACHED') : undefined,
  async validate({ tx, deps }, change) {
    const { after } = change;
    if (change.op === 'create') {
      if (!METHODS.includes(after.method))
        throw ApiError.invalidField('method', 'method must be updb or cert', after.method);
      await requireIdentity(tx, after.identityId);
      await requireFreeMethod(tx, after.identityId, after.method);
    }
    if (
      change.op !== 'create' &&
      after.method === 'cert' &&
      (change.changed.has('username') || (change.body.password ?? null) !== null)
    ) {
      throw new ApiError('CAN_NOT_UPDATE_AUTHENTICATOR');
    }
    await applySecrets({ tx, deps }, change);
  },

  async afterWrite({ tx }, change) {
    if (change.op === 'delete') return endSessionsOf(tx, change.before);
    if (!issuingCa.has(change)) return;
    // `ca_id` is storage only (the API never shows it): it ties the authenticator to its CA, which deletes it.
    await setAuthenticatorCa(tx, change.id, issuingCa.get(change) ?? null);
  },

  async extend({ db }, entities) {
    const refFor = await identityRefs(
      db,
      entities.map((e) => e.identityId),
    );
    return entities.map((entity) => ({
      identity: refFor(entity.identityId),
      ...(entity.method === 'updb' ? { certPem: undefined, fingerprint: undefined } : { username: undefined }),
    }));
  },
};
