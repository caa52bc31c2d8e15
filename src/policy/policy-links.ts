// Keeps a policy's links in step with its roles: each changed side is re-evaluated into a delta against its
// membership, and only the delta (× the other side) touches the pair counts (the SQL: src/store/queries/policy-links.ts).
import type { Db } from '../store/store.js';
import {
  applyMembershipDelta,
  applyPairDelta,
  computePolicyDelta,
  movePairCounts,
  type PolicyState,
} from '../store/queries/policy-links.js';
import type { PolicyKind, PolicySide } from '../store/queries/policy-tables.js';
import { touchPolicyChange } from '../store/queries/service-list-changes.js';
import { parseRoles } from './roles.js';

/** A policy as the engine sees it: its semantic, type (service policies) and one role list per side field. */
export interface PolicyRoles extends PolicyState {
  semantic: unknown;
  roles: Readonly<Record<string, readonly string[] | null | undefined>>;
}

/**
 * Re-evaluates the sides whose roles (or the semantic) changed; `before` is absent on create. Sides are
 * applied one after the other, each against the other side's current membership, which counts every pair once.
 */
export async function syncPolicy(
  tx: Db,
  kind: PolicyKind,
  after: PolicyRoles,
  before: PolicyRoles | undefined,
  at: string,
): Promise<void> {
  if (before && kind.name === 'servicePolicy' && before.type !== after.type) {
    await movePairCounts(tx, kind, before, after, at);
    if (kind.pairs.touchesServiceLists)
      await touchPolicyChange(tx, undefined, [after.id], { servicePolicies: [after.id] }, at);
  }
  for (const [index, side] of kind.sides.entries()) {
    const changed =
      !before || before.semantic !== after.semantic || !sameRoles(before.roles[side.field], after.roles[side.field]);
    if (changed) await syncSide(tx, kind, after, side, index, at);
  }
}

/** Deleting a policy: every pair it joined loses one count; membership rows go with the policy row. */
export async function unlinkPolicy(tx: Db, kind: PolicyKind, policy: PolicyRoles, at: string): Promise<void> {
  const emptied: PolicyRoles = { ...policy, roles: {} };
  await syncSide(tx, kind, emptied, kind.sides[0], 0, at);
}

async function syncSide(
  tx: Db,
  kind: PolicyKind,
  policy: PolicyRoles,
  side: PolicySide,
  index: number,
  at: string,
): Promise<void> {
  const changes = await computePolicyDelta(tx, side, policy.id, {
    ...parseRoles(policy.roles[side.field]),
    semantic: policy.semantic,
  });
  if (changes.added + changes.removed === 0) return;
  if (index === 0 || index === 1) {
    const granting = index;
    if (changes.added > 0) await applyPairDelta(tx, kind, policy, granting, 'added', at);
    if (changes.removed > 0) await applyPairDelta(tx, kind, policy, granting, 'removed', at);
  }
  // The identities concerned: those of the delta on an identity side, every identity of the policy on any other.
  if (kind.pairs.touchesServiceLists) {
    await touchPolicyChange(
      tx,
      side.entity,
      [policy.id],
      side.entity === 'identity' ? { policyDelta: true } : { servicePolicies: [policy.id] },
      at,
    );
  }
  await applyMembershipDelta(tx, side, policy.id);
}

function sameRoles(a: readonly string[] | null | undefined, b: readonly string[] | null | undefined): boolean {
  const left = [...new Set(a ?? [])].sort();
  const right = [...new Set(b ?? [])].sort();
  return left.length === right.length && left.every((value, index) => value === right[index]);
}
