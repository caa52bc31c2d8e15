// An identity's `enrollment` block: its outstanding ott, ottca and updb enrollments (reference §3.9).
import { casForEnrollments } from '../../store/queries/cas.js';
import { enrollmentsOfIdentities } from '../../store/queries/enrollments.js';
import type { Db } from '../../store/store.js';

/** `{_links, entity, id, name}` of a CA, with the links its own detail has (http-conventions §6.2). */
function caRef(ca: Awaited<ReturnType<typeof casForEnrollments>>[number]): Record<string, unknown> {
  const id = ca.id;
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
  const rows = await enrollmentsOfIdentities(db, identityIds);
  const caIds = [...new Set(rows.map((row) => row.caId).filter((id): id is string => id !== null))];
  const caById = new Map((await casForEnrollments(db, caIds)).map((ca) => [ca.id, ca]));
  const blocks = new Map<string, Record<string, unknown>>();
  for (const row of rows) {
    const method = row.method;
    if (method !== 'ott' && method !== 'ottca' && method !== 'updb') continue;
    const identityId = row.identityId!;
    const block = blocks.get(identityId) ?? {};
    blocks.set(identityId, block);
    // One per method is the rule; should two exist, the newest wins.
    const entry: Record<string, unknown> = { expiresAt: row.expiresAt, id: row.id, jwt: row.jwt, token: row.token };
    const ca = method === 'ottca' && row.caId !== null ? caById.get(row.caId) : undefined;
    if (ca) Object.assign(entry, { ca: caRef(ca), caId: ca.id });
    block[method] = entry;
  }
  return (identityId) => blocks.get(identityId) ?? {};
}
