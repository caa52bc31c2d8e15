// An identity's `enrollment` block: its outstanding ott, ottca and updb enrollments
// (docs/reference/pki-enrollment-auth.md §3.9).
import type { IdentityEnrollmentRow } from '../../store/queries/identities.js';
import { ca as caDefinition } from '../ca/ca.definition.js';

/**
 * `{_links, entity, id, name}` of a CA, with the links its own detail has (docs/reference/http-conventions.md §6.2).
 */
function caRef(ca: NonNullable<IdentityEnrollmentRow['ca']>): Record<string, unknown> {
  const id = ca.id;
  const links: Record<string, { href: string }> = { self: { href: `./cas/${id}` } };
  if (!ca.isVerified) links.verify = { href: `./cas/${id}/verify` };
  if (ca.isAutoCaEnrollmentEnabled) links.jwt = { href: `./cas/${id}/jwt` };
  return { _links: links, entity: caDefinition.path, id, name: ca.name };
}

/**
 * The block of each identity, from its enrollments oldest first (identityExtras reads them with the page). Expired
 * enrollments are shown too, as stored: the admin sees the past `expiresAt` and can refresh it. Router enrollments
 * never appear (they have no identity).
 */
export function identityEnrollments(
  rows: readonly IdentityEnrollmentRow[],
): (identityId: string) => Record<string, unknown> {
  const blocks = new Map<string, Record<string, unknown>>();
  for (const row of rows) {
    const method = row.method;
    if (method !== 'ott' && method !== 'ottca' && method !== 'updb') continue;
    const block = blocks.get(row.identityId) ?? {};
    blocks.set(row.identityId, block);
    // One per method is the rule; should two exist, the newest wins.
    const entry: Record<string, unknown> = { expiresAt: row.expiresAt, id: row.id, jwt: row.jwt, token: row.token };
    if (method === 'ottca' && row.ca) Object.assign(entry, { ca: caRef(row.ca), caId: row.ca.id });
    block[method] = entry;
  }
  return (identityId) => blocks.get(identityId) ?? {};
}
