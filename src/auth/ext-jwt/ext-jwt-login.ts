// `POST /authenticate?method=ext-jwt` (docs/reference/pki-enrollment-auth.md §4.4, §8.3): an `Authorization: Bearer`
// JWT from an enabled external signer names the identity; its auth policy must allow ext-jwt logins from that signer.
// Of two bearer tokens (a primary and a secondary factor's), the first one the policy accepts as primary wins, as
// upstream.
import type { OperationContext } from '../../http/operation.js';
import { allowsPrimary, invalidAuth, loginPolicyOf, type PrimaryCredential } from '../login-policy.js';
import { bearerTokensOf } from '../../lib/bearer-tokens.js';

export async function checkExtJwtLogin(context: OperationContext): Promise<PrimaryCredential> {
  const { deps } = context;
  for (const token of bearerTokensOf(context.request.raw.rawHeaders)) {
    const verified = await deps.externalJwts.verify([token]);
    if (!verified) continue;
    const policy = await deps.store.read((db) => loginPolicyOf(db, verified.identityId));
    if (!policy || !allowsPrimary(policy, 'ext-jwt', verified.signer.id)) continue;
    return {
      identityId: verified.identityId,
      authenticatorId: `extJwtId:${verified.signer.id}`,
      signerId: verified.signer.id,
    };
  }
  throw invalidAuth();
}
