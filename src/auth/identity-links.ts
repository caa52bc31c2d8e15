// The link set of an identity, which every identity reference carries in full (docs/reference/http-conventions.md
// §6.2–6.3).
import { identityNames } from '../store/queries/identities.js';
import type { Db } from '../store/store.js';

// The sub-lists' URL segments are the API's words; three equal a table's name without naming it.
/* eslint-disable storage/no-storage-words */
const subLists = [
  'edge-router-policies',
  'edge-routers',
  'service-policies',
  'services',
  'posture-data',
  'failed-service-requests',
  'authenticators',
  'enrollments',
  'service-configs',
] as const;
/* eslint-enable storage/no-storage-words */

export function identityLinks(id: string, authPolicyId: string): Record<string, string> {
  const links: Record<string, string> = { self: `./identities/${id}` };
  for (const name of subLists) links[name] = `./identities/${id}/${name}`;
  links['auth-policies'] = `./auth-policies/${authPolicyId}`;
  return links;
}

export function identityRef(identity: { id: string; name: string; authPolicyId: string }): Record<string, unknown> {
  const links = Object.fromEntries(
    Object.entries(identityLinks(identity.id, identity.authPolicyId)).map(([k, href]) => [k, { href }]),
  );
  return { _links: links, entity: 'identities', id: identity.id, name: identity.name };
}

/** References for many identities in one query; a missing identity still gets a reference by id. */
export async function identityRefs(db: Db, ids: readonly string[]): Promise<(id: string) => Record<string, unknown>> {
  const byId = new Map((await identityNames(db, [...new Set(ids)])).map((row) => [row.id, row]));
  return (id) => identityRef(byId.get(id) ?? { id, name: '', authPolicyId: 'default' });
}
