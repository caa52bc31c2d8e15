// TOTP MFA records: one per identity (the database refuses a second), created unverified, verified with a first
// code, each step and recovery code usable once.
import type { Selectable } from 'kysely';
import { typed } from '../connection.js';
import type { MfasTable } from '../schema.js';
import type { Db } from '../store.js';

export type MfaRow = Selectable<MfasTable>;

export async function mfaOf(db: Db, identityId: string): Promise<MfaRow | undefined> {
  return typed(db).selectFrom('mfas').selectAll().where('identity_id', '=', identityId).executeTakeFirst();
}

export async function insertMfa(tx: Db, row: MfaRow): Promise<void> {
  await typed(tx).insertInto('mfas').values(row).execute();
}

export async function setMfaVerified(tx: Db, id: string, at: string): Promise<void> {
  await typed(tx).updateTable('mfas').set({ is_verified: 1, updated_at: at }).where('id', '=', id).execute();
}

/** Recovery codes as JSON text. */
export async function setRecoveryCodes(tx: Db, id: string, recoveryCodes: string, at: string): Promise<void> {
  await typed(tx)
    .updateTable('mfas')
    .set({ recovery_codes: recoveryCodes, updated_at: at })
    .where('id', '=', id)
    .execute();
}

/** Remembers the TOTP step used, only if no later one was: false when a concurrent use of the code won. */
export async function useTotpStep(tx: Db, id: string, step: number, at: string): Promise<boolean> {
  const used = await typed(tx)
    .updateTable('mfas')
    .set({ last_totp_step: step, updated_at: at })
    .where('id', '=', id)
    .where('last_totp_step', '<', step)
    .executeTakeFirst();
  return Number(used.numUpdatedRows) === 1;
}

/**
 * Removes the identity's MFA; its sessions no longer count as having passed MFA (what posture checks read).
 * False when it had none.
 */
export async function deleteMfa(tx: Db, identityId: string): Promise<boolean> {
  const deleted = await typed(tx).deleteFrom('mfas').where('identity_id', '=', identityId).executeTakeFirst();
  await typed(tx)
    .updateTable('api_sessions')
    .set({ mfa_completed_at: null })
    .where('identity_id', '=', identityId)
    .execute();
  return Number(deleted.numDeletedRows) > 0;
}
