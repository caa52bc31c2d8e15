// External JWT signers as logins read them: by id or by issuer, and which of some ids exist.
import type { Selectable } from 'kysely';
import { typed } from '../connection.js';
import type { ExternalJwtSignersTable } from '../schema.js';
import type { Db } from '../store.js';

export type SignerRecord = Selectable<ExternalJwtSignersTable>;

export async function signerBy(db: Db, column: 'id' | 'issuer', value: string): Promise<SignerRecord | undefined> {
  return typed(db).selectFrom('external_jwt_signers').selectAll().where(column, '=', value).executeTakeFirst();
}

/** Which of `ids` name an existing signer. */
export async function existingSigners(db: Db, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await typed(db).selectFrom('external_jwt_signers').select('id').where('id', 'in', ids).execute();
  return new Set(rows.map((row) => row.id));
}
