// The Router identity and the system edge router policy that a tunneler-enabled edge router brings with it.
import { ApiError } from '../../errors/api-error.js';
import type { EntityValues } from '../../crud/entity-rules.js';
import type { Db } from '../../store/store.js';
import { stripEntityReferences, syncEntity } from '../../policy/entity-links.js';
import { syncPolicy } from '../../policy/policy-links.js';
import { edgeRouterPolicyKind } from '../../store/queries/policy-tables.js';

const ROUTER_IDENTITY_TYPE = 'Router';

/** Upstream's name for the policy, `db/edge_router_store.go` getSystemEdgeRouterPolicyName. */
export function systemPolicyName(routerId: string): string {
  return `edge-router-${routerId}-system`;
}

/**
 * Keeps the router's identity and system policy in step with `isTunnelerEnabled`, inside the router's own write,
 * as upstream's `routerIdentityConstraint` (`db/edge_router_store.go`): false→true creates both, true→false
 * removes both, and a rename while enabled renames the identity. `before` is absent on create, `after` on delete.
 */
export async function syncTunnelerEntities(tx: Db, at: string, before?: EntityValues, after?: EntityValues): Promise<void> {
  const wasEnabled = before?.isTunnelerEnabled === true;
  const isEnabled = after?.isTunnelerEnabled === true;
  if (!wasEnabled && isEnabled) {
    await createTunnelerEntities(tx, after.id as string, after.name as string, at);
  } else if (wasEnabled && !isEnabled) {
    await removeTunnelerEntities(tx, before.id as string, at);
  } else if (wasEnabled && isEnabled && before.name !== after.name) {
    const id = after.id as string;
    const name = after.name as string;
    await requireFreeIdentityName(tx, id, name);
    await tx.updateTable('identities').set({ name, updated_at: at }).where('id', '=', id).where('type_id', '=', ROUTER_IDENTITY_TYPE).execute();
  }
}

/**
 * Identity id = router id, name = router name, type Router, marked system: it exists only for its router, which
 * alone creates, renames and removes it. The policy: id = router id, AnyOf, `@<id>` on both sides, system.
 */
async function createTunnelerEntities(tx: Db, routerId: string, name: string, at: string): Promise<void> {
  await requireFreeIdentityName(tx, routerId, name);
  const common = { id: routerId, created_at: at, updated_at: at, tags: '{}', is_system: 1 };
  await tx.insertInto('identities').values({ ...common, name, type_id: ROUTER_IDENTITY_TYPE }).execute();
  const roles = [`@${routerId}`];
  await tx
    .insertInto('edge_router_policies')
    .values({ ...common, name: systemPolicyName(routerId), semantic: 'AnyOf', identity_roles: JSON.stringify(roles), edge_router_roles: JSON.stringify(roles) })
    .execute();
  for (const table of ['edge_router_policy_identity_roles', 'edge_router_policy_edge_router_roles']) {
    await tx.insertInto(table).values(roles.map((value) => ({ entity_id: routerId, value }))).execute();
  }
  // The new identity joins policies that select it (#all), and the system policy links it to its router.
  await syncEntity(tx, 'identity', routerId, null, at);
  const policy = { id: routerId, semantic: 'AnyOf', roles: { identityRoles: roles, edgeRouterRoles: roles } };
  await syncPolicy(tx, edgeRouterPolicyKind, policy, undefined, at);
}

/** Removes both; harmless when the router never had them. Side-table rows go with ON DELETE CASCADE. */
export async function removeTunnelerEntities(tx: Db, routerId: string, at: string): Promise<void> {
  // The identity's links go with it (ON DELETE CASCADE); other policies' `@<id>` roles are stripped first.
  await stripEntityReferences(tx, 'identity', routerId, at);
  await tx.deleteFrom('edge_router_policies').where('id', '=', routerId).where('is_system', '=', 1).execute();
  await tx.deleteFrom('identities').where('id', '=', routerId).where('type_id', '=', ROUTER_IDENTITY_TYPE).execute();
}

/**
 * The identity shares the router's name, so another identity's name blocks it: answered as upstream's unique
 * index on the identities store answers, rather than as a failed insert.
 */
async function requireFreeIdentityName(tx: Db, routerId: string, name: string): Promise<void> {
  const holder = await tx.selectFrom('identities').select('id').where('name', '=', name).where('id', '!=', routerId).executeTakeFirst();
  if (holder) throw ApiError.invalidField('name', `duplicate value '${name}' in unique index on identities store`, name);
}
