// Authenticators beyond the entity kit: password and certificate logins read them, lockouts count on them, and
// certificate renewal and enrollment write their certificates.
import type { Selectable } from 'kysely';
import { typed } from '../connection.js';
import { preparedQuery } from '../prepared.js';
import type { AuthenticatorsTable } from '../schema.js';
import type { Db } from '../store.js';

export type AuthenticatorRow = Selectable<AuthenticatorsTable>;

export async function authenticatorById(db: Db, id: string): Promise<AuthenticatorRow | undefined> {
  return typed(db).selectFrom('authenticators').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The authenticator bound to a certificate fingerprint, if any. */
export async function authenticatorWithFingerprint(db: Db, fingerprint: string): Promise<string | undefined> {
  return (
    await typed(db)
      .selectFrom('authenticators')
      .select('id')
      .where('cert_fingerprint', '=', fingerprint)
      .executeTakeFirst()
  )?.id;
}

const selectCertAuthenticator = preparedQuery((q, fingerprint: string) =>
  q
    .selectFrom('authenticators')
    .select(['id', 'identity_id', 'cert_pem'])
    .where('cert_fingerprint', '=', fingerprint)
    .where('method', '=', 'cert'),
);

/** The certificate authenticator bound to a fingerprint, with whether its certificate is stored. */
export async function certAuthenticatorWithFingerprint(
  db: Db,
  fingerprint: string,
): Promise<{ id: string; identityId: string; hasCertPem: boolean } | undefined> {
  const [row] = await selectCertAuthenticator(db, fingerprint);
  return row && { id: row.id, identityId: row.identity_id, hasCertPem: Boolean(row.cert_pem) };
}

/** Whether the identity has an authenticator of this method. */
export async function hasAuthenticatorMethod(db: Db, identityId: string, method: string): Promise<boolean> {
  return (
    (await typed(db)
      .selectFrom('authenticators')
      .select('id')
      .where('identity_id', '=', identityId)
      .where('method', '=', method)
      .executeTakeFirst()) !== undefined
  );
}

/** A password login's candidate: the updb authenticator for a username, with its identity's state and auth policy. */
/** One more consecutive password failure; returns the count now. */
export async function countPasswordFailure(tx: Db, id: string): Promise<number> {
  const counted = await typed(tx)
    .updateTable('authenticators')
    .set((eb) => ({ failed_attempts: eb('failed_attempts', '+', 1) }))
    .where('id', '=', id)
    .returning('failed_attempts')
    .executeTakeFirst();
  return Number(counted?.failed_attempts ?? 0);
}

export async function clearPasswordFailures(tx: Db, id: string): Promise<void> {
  await typed(tx).updateTable('authenticators').set({ failed_attempts: 0 }).where('id', '=', id).execute();
}

/** Keeps a certificate for an authenticator created with its fingerprint only. */
export async function storeAuthenticatorCertificate(tx: Db, id: string, certPem: string, at: string): Promise<void> {
  await typed(tx)
    .updateTable('authenticators')
    .set({ cert_pem: certPem, updated_at: at })
    .where('id', '=', id)
    .execute();
}

/** A renewed certificate waits beside the current one until the client proves it holds it. */
export async function setPendingCertificate(
  tx: Db,
  id: string,
  certificate: { certPem: string; fingerprint: string },
  at: string,
): Promise<void> {
  await typed(tx)
    .updateTable('authenticators')
    .set({ unverified_cert_pem: certificate.certPem, unverified_fingerprint: certificate.fingerprint, updated_at: at })
    .where('id', '=', id)
    .execute();
}

/** The pending certificate becomes current (the old one stops working at once). */
export async function promotePendingCertificate(
  tx: Db,
  id: string,
  certificate: { certPem: string; fingerprint: string },
  at: string,
): Promise<void> {
  await typed(tx)
    .updateTable('authenticators')
    .set({
      cert_pem: certificate.certPem,
      cert_fingerprint: certificate.fingerprint,
      unverified_cert_pem: null,
      unverified_fingerprint: null,
      updated_at: at,
    })
    .where('id', '=', id)
    .execute();
}

/** The third-party CA that issued a certificate authenticator's certificate (null: the controller's own). */
export async function setAuthenticatorCa(tx: Db, id: string, caId: string | null): Promise<void> {
  await typed(tx).updateTable('authenticators').set({ ca_id: caId }).where('id', '=', id).execute();
}
