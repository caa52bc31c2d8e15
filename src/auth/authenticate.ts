// `POST /authenticate`: password and certificate login; external-JWT login arrives with its issue.
import { ApiError } from '../errors/api-error.js';
import { formatTimestamp } from '../lib/clock.js';
import { envelope } from '../http/envelope.js';
import type { OperationContext, OperationHandler } from '../http/operation.js';
import type { Db } from '../store/store.js';
import { resolveConfigTypes } from '../policy/config-expansion.js';
import { apiSessionDetail } from './api-session-detail.js';
import { checkCertificateLogin, recordCertificateLogin } from './certificate-login.js';
import { insertApiSession } from './api-sessions.js';
import { hashPassword, verifyPassword } from './password.js';

interface AuthenticateBody {
  username?: string;
  password?: string;
  configTypes?: string[];
  envInfo?: Record<string, unknown>;
  sdkInfo?: Record<string, unknown>;
}

/** Hashing something even for an unknown user keeps the answer time from telling which usernames exist. */
const decoy = hashPassword('decoy-password');

export const authenticate: OperationHandler = {
  access: 'public',
  async handle(context) {
    const method = context.query.method;
    if (method !== 'password' && method !== 'cert') {
      throw ApiError.withMessage('NOT_IMPLEMENTED', `authentication method ${String(method)} is not implemented yet`);
    }
    const body = (context.body ?? {}) as AuthenticateBody;
    const certificate = method === 'cert' ? await checkCertificateLogin(context) : undefined;
    const authenticatorId = certificate?.authenticatorId ?? (await checkPassword(context, body));
    const { deps } = context;
    const detail = await deps.store.transaction(async (tx) => {
      const identityId = certificate?.identityId ?? (await requireLoginAllowed(tx, context, authenticatorId));
      await recordClientInfo(tx, context, identityId, body);
      const row = await insertApiSession(tx, deps.clock, deps.ids, {
        identityId,
        authenticatorId,
        ipAddress: context.caller.ip,
        // Stored as upstream stores them: ids (names mapped, unknown ones dropped), or just `all`.
        configTypes: await resolveConfigTypes(tx, body.configTypes ?? []),
      });
      if (certificate) await recordCertificateLogin(tx, deps, certificate, row.id);
      return apiSessionDetail(tx, deps, row, 'api-session');
    });
    return { status: 200, json: envelope(detail), headers: { 'zt-session': detail.token as string } };
  },
};

/** Every credential failure is the same 401 INVALID_AUTH, whatever went wrong. */
async function checkPassword(context: OperationContext, { username, password }: AuthenticateBody): Promise<string> {
  if (!username || !password) throw ApiError.withMessage('COULD_NOT_VALIDATE', 'username and password fields are required');
  const found = await context.deps.store.read((db) =>
    db
      .selectFrom('authenticators')
      .select(['id', 'password_hash', 'password_salt'])
      .where('username', '=', username)
      .where('method', '=', 'updb')
      .executeTakeFirst(),
  );
  if (!found?.password_hash || !found.password_salt) {
    await verifyPassword(password, await decoy);
    throw new ApiError('INVALID_AUTH');
  }
  const ok = await verifyPassword(password, { hash: found.password_hash as string, salt: found.password_salt as string });
  if (!ok) throw new ApiError('INVALID_AUTH');
  return found.id as string;
}

async function requireLoginAllowed(tx: Db, context: OperationContext, authenticatorId: string): Promise<string> {
  const row = await tx
    .selectFrom('authenticators as a')
    .innerJoin('identities as i', 'i.id', 'a.identity_id')
    .innerJoin('auth_policies as p', 'p.id', 'i.auth_policy_id')
    .select(['i.id', 'i.disabled_at', 'i.disabled_until', 'p.primary_updb_allowed'])
    .where('a.id', '=', authenticatorId)
    .executeTakeFirst();
  if (!row || row.primary_updb_allowed !== 1) throw new ApiError('INVALID_AUTH');
  const now = context.deps.clock().getTime();
  const disabled = row.disabled_at !== null && (row.disabled_until === null || Date.parse(row.disabled_until as string) > now);
  if (disabled) throw new ApiError('INVALID_AUTH');
  return row.id as string;
}

async function recordClientInfo(tx: Db, context: OperationContext, identityId: string, body: AuthenticateBody): Promise<void> {
  const changes: Record<string, string> = {};
  if (body.envInfo) changes.env_info = JSON.stringify(body.envInfo);
  if (body.sdkInfo) changes.sdk_info = JSON.stringify(body.sdkInfo);
  if (Object.keys(changes).length === 0) return;
  const updatedAt = formatTimestamp(context.deps.clock());
  await tx.updateTable('identities').set({ ...changes, updated_at: updatedAt }).where('id', '=', identityId).execute();
}
