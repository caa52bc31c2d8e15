// Third-party CAs: the trust roots certificate logins and enrollments use, their verification, and lookups.
import type { Selectable } from 'kysely';
import { typed } from '../connection.js';
import { preparedQuery } from '../prepared.js';
import type { CasTable } from '../schema.js';
import type { Db } from '../store.js';

export async function caExists(db: Db, id: string): Promise<boolean> {
  return (await typed(db).selectFrom('cas').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

/** The CA holding this certificate fingerprint, if any. */
export async function caWithFingerprint(db: Db, fingerprint: string): Promise<string | undefined> {
  return (await typed(db).selectFrom('cas').select('id').where('fingerprint', '=', fingerprint).executeTakeFirst())?.id;
}

/** A CA's external-id claim (JSON text), or null. */
export async function caExternalIdClaim(db: Db, id: string): Promise<string | null | undefined> {
  return (await typed(db).selectFrom('cas').select('external_id_claim').where('id', '=', id).executeTakeFirst())
    ?.external_id_claim;
}

const selectVerifiedCas = preparedQuery((q) =>
  q.selectFrom('cas').select(['id', 'cert_pem as certPem']).where('is_verified', '=', 1).orderBy('id'),
);
// Every certificate login reads these.
const selectLoginCas = preparedQuery((q) =>
  q
    .selectFrom('cas')
    .select(['id', 'cert_pem as certPem'])
    .where('is_verified', '=', 1)
    .where('is_auth_enabled', '=', 1)
    .orderBy('id'),
);

/** Verified CAs, by id, with their certificates; `authEnabled`: only those certificate logins may use. */
export async function verifiedCas(db: Db, authEnabled: boolean): Promise<{ id: string; certPem: string }[]> {
  return authEnabled ? selectLoginCas(db) : selectVerifiedCas(db);
}

/** Marks the CA verified; false when it already was (or is gone). */
export async function markCaVerified(tx: Db, id: string, at: string): Promise<boolean> {
  const updated = await typed(tx)
    .updateTable('cas')
    .set({ is_verified: 1, updated_at: at })
    .where('id', '=', id)
    .where('is_verified', '=', 0)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

export type CaRecord = Selectable<CasTable>;

export async function caById(db: Db, id: string): Promise<CaRecord | undefined> {
  return typed(db).selectFrom('cas').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Every CA, by id (as upstream's store iterates them). */
export async function allCas(db: Db): Promise<CaRecord[]> {
  return typed(db).selectFrom('cas').selectAll().orderBy('id').execute();
}
