// An identity's `enrollment` block: its outstanding ott, ottca and updb enrollments (reference §3.9).
import type { Db } from '../../store/store.js';

type Row = Record<string, unknown>;

/** `{_links, entity, id, name}` of a CA, with the links its own detail has (http-conventions §6.2). */
function caRef(ca: Row): Record<string, unknown> {
  const id = ca.id as string;
  const links: Record<string, { href: string }> = { self: { href: `./cas/${id}` } };
  if (Number(ca.is_verified) !== 1) links.verify = { href: `./cas/${id}/verify` };
  if (Number(ca.is_auto_ca_enrollment_enabled) === 1) links.jwt = { href: `./cas/${id}/jwt` };
  return { _links: links, entity: 'cas', id, name: ca.name };
}

/**
 * The block for each of `identityIds`, read in two queries. Expired enrollments are shown too, as stored: the admin
 * sees the past `expiresAt` and can refresh it. Router enrollments never appear (they have no identity).
 */
export async function identityEnrollments(db: Db, identityIds: readonly string[]): Promise<(identityId: string) => Record<string, unknown>> {
  const rows = identityIds.length
    ? ((await db.selectFrom('enrollments').select(['id', 'identity_id', 'method', 'token', 'jwt', 'expires_at', 'ca_id'])
      .where('identity_id', 'in', identityIds).orderBy('created_at').execute()) as Row[])
    : [];
  const caIds = [...new Set(rows.map((row) => row.ca_id).filter((id): id is string => typeof id === 'string'))];
  const cas = caIds.length
    ? ((await db.selectFrom('cas').select(['id', 'name', 'is_verified', 'is_auto_ca_enrollment_enabled']).where('id', 'in', caIds).execute()) as Row[])
    : [];
  const caById = new Map(cas.map((ca) => [ca.id as string, ca]));
  const blocks = new Map<string, Record<string, unknown>>();
  for (const row of rows) {
    const method = row.method as string;
    if (method !== 'ott' && method !== 'ottca' && method !== 'updb') continue;
    const identityId = row.identity_id as string;
    const block = blocks.get(identityId) ?? {};
    blocks.set(identityId, block);
    // One per method is the rule; should two exist, the newest wins.
    const entry: Record<string, unknown> = { expiresAt: row.expires_at, id: row.id, jwt: row.jwt, token: row.token };
    const ca = method === 'ottca' ? caById.get(row.ca_id as string) : undefined;
    if (ca) Object.assign(entry, { ca: caRef(ca), caId: ca.id });
    block[method] = entry;
  }
  return (identityId) => blocks.get(identityId) ?? {};
}
