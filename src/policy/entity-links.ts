// Keeps links in step when an entity appears or its role attributes change: only the policies whose roles could
// mention it are looked at, through the role tables' value index — never a scan of all policies.
import type { Db } from '../store/store.js';
import { changeMemberships, membershipsOf, policiesSelecting } from '../store/queries/entity-policies.js';
import { applyPairDelta, servicePolicyType, setEntityDelta } from '../store/queries/policy-links.js';
import { policyKinds, type EntityKindName, type PolicyKind, type PolicySide } from '../store/queries/policy-tables.js';
import { touchPolicyChange } from '../store/queries/service-list-changes.js';

/** Re-evaluates every policy side of `entityKind` for one entity with its current attributes. */
export async function syncEntity(
  tx: Db,
  entityKind: EntityKindName,
  entityId: string,
  attributes: readonly string[] | null,
  at: string,
): Promise<void> {
  for (const kind of policyKinds) {
    for (const [index, side] of kind.sides.entries()) {
      if (side.entity === entityKind)
        await syncEntitySide(tx, kind, side, index, entityId, [...new Set(attributes ?? [])], at);
    }
  }
}

async function syncEntitySide(
  tx: Db,
  kind: PolicyKind,
  side: PolicySide,
  index: number,
  entityId: string,
  attributes: string[],
  at: string,
): Promise<void> {
  const matching = await policiesSelecting(tx, kind, side, entityId, attributes);
  const current = await membershipsOf(tx, side, entityId);
  const added = matching.filter((id) => !current.includes(id));
  const removed = current.filter((id) => !matching.includes(id));
  if (added.length === 0 && removed.length === 0) return;

  if (index === 0 || index === 1) {
    for (const [deltaKind, policies] of [
      ['added', added],
      ['removed', removed],
    ] as const) {
      for (const policyId of policies) {
        // The delta is this one entity; the policy's other side decides which pairs it gains or loses. (One
        // grouped statement for all the policies measured slower than these small cached ones, and far worse at p99.)
        await setEntityDelta(tx, side.entity, deltaKind, entityId);
        const type = kind.name === 'servicePolicy' ? await servicePolicyType(tx, policyId) : undefined;
        await applyPairDelta(tx, kind, { id: policyId, type }, index, deltaKind, at);
      }
    }
  }
  if (kind.pairs.touchesServiceLists) {
    const policies = [...added, ...removed];
    await touchPolicyChange(
      tx,
      side.entity,
      policies,
      side.entity === 'identity' ? { identities: [entityId] } : { servicePolicies: policies },
      at,
    );
  }
  await changeMemberships(tx, side, entityId, added, removed);
}
