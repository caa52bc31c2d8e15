// The Router identity and the system edge router policy that a tunneler-enabled edge router brings with it.
import { ApiError } from '../../errors/api-error.js';
import type { EntityValues } from '../../crud/entity-rules.js';
import {
  deleteRouterIdentity,
  identityNamed,
  insertRouterIdentity,
  renameRouterIdentity,
} from '../../store/queries/identities.js';
import type { Db } from '../../store/store.js';
import { syncEntity } from '../../policy/entity-links.js';
import { stripEntityReferences } from '../../store/queries/entity-policies.js';
import { syncPolicy } from '../../policy/policy-links.js';
import { edgeRouterPolicyKind } from '../../store/queries/policy-tables.js';

/** Upstream's name for the policy, `db/edge_router_store.go` getSystemEdgeRouterPolicyName. */
export function systemPolicyName(routerId: string): string {
  return `edge-router-${routerId}-system`;
}

/**
 * Keeps the router's identity and system policy in step with `isTunnelerEnabled`, inside the router's own write,
 * as upstream's `routerIdentityConstraint` (`db/edge_router_store.go`): false→true creates both, true→false
 * removes both, and a rename while enabled renames the identity. `before` is absent on create, `after` on delete.
 */
export async function syncTunnelerEntities(
  tx: Db,
  at: string,
  before?: EntityValues,
  after?: EntityValues,
): Promise<void> {
  const wasEnabled = before?.isTunnelerEnabled === true;
  const isEnabled = after?.isTunnelerEnabled === true;
  if (!wasEnabled && isEnabled) {
    await createTunnelerEntities(tx, after.id, String(after.name), at);
  } else if (wasEnabled && !isEnabled) {
    await removeTunnelerEntities(tx, before.id, at);
  } else if (wasEnabled && isEnabled && before.name !== after.name) {
    const id = after.id;
    const name = String(after.name);
    await requireFreeIdentityName(tx, id, name);
    await renameRouterIdentity(tx, id, name, at);
  }
}

/**
 * Identity id = router id, name = router name, type Router, marked system: it exists only for its router, which
 * alone creates, renames and removes it. The policy: id = router id, AnyOf, `@<id>` on both sides, system.
 */
async function createTunnelerEntities(tx: Db, routerId: string, name: string, at: string): Promise<void> {
  await requireFreeIdentityName(tx, routerId, name);
  const roles = [`@${routerId}`];
  await insertRouterIdentity(tx, routerId, name, systemPolicyName(routerId), roles, at);
  // The new identity joins policies that select it (#all), and the system policy links it to its router.
  await syncEntity(tx, 'identity', routerId, null, at);
  const policy = { id: routerId, semantic: 'AnyOf', roles: { identityRoles: roles, edgeRouterRoles: roles } };
  await syncPolicy(tx, edgeRouterPolicyKind, policy, undefined, at);
}

/** Removes both; harmless when the router never had them. Side-table rows go with ON DELETE CASCADE. */
export async function removeTunnelerEntities(tx: Db, routerId: string, at: string): Promise<void> {
  // The identity's links go with it (ON DELETE CASCADE); other policies' `@<id>` roles are stripped first.
  await stripEntityReferences(tx, 'identity', routerId, at);
  await deleteRouterIdentity(tx, routerId);
}

/**
 * The identity shares the router's name, so another identity's name blocks it: answered as upstream's unique
 * index on the identities store answers, rather than as a failed insert.
 */
async function requireFreeIdentityName(tx: Db, routerId: string, name: string): Promise<void> {
  if (await identityNamed(tx, name, routerId))
    throw ApiError.invalidField('name', `duplicate value '${name}' in unique index on identities store`, name);
}
