// Outstanding secondary factors of an API session (docs/reference/pki-enrollment-auth.md §6.3), recomputed on every
// request as upstream's ProcessAuthQueries does: a session with any is partially authenticated and may use only the
// partial operations.
import type { AuthQuery } from '../http/request-context.js';
import type { ExternalJwtVerifier } from './ext-jwt/ext-jwt-verifier.js';

export type { AuthQuery };

/** Upstream's query object, keys in its order (ziti controller/env/appenv.go NewAuthQueryZitiMfa). */
const totpQuery: AuthQuery = {
  format: 'alphaNumeric',
  httpMethod: 'POST',
  httpUrl: './authenticate/mfa',
  maxLength: 6,
  minLength: 4,
  provider: 'ziti',
  typeId: 'MFA',
};

export interface SecondaryState {
  identityId: string;
  /** The identity had verified MFA when the session began (or the session verified an enrollment). */
  isMfaRequired: boolean;
  isMfaComplete: boolean;
  /** The identity's auth policy, read now: a policy change applies to existing sessions at once. */
  requireTotp: boolean;
  requiredExtJwtSigner: string | null;
}

/**
 * TOTP is outstanding when MFA is required (enrolled, or by policy) and not yet passed; the external JWT factor when
 * the policy names a signer and none of the request's bearer tokens is that signer's JWT for this very identity
 * (upstream accepts any identity's token from the signer; we do not).
 */
export async function outstandingAuthQueries(
  verifier: ExternalJwtVerifier,
  state: SecondaryState,
  bearerTokens: readonly string[],
): Promise<AuthQuery[]> {
  const queries = totpQueries(state);
  if (state.requiredExtJwtSigner !== null) {
    const verified = await verifier.verify(bearerTokens, {
      requiredSignerId: state.requiredExtJwtSigner,
      identityId: state.identityId,
    });
    if (!verified) {
      const url = (await verifier.signerById(state.requiredExtJwtSigner))?.externalAuthUrl ?? '';
      queries.push({ httpUrl: url, provider: 'url', typeId: 'EXT-JWT' });
    }
  }
  return queries;
}

/** The TOTP factor alone, decided without waiting: all there is when the policy names no external signer. */
export function totpQueries(state: SecondaryState): AuthQuery[] {
  return (state.isMfaRequired || state.requireTotp) && !state.isMfaComplete ? [totpQuery] : [];
}
