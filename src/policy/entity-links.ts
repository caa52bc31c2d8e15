// Keeps links in step when an entity appears or its role attributes change: only the policies whose roles could
// mention it are looked at, through the role tables' value index — never a scan of all policies.
import type { Db } from '../store/store.js';
import { applyEntityPairDelta, changeMemberships, membershipsOf, policiesSelecting } from '../store/queries/policy-links.js';
import { policyKinds, type EntityKindName, type PolicyKind, type PolicySide } from '../store/queries/policy-tables.js';
import { touchServiceLists } from '../store/queries/service-lists.js';

/** Re-evaluates every policy side of `entityKind` for one entity with its current attributes. */
export async function syncEntity(tx: Db, entityKind: EntityKindName, entityId: string, attributes: readonly string[] | null, at: string): Promise<void> {
  for (const kind of policyKinds) {
    for (const [index, side] of kind.sides.entries()) {
      if (side.entity === entityKind) await syncEntitySide(tx, kind, side, index, entityId, [...new Set(attributes ?? [])], at);
    }
  }
}

async function syncEntitySide(tx: Db, kind: PolicyKind, side: PolicySide, index: number, entityId: string, attributes: string[], at: string): Promise<void> {
  const matching = await policiesSelecting(tx, kind, side, entityId, attributes);
  const current = await membershipsOf(tx, side, entityId);
  const added = matching.filter((id) => !current.includes(id));
  const removed = current.filter((id) => !matching.includes(id));
  if (added.length === 0 && removed.length === 0) return;

  if (index <= 1) {
    // The policies' other sides decide which pairs the entity gains or loses.
    await applyEntityPairDelta(tx, kind, index as 0 | 1, entityId, added, 'added');
    await applyEntityPairDelta(tx, kind, index as 0 | 1, entityId, removed, 'removed');
  }
  if (kind.pairs.touchesServiceLists) {
    await touchServiceLists(tx, side.entity === 'identity' ? { identities: [entityId] } : { servicePolicies: [...added, ...removed] }, at);
  }
  await changeMemberships(tx, side, entityId, added, removed);
}
