// Routers (edge and transit in one table) as enrollment and certificate renewal read and write them.
import { typed } from '../connection.js';
import type { Db } from '../store.js';

/** Whether the router exists and is an edge router; undefined when it does not exist. */
export async function routerIsEdge(db: Db, id: string): Promise<boolean | undefined> {
  const row = await typed(db).selectFrom('routers').select('is_edge').where('id', '=', id).executeTakeFirst();
  return row && row.is_edge === 1;
}

/** The router holding this certificate fingerprint, if any. */
export async function routerWithFingerprint(db: Db, fingerprint: string): Promise<string | undefined> {
  return (await typed(db).selectFrom('routers').select('id').where('fingerprint', '=', fingerprint).executeTakeFirst())
    ?.id;
}

/** The router's certificate after enrollment or renewal: it is verified from now on. */
export async function setRouterCertificate(
  tx: Db,
  id: string,
  certificate: { certPem: string; fingerprint: string },
  at: string,
): Promise<void> {
  await typed(tx)
    .updateTable('routers')
    .set({
      cert_pem: certificate.certPem,
      fingerprint: certificate.fingerprint,
      // A renewal still waiting for its verification is superseded.
      unverified_cert_pem: null,
      unverified_fingerprint: null,
      is_verified: 1,
      updated_at: at,
    })
    .where('id', '=', id)
    .execute();
}

/** A renewed certificate waiting for the router to confirm it has it (enrollment extension with verification). */
export async function setUnverifiedRouterCertificate(
  tx: Db,
  id: string,
  certificate: { certPem: string; fingerprint: string },
  at: string,
): Promise<void> {
  await typed(tx)
    .updateTable('routers')
    .set({ unverified_cert_pem: certificate.certPem, unverified_fingerprint: certificate.fingerprint, updated_at: at })
    .where('id', '=', id)
    .execute();
}

/** The router's certificate and what waits for its verification (null when nothing does). */
export async function routerCertificates(
  db: Db,
  id: string,
): Promise<
  | {
      fingerprint: string | null;
      certPem: string | null;
      unverifiedFingerprint: string | null;
      unverifiedCertPem: string | null;
    }
  | undefined
> {
  return typed(db)
    .selectFrom('routers')
    .select([
      'fingerprint',
      'cert_pem as certPem',
      'unverified_fingerprint as unverifiedFingerprint',
      'unverified_cert_pem as unverifiedCertPem',
    ])
    .where('id', '=', id)
    .executeTakeFirst();
}

/**
 * The verified renewal becomes the router's certificate, if `certPem` is still the one waiting (a concurrent renewal
 * or re-enrollment may have replaced it); whether it did.
 */
export async function promoteUnverifiedRouterCertificate(
  tx: Db,
  id: string,
  certPem: string,
  at: string,
): Promise<boolean> {
  const [result] = await typed(tx)
    .updateTable('routers')
    .set((eb) => ({
      fingerprint: eb.ref('unverified_fingerprint'),
      cert_pem: eb.ref('unverified_cert_pem'),
      unverified_fingerprint: null,
      unverified_cert_pem: null,
      is_verified: 1,
      updated_at: at,
    }))
    .where('id', '=', id)
    .where('unverified_cert_pem', '=', certPem)
    .where('unverified_fingerprint', 'is not', null)
    .execute();
  return Number(result?.numUpdatedRows ?? 0) > 0;
}

/** Back to unenrolled: no certificate, unverified. */
export async function clearRouterCertificate(tx: Db, id: string, at: string): Promise<void> {
  await typed(tx)
    .updateTable('routers')
    .set({
      fingerprint: null,
      cert_pem: null,
      unverified_fingerprint: null,
      unverified_cert_pem: null,
      is_verified: 0,
      updated_at: at,
    })
    .where('id', '=', id)
    .execute();
}

/** id, name and whether it is an edge router, for these routers. */
export async function routerNames(
  db: Db,
  ids: readonly string[],
): Promise<{ id: string; name: string; isEdge: boolean }[]> {
  if (ids.length === 0) return [];
  const rows = await typed(db).selectFrom('routers').select(['id', 'name', 'is_edge']).where('id', 'in', ids).execute();
  return rows.map((row) => ({ id: row.id, name: row.name, isEdge: row.is_edge === 1 }));
}
