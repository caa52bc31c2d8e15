// A CA's `externalIdClaim`: where in a client certificate an identity's externalId is found
// (docs/reference/pki-enrollment-auth.md §9.3), so certificates from that CA may rotate while the identity stays the
// same.
import 'reflect-metadata';
import { SubjectAlternativeNameExtension, X509Certificate } from '@peculiar/x509';
import { ApiError } from '../errors/api-error.js';
import { isJsonObject } from '../lib/object-path.js';

const LOCATIONS = ['COMMON_NAME', 'SAN_URI', 'SAN_EMAIL'] as const;
const MATCHERS = ['ALL', 'PREFIX', 'SUFFIX', 'SCHEME'] as const;
const PARSERS = ['NONE', 'SPLIT'] as const;

export interface ExternalIdClaim {
  location: (typeof LOCATIONS)[number];
  matcher: (typeof MATCHERS)[number];
  matcherCriteria: string;
  parser: (typeof PARSERS)[number];
  parserCriteria: string;
  index: number;
}

/** One of the contract's enum values (which the contract has checked); none is refused as missing, in field order. */
function requiredChoice<T extends string>(field: string, choices: readonly T[], value: unknown): T {
  const choice = choices.find((allowed) => allowed === value);
  if (choice === undefined)
    throw ApiError.invalidField(`externalIdClaim.${field}`, `${field} is required`, value ?? '');
  return choice;
}

/**
 * A stored claim with every field filled (upstream stores nulls as empty strings and 0). SCHEME only makes sense
 * for URIs; upstream refuses it elsewhere with a field error (under REFERENCED_ENTITY_NOT_FOUND, a quirk), and
 * so do we, as COULD_NOT_VALIDATE.
 */
export function normaliseExternalIdClaim(raw: unknown): ExternalIdClaim | null {
  if (raw === null || raw === undefined) return null;
  const given = isJsonObject(raw) ? raw : {};
  const claim: ExternalIdClaim = {
    location: requiredChoice('location', LOCATIONS, given.location),
    matcher: requiredChoice('matcher', MATCHERS, given.matcher),
    matcherCriteria: typeof given.matcherCriteria === 'string' ? given.matcherCriteria : '',
    parser: requiredChoice('parser', PARSERS, given.parser),
    parserCriteria: typeof given.parserCriteria === 'string' ? given.parserCriteria : '',
    index: typeof given.index === 'number' ? given.index : 0,
  };
  if (claim.matcher === 'SCHEME' && claim.location !== 'SAN_URI') {
    throw ApiError.invalidField(
      'externalIdClaim.matcher',
      'the SCHEME matcher requires the SAN_URI location',
      claim.matcher,
    );
  }
  return claim;
}

function locate(certificate: X509Certificate, location: ExternalIdClaim['location']): string[] {
  if (location === 'COMMON_NAME') return certificate.subjectName.getField('CN').slice(0, 1);
  const names = certificate.getExtension(SubjectAlternativeNameExtension)?.names.items ?? [];
  const type = location === 'SAN_URI' ? 'url' : 'email';
  return names.filter((name) => name.type === type).map((name) => name.value);
}

function match(values: string[], claim: ExternalIdClaim): string[] {
  const criteria = claim.matcherCriteria;
  switch (claim.matcher) {
    case 'PREFIX':
      return values.filter((value) => value.startsWith(criteria)).map((value) => value.slice(criteria.length));
    case 'SUFFIX':
      return values
        .filter((value) => value.endsWith(criteria))
        .map((value) => value.slice(0, value.length - criteria.length));
    case 'SCHEME':
      return values.filter((value) => value.toLowerCase().startsWith(`${criteria.toLowerCase()}:`));
    default:
      return values;
  }
}

/** The externalId a certificate carries under a claim, or undefined when it has none ("no claim found"). */
export function externalIdOf(certificatePem: string | Uint8Array, claim: ExternalIdClaim): string | undefined {
  const certificate =
    typeof certificatePem === 'string'
      ? new X509Certificate(certificatePem)
      : new X509Certificate(new Uint8Array(certificatePem));
  const matched = match(locate(certificate, claim.location), claim);
  const parsed = claim.parser === 'SPLIT' ? matched.flatMap((value) => value.split(claim.parserCriteria)) : matched;
  const value = parsed[claim.index];
  return value === undefined || value === '' ? undefined : value;
}
