// Keeps a policy's links in step with its roles: each changed side is re-evaluated into a delta against its
// membership, and only the delta (× the other side) touches the pair counts.
import { sql } from 'kysely';
import type { Db } from '../store/store.js';
import { matchingEntities } from './matching-entities.js';
import { applyPairDelta, movePairCounts, type PolicyState } from './pair-counts.js';
import type { PolicyKind, PolicySide } from './policy-kinds.js';
import { parseRoles } from './roles.js';
import { identitiesOfServicePolicies, touchServiceLists } from './service-lists.js';

/** A policy as the engine sees it: its semantic, type (service policies) and one role list per side field. */
export interface PolicyRoles extends PolicyState {
  semantic: unknown;
  roles: Readonly<Record<string, readonly string[] | null | undefined>>;
}

/**
 * Re-evaluates the sides whose roles (or the semantic) changed; `before` is absent on create. Sides are
 * applied one after the other, each against the other side's current membership, which counts every pair once.
 */
export async function syncPolicy(tx: Db, kind: PolicyKind, after: PolicyRoles, before: PolicyRoles | undefined, at: string): Promise<void> {
  if (before && kind.name === 'servicePolicy' && before.type !== after.type) {
    await movePairCounts(tx, kind, before, after);
    await touchPolicyIdentities(tx, kind, after.id, at);
  }
  for (const [index, side] of kind.sides.entries()) {
    const changed = !before || before.semantic !== after.semantic || !sameRoles(before.roles[side.field], after.roles[side.field]);
    if (changed) await syncSide(tx, kind, after, side, index, at);
  }
}

/** Deleting a policy: every pair it joined loses one count; membership rows go with the policy row. */
export async function unlinkPolicy(tx: Db, kind: PolicyKind, policy: PolicyRoles, at: string): Promise<void> {
  const emptied: PolicyRoles = { ...policy, roles: {} };
  await syncSide(tx, kind, emptied, kind.sides[0], 0, at);
}

async function syncSide(tx: Db, kind: PolicyKind, policy: PolicyRoles, side: PolicySide, index: number, at: string): Promise<void> {
  const changes = await computeDelta(tx, side, policy, matchingEntities(side.entity, parseRoles(policy.roles[side.field]), policy.semantic));
  if (changes === 0) return;
  if (index <= 1) {
    const granting = index as 0 | 1;
    await applyPairDelta(tx, kind, policy, granting, 'added');
    await applyPairDelta(tx, kind, policy, granting, 'removed');
  }
  if (kind.pairs.touchesServiceLists) {
    // A changed identity side touches those identities; any other side touches every identity of the policy.
    const identities = side.entity === 'identity' ? sql`SELECT entity_id AS id FROM policy_delta WHERE kind IN ('added', 'removed')` : undefined;
    await touchServiceLists(tx, identities ?? identitiesOfServicePolicies(sql`${policy.id}`), at);
  }
  const membership = sql.table(side.membershipTable);
  await sql`INSERT INTO ${membership} (policy_id, entity_id) SELECT ${policy.id}, entity_id FROM policy_delta WHERE kind = 'added'`.execute(tx);
  await sql`DELETE FROM ${membership} WHERE policy_id = ${policy.id}
    AND entity_id IN (SELECT entity_id FROM policy_delta WHERE kind = 'removed')`.execute(tx);
}

/** Fills policy_delta with 'added' and 'removed' entity ids; returns how many there are. */
async function computeDelta(tx: Db, side: PolicySide, policy: PolicyRoles, matching: ReturnType<typeof matchingEntities>): Promise<number> {
  const membership = sql.table(side.membershipTable);
  await sql`DELETE FROM policy_delta`.execute(tx);
  await sql`INSERT INTO policy_delta (kind, entity_id) SELECT DISTINCT 'new', m.id FROM (${matching}) m WHERE m.id IS NOT NULL`.execute(tx);
  await sql`INSERT INTO policy_delta (kind, entity_id) SELECT 'added', d.entity_id FROM policy_delta d
    WHERE d.kind = 'new' AND NOT EXISTS (SELECT 1 FROM ${membership} x WHERE x.policy_id = ${policy.id} AND x.entity_id = d.entity_id)`.execute(tx);
  await sql`INSERT INTO policy_delta (kind, entity_id) SELECT 'removed', x.entity_id FROM ${membership} x
    WHERE x.policy_id = ${policy.id} AND NOT EXISTS (SELECT 1 FROM policy_delta d WHERE d.kind = 'new' AND d.entity_id = x.entity_id)`.execute(tx);
  const row = await sql<{ n: number }>`SELECT count(*) AS n FROM policy_delta WHERE kind IN ('added', 'removed')`.execute(tx);
  return Number(row.rows[0]?.n ?? 0);
}

async function touchPolicyIdentities(tx: Db, kind: PolicyKind, policyId: string, at: string): Promise<void> {
  if (kind.pairs.touchesServiceLists) await touchServiceLists(tx, identitiesOfServicePolicies(sql`${policyId}`), at);
}

function sameRoles(a: readonly string[] | null | undefined, b: readonly string[] | null | undefined): boolean {
  const left = [...new Set(a ?? [])].sort();
  const right = [...new Set(b ?? [])].sort();
  return left.length === right.length && left.every((value, index) => value === right[index]);
}
