// CA auto-enrollment (`method=ca`, docs/reference/pki-enrollment-auth.md §3.5): a client certificate from a verified CA
// with auto-enrollment creates its own identity, named by the CA's `identityNameFormat` and given the CA's
// `identityRoles`.
import 'reflect-metadata';
import type { X509Certificate } from 'node:crypto';
import { X509Certificate as ParsedCertificate } from '@peculiar/x509';
import { ApiError } from '../../errors/api-error.js';
import { emptyEnvelope } from '../../http/envelope.js';
import type { OperationContext, OperationResult } from '../../http/operation.js';
import { clientCertificatesOf } from '../../http/client-certificates.js';
import { allCas, type CaRecord } from '../../store/queries/cas.js';
import { identityIdBy, isIdentityNameTaken } from '../../store/queries/identities.js';
import type { Db } from '../../store/store.js';
import { createEntityIn } from '../../crud/entity-writes.js';
import { identity } from '../../entities/identity/identity.definition.js';
import { DEFAULT_IDENTITY_NAME_FORMAT } from '../../entities/ca/ca.rules.js';
import { certificateFingerprint } from '../../pki/fingerprint.js';
import { externalIdOf, normaliseExternalIdClaim } from '../../auth/external-id-claim.js';
import { parseJsonValue, stringList } from '../../lib/json-value.js';
import { isJsonObject } from '../../lib/object-path.js';
import { anchorsFromPem, verifyPath } from '../../auth/trust.js';
import { insertCaAuthenticator, requireUnusedFingerprint } from './enroll-ottca.js';

type CaRow = CaRecord;

/** What a CA's `identityNameFormat` may name. */
type NameSymbol = 'caName' | 'caId' | 'commonName' | 'requestedName' | 'identityId';

/** The first CA (by id, as upstream's store iterates) that is verified, enabled and issued the presented chain. */
function enrollingCa(
  cas: readonly CaRow[],
  leaf: X509Certificate,
  intermediates: X509Certificate[],
  now: Date,
): CaRow | undefined {
  return cas.find(
    (ca) =>
      ca.is_auto_ca_enrollment_enabled === 1 &&
      ca.is_verified === 1 &&
      verifyPath(leaf, intermediates, anchorsFromPem(ca.cert_pem, ca.id), {
        now,
        checkLeafValidity: true,
        requireClientAuth: true,
      }),
  );
}

/**
 * `[caName]`, `[caId]`, `[commonName]`, `[requestedName]` and `[identityId]` replaced literally
 * (docs/reference/pki-enrollment-auth.md §9.4).
 */
function formatName(ca: CaRow, leaf: X509Certificate, requestedName: string, identityId: string): string {
  const symbols: Record<NameSymbol, string> = {
    caName: ca.name,
    caId: ca.id,
    commonName: new ParsedCertificate(new Uint8Array(leaf.raw)).subjectName.getField('CN').at(-1) ?? '',
    requestedName,
    identityId,
  };
  const format = ca.identity_name_format || DEFAULT_IDENTITY_NAME_FORMAT;
  return format.replace(
    /\[(caName|caId|commonName|requestedName|identityId)\]/g,
    (_match, symbol: NameSymbol) => symbols[symbol],
  );
}

/**
 * A taken name gets a six-digit counter: `name000001`, then `name000002` (upstream appends each counter to the
 * already-suffixed name, `name000001000002`; quirk Q11, the first collision is the same).
 */
async function unusedName(tx: Db, name: string): Promise<string> {
  for (let counter = 0; ; counter++) {
    const candidate = counter === 0 ? name : `${name}${String(counter).padStart(6, '0')}`;
    if (!(await isIdentityNameTaken(tx, candidate))) return candidate;
  }
}

function requestedNameOf(body: unknown): string | undefined {
  const name = isJsonObject(body) ? body.name : undefined;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

export async function enrollWithCa(context: OperationContext): Promise<OperationResult> {
  const { deps } = context;
  // The first certificate is the client's; the rest are untrusted intermediates.
  const [leaf, ...intermediates] = clientCertificatesOf(context.request);
  const now = deps.clock();
  await deps.store.transaction(async (tx) => {
    const cas = await allCas(tx);
    if (cas.length === 0) throw new ApiError('ENROLLMENT_NO_VALID_CAS');
    if (!leaf) throw new ApiError('CERT_FAILED_VALIDATION');
    const ca = enrollingCa(cas, leaf, intermediates, now);
    if (!ca) throw new ApiError('CERT_FAILED_VALIDATION');
    // Stored normalised (normaliseExternalIdClaim), so reading it back through the same check refuses nothing.
    const claim = ca.external_id_claim
      ? (normaliseExternalIdClaim(parseJsonValue(ca.external_id_claim)) ?? undefined)
      : undefined;
    const externalId = claim ? externalIdOf(leaf.raw, claim) : undefined;
    if (claim && externalId === undefined) throw new ApiError('MISSING_CERT_CLAIM');
    if (externalId !== undefined) {
      // Upstream fails on the unique index; 409 CERT_IN_USE tells the SDK the certificate already enrolled.
      if (await identityIdBy(tx, 'externalId', externalId))
        throw ApiError.withMessage('CERT_IN_USE', `an identity with externalId ${externalId} already exists`);
    } else {
      await requireUnusedFingerprint(tx, certificateFingerprint(leaf.raw));
    }
    const identityId = deps.ids.shortId();
    const name = await unusedName(tx, formatName(ca, leaf, requestedNameOf(context.body) ?? identityId, identityId));
    const roleAttributes = ca.identity_roles ? (stringList(parseJsonValue(ca.identity_roles)) ?? []) : [];
    // With an externalId the identity has no authenticator: later logins find it by the claim, so certificates rotate.
    const body = { name, type: 'Default', isAdmin: false, roleAttributes, externalId: externalId ?? null };
    await createEntityIn(tx, deps, identity, body, { id: identityId });
    if (externalId === undefined) await insertCaAuthenticator(tx, deps, { identityId, certificate: leaf, caId: ca.id });
  });
  return { status: 200, json: emptyEnvelope() };
}
