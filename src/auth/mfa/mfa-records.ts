// An identity's TOTP MFA record (one at most): created unverified, verified with a first code, checked at login.
import { ApiError } from '../../errors/api-error.js';
import { formatTimestamp, type Clock } from '../../lib/clock.js';
import type { IdGenerators } from '../../lib/ids.js';
import { completeApiSessionMfa } from '../../store/queries/api-sessions.js';
import {
  deleteMfa,
  insertMfa,
  mfaOf,
  setMfaVerified,
  setRecoveryCodes,
  useTotpStep,
  type MfaRow,
} from '../../store/queries/mfa.js';
import { isUniqueViolation, type Db, type Store } from '../../store/store.js';
import { matchTotp, newRecoveryCodes, newTotpSecret } from './totp.js';
import { parseJsonValue, stringList } from '../../lib/json-value.js';
import { isJsonObject } from '../../lib/object-path.js';
import { recordStates } from '../../crud/recorded-write.js';
import { EntityTypes } from '../../events/entity-types.js';

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

const jsonObject = (value: unknown): Record<string, unknown> => (isJsonObject(value) ? value : {});

function toRecord(row: MfaRow): MfaRecord {
  return {
    id: row.id,
    identityId: row.identity_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    tags: jsonObject(parseJsonValue(row.tags)),
    isVerified: row.is_verified === 1,
    secret: row.secret,
    recoveryCodes: stringList(parseJsonValue(row.recovery_codes)) ?? [],
    lastTotpStep: Number(row.last_totp_step),
  };
}

export async function findMfa(db: Db, identityId: string): Promise<MfaRecord | undefined> {
  const row = await mfaOf(db, identityId);
  return row ? toRecord(row) : undefined;
}

/** A new unverified record; any existing one, verified or not, is 409 MFA_EXISTS. */
export async function createMfa(
  tx: Db,
  deps: { clock: Clock; ids: IdGenerators; store: Store },
  identityId: string,
): Promise<string> {
  if (await findMfa(tx, identityId)) throw new ApiError('MFA_EXISTS');
  const at = formatTimestamp(deps.clock());
  const id = deps.ids.base62();
  const recoveryCodes = JSON.stringify(newRecoveryCodes());
  const row = {
    id,
    created_at: at,
    updated_at: at,
    tags: '{}',
    is_system: 0,
    identity_id: identityId,
    is_verified: 0,
    secret: newTotpSecret(),
    recovery_codes: recoveryCodes,
    last_totp_step: 0,
  };
  await recordedMfaWrite(tx, identityId, () =>
    insertMfa(tx, row).catch((error: unknown) => {
      // mfas.identity_id is unique (migration 013): a concurrent request created the record after findMfa looked.
      if (isUniqueViolation(deps.store, error, 'mfaOfIdentity')) throw new ApiError('MFA_EXISTS');
      throw error;
    }),
  );
  return id;
}

export type CodeKind = 'totp' | 'totpOrRecovery';

/**
 * Whether `code` proves the factor, consuming what it used: a recovery code is removed, a TOTP step is remembered so
 * the same code cannot be replayed. Recovery codes count only where upstream accepts them (`totpOrRecovery`).
 */
export async function useMfaCode(
  tx: Db,
  deps: { clock: Clock },
  record: MfaRecord,
  code: string,
  kind: CodeKind,
): Promise<boolean> {
  const at = formatTimestamp(deps.clock());
  if (kind === 'totpOrRecovery' && code !== '' && record.recoveryCodes.includes(code)) {
    const remaining = record.recoveryCodes.filter((candidate) => candidate !== code);
    await recordedMfaWrite(tx, record.identityId, () => setRecoveryCodes(tx, record.id, JSON.stringify(remaining), at));
    return true;
  }
  const step = matchTotp(record.secret, code, deps.clock(), record.lastTotpStep);
  if (step === undefined) return false;
  // Conditional on the step seen, so two requests racing with one code cannot both use it.
  return useTotpStep(tx, record.id, step, at);
}

export async function markMfaVerified(tx: Db, deps: { clock: Clock }, record: MfaRecord): Promise<void> {
  await recordedMfaWrite(tx, record.identityId, () => setMfaVerified(tx, record.id, formatTimestamp(deps.clock())));
}

export async function replaceRecoveryCodes(tx: Db, deps: { clock: Clock }, record: MfaRecord): Promise<void> {
  const at = formatTimestamp(deps.clock());
  await recordedMfaWrite(tx, record.identityId, () =>
    setRecoveryCodes(tx, record.id, JSON.stringify(newRecoveryCodes()), at),
  );
}

/**
 * Removes the identity's MFA (verified or not). Its sessions no longer count as having passed MFA (what posture
 * checks read), as upstream's SetMfaPostureForIdentity(false).
 */
export async function deleteMfaOf(tx: Db, identityId: string): Promise<boolean> {
  return recordedMfaWrite(tx, identityId, () => deleteMfa(tx, identityId));
}

/**
 * An MFA write, recorded as upstream's mfa store records it (created, updated with recovery codes or verification,
 * deleted); the TOTP step a login uses is ours alone (upstream keeps none) and is not recorded.
 */
async function recordedMfaWrite<T>(tx: Db, identityId: string, write: () => Promise<T>): Promise<T> {
  const state = async () => {
    const record = await findMfa(tx, identityId);
    return (
      record && {
        id: record.id,
        createdAt: record.createdAt,
        updatedAt: record.updatedAt,
        tags: record.tags,
        isSystem: false,
        identityId: record.identityId,
        isVerified: record.isVerified,
        // Never leaves the store (entity-change-log.ts); compared so that a regeneration is an update.
        recoveryCodes: record.recoveryCodes,
      }
    );
  };
  const before = await state();
  const result = await write();
  const after = await state();
  const id = before?.id ?? after?.id;
  if (id) await recordStates(tx, EntityTypes.mfas, id, before, after);
  return result;
}

/** The session passed its TOTP factor now (both flags, as upstream's SetMfaPassed / MfaCompleted). */
export async function completeSessionMfa(tx: Db, deps: { clock: Clock }, apiSessionId: string): Promise<void> {
  await completeApiSessionMfa(tx, apiSessionId, formatTimestamp(deps.clock()));
}
