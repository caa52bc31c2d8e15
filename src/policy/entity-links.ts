// Keeps links in step when an entity appears or its role attributes change: only the policies whose roles could
// mention it are looked at, through the role tables' value index — never a scan of all policies.
import { sql } from 'kysely';
import type { Db } from '../store/store.js';
import { applyPairDelta } from './pair-counts.js';
import { policyKinds, type EntityKindName, type PolicyKind, type PolicySide } from './policy-kinds.js';
import { identitiesOfServicePolicies, touchServiceLists } from './service-lists.js';

/** Re-evaluates every policy side of `entityKind` for one entity with its current attributes. */
export async function syncEntity(tx: Db, entityKind: EntityKindName, entityId: string, attributes: readonly string[] | null, at: string): Promise<void> {
  for (const kind of policyKinds) {
    for (const [index, side] of kind.sides.entries()) {
      if (side.entity === entityKind) await syncEntitySide(tx, kind, side, index, entityId, [...new Set(attributes ?? [])], at);
    }
  }
}

async function syncEntitySide(tx: Db, kind: PolicyKind, side: PolicySide, index: number, entityId: string, attributes: string[], at: string): Promise<void> {
  const membership = sql.table(side.membershipTable);
  const matching = await matchingPolicies(tx, kind, side, entityId, attributes);
  const current = (await sql<{ policy_id: string }>`SELECT policy_id FROM ${membership} WHERE entity_id = ${entityId}`.execute(tx)).rows.map((r) => r.policy_id);
  const added = matching.filter((id) => !current.includes(id));
  const removed = current.filter((id) => !matching.includes(id));
  if (added.length === 0 && removed.length === 0) return;

  await sql`DELETE FROM policy_delta`.execute(tx);
  for (const [deltaKind, policies] of [['added', added], ['removed', removed]] as const) {
    for (const policyId of policies) {
      if (index <= 1) {
        // The delta is this one entity; the policy's other side decides which pairs it gains or loses.
        await sql`INSERT OR IGNORE INTO policy_delta (kind, entity_id) VALUES (${deltaKind}, ${entityId})`.execute(tx);
        const type = kind.name === 'servicePolicy' ? await policyType(tx, policyId) : undefined;
        await applyPairDelta(tx, kind, { id: policyId, type }, index as 0 | 1, deltaKind);
        await sql`DELETE FROM policy_delta`.execute(tx);
      }
    }
  }
  if (kind.pairs.touchesServiceLists) {
    const identities = side.entity === 'identity' ? sql`SELECT ${entityId} AS id` : identitiesOfServicePolicies(sql.join([...added, ...removed]));
    await touchServiceLists(tx, identities, at);
  }
  if (added.length > 0) {
    await tx.insertInto(side.membershipTable).values(added.map((id) => ({ policy_id: id, entity_id: entityId }))).execute();
  }
  if (removed.length > 0) {
    await sql`DELETE FROM ${membership} WHERE entity_id = ${entityId} AND policy_id IN (${sql.join(removed)})`.execute(tx);
  }
}

/**
 * The policies whose roles on this side select the entity (reference §1.3): `@id` or `#all`; or AnyOf with one of
 * its attributes; or AllOf with at least one attribute role and every attribute role among its attributes.
 */
async function matchingPolicies(tx: Db, kind: PolicyKind, side: PolicySide, entityId: string, attributes: string[]): Promise<string[]> {
  const roles = sql.table(side.roleTable);
  const direct = [`@${entityId}`, '#all'];
  const attributeRoles = attributes.map((a) => `#${a}`);
  const candidates = sql.join([...direct, ...attributeRoles]);
  const byAttribute = attributeRoles.length
    ? sql`OR (p.semantic = 'AnyOf' AND EXISTS (SELECT 1 FROM ${roles} r WHERE r.entity_id = p.id AND r.value IN (${sql.join(attributeRoles)})))
       OR (p.semantic <> 'AnyOf'
           AND NOT EXISTS (SELECT 1 FROM ${roles} r WHERE r.entity_id = p.id AND substr(r.value, 1, 1) = '#' AND r.value NOT IN (${sql.join(attributeRoles)})))`
    : sql``;
  const rows = await sql<{ id: string }>`SELECT p.id FROM ${sql.table(kind.table)} p
    WHERE p.id IN (SELECT entity_id FROM ${roles} WHERE value IN (${candidates}))
      AND (EXISTS (SELECT 1 FROM ${roles} r WHERE r.entity_id = p.id AND r.value IN (${sql.join(direct)})) ${byAttribute})`.execute(tx);
  return rows.rows.map((row) => row.id);
}

async function policyType(tx: Db, policyId: string): Promise<unknown> {
  const row = await tx.selectFrom('service_policies').select('type').where('id', '=', policyId).executeTakeFirst();
  return row?.type;
}

/**
 * Before an entity is deleted: `@<id>` is stripped from the roles of every policy that names it, as upstream does
 * (no re-evaluation needed: the entity's own links go with it through ON DELETE CASCADE).
 */
export async function stripEntityReferences(tx: Db, entityKind: EntityKindName, entityId: string, at: string): Promise<void> {
  const role = `@${entityId}`;
  for (const kind of policyKinds) {
    for (const side of kind.sides) {
      if (side.entity !== entityKind) continue;
      const roleTable = sql.table(side.roleTable);
      const policies = (await sql<{ entity_id: string }>`SELECT entity_id FROM ${roleTable} WHERE value = ${role}`.execute(tx)).rows;
      for (const { entity_id: policyId } of policies) {
        const row = await sql<{ roles: string | null }>`SELECT ${sql.ref(side.column)} AS roles FROM ${sql.table(kind.table)} WHERE id = ${policyId}`.execute(tx);
        const remaining = (JSON.parse(row.rows[0]?.roles ?? '[]') as string[]).filter((r) => r !== role);
        await sql`UPDATE ${sql.table(kind.table)} SET ${sql.ref(side.column)} = ${remaining.length ? JSON.stringify(remaining) : null}, updated_at = ${at}
          WHERE id = ${policyId}`.execute(tx);
      }
      await sql`DELETE FROM ${roleTable} WHERE value = ${role}`.execute(tx);
    }
  }
}
