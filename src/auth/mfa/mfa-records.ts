// An identity's TOTP MFA record (one at most): created unverified, verified with a first code, checked at login.
import type { AppDeps } from '../../app-deps.js';
import { ApiError } from '../../errors/api-error.js';
import { formatTimestamp } from '../../lib/clock.js';
import type { Db } from '../../store/store.js';
import { matchTotp, newRecoveryCodes, newTotpSecret } from './totp.js';

export interface MfaRecord {
  id: string;
  identityId: string;
  createdAt: string;
  updatedAt: string;
  tags: Record<string, unknown>;
  isVerified: boolean;
  secret: string;
  recoveryCodes: string[];
  lastTotpStep: number;
}

type Row = Record<string, unknown>;

function toRecord(row: Row): MfaRecord {
  return {
    id: row.id as string,
    identityId: row.identity_id as string,
    createdAt: row.created_at as string,
    updatedAt: row.updated_at as string,
    tags: JSON.parse(row.tags as string) as Record<string, unknown>,
    isVerified: row.is_verified === 1,
    secret: row.secret as string,
    recoveryCodes: JSON.parse(row.recovery_codes as string) as string[],
    lastTotpStep: Number(row.last_totp_step),
  };
}

export async function findMfa(db: Db, identityId: string): Promise<MfaRecord | undefined> {
  const row = await db.selectFrom('mfas').selectAll().where('identity_id', '=', identityId).executeTakeFirst();
  return row ? toRecord(row) : undefined;
}

/** An identity has MFA once its enrollment is verified; an unverified one changes nothing at login. */
export async function hasVerifiedMfa(db: Db, identityId: string): Promise<boolean> {
  const row = await db.selectFrom('mfas').select('id').where('identity_id', '=', identityId).where('is_verified', '=', 1).executeTakeFirst();
  return row !== undefined;
}

/** A new unverified record; any existing one, verified or not, is 409 MFA_EXISTS. */
export async function createMfa(tx: Db, deps: Pick<AppDeps, 'clock' | 'ids'>, identityId: string): Promise<string> {
  if (await findMfa(tx, identityId)) throw new ApiError('MFA_EXISTS');
  const at = formatTimestamp(deps.clock());
  const id = deps.ids.base62();
  const recoveryCodes = JSON.stringify(newRecoveryCodes());
  await tx
    .insertInto('mfas')
    .values({ id, created_at: at, updated_at: at, tags: '{}', is_system: 0, identity_id: identityId, is_verified: 0, secret: newTotpSecret(), recovery_codes: recoveryCodes, last_totp_step: 0 })
    .execute();
  return id;
}

export type CodeKind = 'totp' | 'totpOrRecovery';

/**
 * Whether `code` proves the factor, consuming what it used: a recovery code is removed, a TOTP step is remembered so
 * the same code cannot be replayed. Recovery codes count only where upstream accepts them (`totpOrRecovery`).
 */
export async function useMfaCode(tx: Db, deps: Pick<AppDeps, 'clock'>, record: MfaRecord, code: string, kind: CodeKind): Promise<boolean> {
  const at = formatTimestamp(deps.clock());
  if (kind === 'totpOrRecovery' && code !== '' && record.recoveryCodes.includes(code)) {
    const remaining = record.recoveryCodes.filter((candidate) => candidate !== code);
    await tx.updateTable('mfas').set({ recovery_codes: JSON.stringify(remaining), updated_at: at }).where('id', '=', record.id).execute();
    return true;
  }
  const step = matchTotp(record.secret, code, deps.clock(), record.lastTotpStep);
  if (step === undefined) return false;
  // Conditional on the step seen, so two requests racing with one code cannot both use it.
  const used = await tx.updateTable('mfas').set({ last_totp_step: step, updated_at: at }).where('id', '=', record.id).where('last_totp_step', '<', step).executeTakeFirst();
  return Number(used.numUpdatedRows) === 1;
}

export async function markMfaVerified(tx: Db, deps: Pick<AppDeps, 'clock'>, record: MfaRecord): Promise<void> {
  await tx.updateTable('mfas').set({ is_verified: 1, updated_at: formatTimestamp(deps.clock()) }).where('id', '=', record.id).execute();
}

export async function replaceRecoveryCodes(tx: Db, deps: Pick<AppDeps, 'clock'>, record: MfaRecord): Promise<void> {
  const at = formatTimestamp(deps.clock());
  await tx.updateTable('mfas').set({ recovery_codes: JSON.stringify(newRecoveryCodes()), updated_at: at }).where('id', '=', record.id).execute();
}

/**
 * Removes the identity's MFA (verified or not). Its sessions no longer count as having passed MFA (what posture
 * checks read), as upstream's SetMfaPostureForIdentity(false).
 */
export async function deleteMfaOf(tx: Db, identityId: string): Promise<boolean> {
  const deleted = await tx.deleteFrom('mfas').where('identity_id', '=', identityId).executeTakeFirst();
  await tx.updateTable('api_sessions').set({ mfa_completed_at: null }).where('identity_id', '=', identityId).execute();
  return Number(deleted.numDeletedRows) > 0;
}

/** The session passed its TOTP factor now (both flags, as upstream's SetMfaPassed / MfaCompleted). */
export async function completeSessionMfa(tx: Db, deps: Pick<AppDeps, 'clock'>, apiSessionId: string): Promise<void> {
  const at = formatTimestamp(deps.clock());
  await tx.updateTable('api_sessions').set({ is_mfa_required: 1, is_mfa_complete: 1, mfa_completed_at: at }).where('id', '=', apiSessionId).execute();
}
