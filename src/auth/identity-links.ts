// The link set of an identity, which every identity reference carries in full (docs/reference/http-conventions.md
// §6.2–6.3).
import { identityNames } from '../store/queries/identities.js';
import type { Db } from '../store/store.js';

/**
 * The links an identity carries. Written out, as every definition writes its links: they are the API's URL segments
 * (`services`, `enrollments` here are paths, whatever the store calls its tables).
 */
export function identityLinks(id: string, authPolicyId: string): Record<string, string> {
  const base = `./identities/${id}`;
  return {
    self: base,
    'edge-router-policies': `${base}/edge-router-policies`,
    'edge-routers': `${base}/edge-routers`,
    'service-policies': `${base}/service-policies`,
    services: `${base}/services`,
    'posture-data': `${base}/posture-data`,
    'failed-service-requests': `${base}/failed-service-requests`,
    authenticators: `${base}/authenticators`,
    enrollments: `${base}/enrollments`,
    'service-configs': `${base}/service-configs`,
    'auth-policies': `./auth-policies/${authPolicyId}`,
  };
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
