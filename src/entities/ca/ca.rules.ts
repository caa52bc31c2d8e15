// CA rules: the certificate must be a CA (fingerprinted, used once), verification starts over never, and the
// name format and external-id claim are filled in as upstream stores them.
import { X509Certificate } from 'node:crypto';
import { ApiError } from '../../errors/api-error.js';
import { caWithFingerprint } from '../../store/queries/cas.js';
import type { EntityRules, RuleContext, WriteChange } from '../../crud/entity-rules.js';
import { isJsonObject } from '../../lib/object-path.js';
import { normaliseExternalIdClaim } from '../../auth/external-id-claim.js';
import { certificateFingerprint } from '../../pki/fingerprint.js';
import { splitPemCertificates } from '../../pki/pem.js';

/** Upstream's DefaultCaIdentityNameFormat (`controller/model/ca_manager.go`). */
export const DEFAULT_IDENTITY_NAME_FORMAT = '[caName]-[commonName]';

const pemBlock = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----\r?\n?/;

/**
 * Every block of certPem as a certificate, refused with upstream's messages (`common/cert/cert.go` PemChain2Blocks
 * and Blocks2Certs): text that holds no further PEM block, a block of another type, a block that is no X.509.
 */
function caCertificates(certPem: string): string[] {
  const blocks: string[] = [];
  let remainder = certPem.trim();
  for (let number = 1; remainder.length > 0; number++) {
    const block = pemBlock.exec(remainder);
    if (!block) throw ApiError.invalidField('certPem', `could not parse block #${number}`, certPem);
    if (block[1] !== 'CERTIFICATE')
      throw ApiError.invalidField('certPem', `block #${number} is not a certificate`, certPem);
    blocks.push(block[0]);
    remainder = remainder.slice(block.index + block[0].length);
  }
  if (blocks.length === 0)
    throw ApiError.invalidField('certPem', 'at least one leaf certificate must be supplied', certPem);
  return blocks.map((block, index) => {
    const [pem] = splitPemCertificates(block);
    if (pem === undefined)
      throw ApiError.invalidField('certPem', `could not parse block #${index + 1} as an x509 certificate`, certPem);
    return pem;
  });
}

/**
 * The first certificate names the CA (fingerprint, verification); later ones are extra roots of the same CA.
 * Upstream answers a non-CA first certificate with a 500; we answer 400 CERTIFICATE_IS_NOT_CA.
 */
function fingerprintOfCaPem(certPem: unknown): string {
  const blocks = caCertificates(typeof certPem === 'string' ? certPem : '');
  const certificates = blocks.map((block, index) => {
    try {
      return new X509Certificate(block);
    } catch {
      throw ApiError.invalidField('certPem', `could not parse block #${index + 1} as an x509 certificate`, certPem);
    }
  });
  if (!certificates[0]!.ca) throw new ApiError('CERTIFICATE_IS_NOT_CA');
  return certificateFingerprint(blocks[0]!);
}

async function refuseReusedCertificate({ tx }: RuleContext, fingerprint: string, certPem: unknown): Promise<void> {
  const other = await caWithFingerprint(tx, fingerprint);
  // Upstream's wording and value (`controller/model/ca_model.go`).
  if (other) throw ApiError.invalidField('certPem', `certificate already used as CA ${other}`, certPem);
}

/** PATCH changes only the claim's fields it names; create and PUT replace the whole claim (or remove it). */
function claimAfter(change: WriteChange): unknown {
  const given = change.after.externalIdClaim;
  if (change.op !== 'patch' || !change.changed.has('externalIdClaim')) return given;
  const present = Object.entries(isJsonObject(given) ? given : {}).filter(([, value]) => value !== null);
  const stored = change.before.externalIdClaim;
  return { ...(isJsonObject(stored) ? stored : {}), ...Object.fromEntries(present) };
}

export const caRules: EntityRules = {
  async validate(context, change) {
    const after = change.after;
    if (change.op === 'create') {
      const fingerprint = fingerprintOfCaPem(after.certPem);
      await refuseReusedCertificate(context, fingerprint, after.certPem);
      after.fingerprint = fingerprint;
      after.isVerified = false;
      // A shortid, as upstream v1.1.8 stores it (the contract's uuid format is corrected).
      after.verificationToken = context.deps.ids.shortId();
    }
    if (typeof after.identityNameFormat !== 'string' || after.identityNameFormat.trim() === '') {
      after.identityNameFormat = DEFAULT_IDENTITY_NAME_FORMAT;
    }
    after.externalIdClaim = normaliseExternalIdClaim(claimAfter(change));
  },

  extend(_context, entities) {
    // The contract requires identityRoles as an array; a claim that is not configured is left out, as upstream.
    return Promise.resolve(
      entities.map((entity) => ({
        identityRoles: entity.identityRoles ?? [],
        externalIdClaim: entity.externalIdClaim ?? undefined,
      })),
    );
  },
};
