// `POST /authenticate`: password, certificate and external-JWT login. Each method proves an identity; one shared
// check (login-policy.ts) then decides whether that identity may log in that way, and the new API session carries
// the secondary factors still outstanding (docs/reference/pki-enrollment-auth.md §4, §6.3, §7).
import { ApiError } from '../errors/api-error.js';
import { formatTimestamp } from '../lib/clock.js';
import { envelope } from '../http/envelope.js';
import type { OperationContext, OperationHandler, OperationOf } from '../http/operation.js';
import { updateClientInfo } from './client-info.js';
import { writeAreas, type Db } from '../store/store.js';
import { resolveConfigTypes } from '../policy/config-expansion.js';
import { apiSessionDetail } from './api-session-detail.js';
import { insertApiSession } from './api-sessions.js';
import { outstandingAuthQueries } from './auth-queries.js';
import { checkCertificateLogin } from './certificate-login.js';
import { bearerTokensOf } from '../lib/bearer-tokens.js';
import { checkExtJwtLogin } from './ext-jwt/ext-jwt-login.js';
import {
  invalidAuth,
  requireLoginAllowed,
  type AllowedLogin,
  type PrimaryCredential,
  type PrimaryMethod,
} from './login-policy.js';
import { checkPasswordLogin } from './password-login.js';

type AuthenticateOperation = OperationOf<'authenticate'>;
type AuthenticateBody = NonNullable<AuthenticateOperation['body']>;

const primaryMethods: Record<
  PrimaryMethod,
  (context: OperationContext, body: AuthenticateBody) => Promise<PrimaryCredential>
> = {
  password: (context, body) => checkPasswordLogin(context, body.username, body.password),
  cert: (context) => checkCertificateLogin(context),
  'ext-jwt': (context) => checkExtJwtLogin(context),
};

export const authenticate: OperationHandler<AuthenticateOperation> = {
  access: 'public',
  async handle(context) {
    const { method } = context.query;
    // The contract's enum is checked before the handler runs; a method outside it is still refused here.
    const check = Object.hasOwn(primaryMethods, method) ? primaryMethods[method] : undefined;
    if (!check) throw new ApiError('INVALID_AUTH_METHOD');
    const body = context.body ?? {};
    const credential = await check(context, body);
    const { deps } = context;
    // Reading the identity's write area (its state, decided on here, is changed by logouts and posture reports
    // exclusively); what it writes is its own new API session and rows a single statement locks (client info, the
    // authenticator's certificate), so one identity's logins run at once. The policies, config types and MFA state
    // it reads change only in strict writes.
    const { row, policy, identity } = await deps.store.transaction(
      async (tx) => {
        const now = deps.clock();
        const allowed = await requireLoginAllowed(tx, credential.identityId, method, now, credential.signerId);
        const { policy } = allowed;
        if (credential.satisfies && !credential.satisfies(policy, now)) throw invalidAuth();
        await recordClientInfo(tx, context, credential.identityId, body, allowed.clientInfo);
        const row = await insertApiSession(tx, deps.clock, deps.ids, {
          identityId: credential.identityId,
          authenticatorId: credential.authenticatorId,
          ipAddress: context.caller.ip,
          // Stored as upstream stores them: ids (names mapped, unknown ones dropped), or just `all`.
          configTypes: await resolveConfigTypes(tx, body.configTypes ?? []),
          isMfaRequired: allowed.hasVerifiedMfa,
        });
        await credential.record?.(tx, row.id);
        return { row, policy, identity: allowed.identity };
      },
      { touches: [], reads: [writeAreas.identity(credential.identityId)] },
    );
    // Unlike upstream's password module (quirk Q4), every method answers with the factors still outstanding.
    const authQueries = await outstandingAuthQueries(
      deps.externalJwts,
      {
        identityId: row.identity_id,
        isMfaRequired: row.is_mfa_required === 1,
        isMfaComplete: false,
        requireTotp: policy.requireTotp,
        requiredExtJwtSigner: policy.requiredExtJwtSigner,
      },
      bearerTokensOf(context.request.raw.rawHeaders),
    );
    // The identity's reference is the one the transaction read, so the answer needs no read of its own.
    const detail = await deps.store.read((db) => apiSessionDetail(db, deps, row, authQueries, identity));
    return { status: 200, json: envelope(detail), headers: { 'zt-session': detail.token } };
  },
};

async function recordClientInfo(
  tx: Db,
  context: OperationContext,
  identityId: string,
  body: AuthenticateBody,
  stored: AllowedLogin['clientInfo'],
): Promise<void> {
  const info = {
    ...(body.envInfo ? { envInfo: JSON.stringify(body.envInfo) } : {}),
    ...(body.sdkInfo ? { sdkInfo: JSON.stringify(body.sdkInfo) } : {}),
  };
  await updateClientInfo(tx, identityId, info, formatTimestamp(context.deps.clock()), undefined, stored);
}
