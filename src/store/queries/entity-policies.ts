// One entity's side of the policy links (docs/reference/policies-services-sessions.md §1.3): the policies whose
// roles select it, the memberships that hold it, and its `@id` taken out of every policy's roles when it is deleted.
// The deltas and pair counts a membership change feeds are policy-links.ts's.
import { sql } from 'kysely';
import type { Db } from '../store.js';
import { inTextList, ShapeCache } from '../prepared.js';
import { policyKinds, type EntityKindName, type PolicyKind, type PolicySide } from './policy-tables.js';
import { parseJsonValue, stringList } from '../../lib/json-value.js';

/**
 * An entity's attribute change runs these few statements per policy side, built once per shape (kind, side, and
 * whether attributes are asked about): three policy kinds of two sides make some thirty shapes.
 */
const shapes = new ShapeCache(100);
/** A shape's stand-in for a list of text values, typed as the list it stands for. */
const textList = (arg: unknown) => arg as readonly string[];

/**
 * The policies whose roles on this side select the entity (docs/reference/policies-services-sessions.md §1.3): `@id` or
 * `#all`; or AnyOf with one of its attributes; or AllOf with at least one attribute role and every attribute role among
 * its attributes.
 */
export async function policiesSelecting(
  tx: Db,
  kind: PolicyKind,
  side: PolicySide,
  entityId: string,
  attributes: readonly string[],
): Promise<string[]> {
  const direct = [`@${entityId}`, '#all'];
  const attributeRoles = attributes.map((a) => `#${a}`);
  const shape = `selecting ${kind.name} ${side.roleTable} ${attributeRoles.length > 0 ? 'attributes' : 'direct'}`;
  const rows = await shapes.run<{ id: string }>(
    tx,
    shape,
    [direct, [...direct, ...attributeRoles], attributeRoles],
    (q, [directRoles, candidates, attributeList]) => {
      const roles = sql.table(side.roleTable);
      const byAttribute = attributeRoles.length
        ? sql`OR (p.semantic = 'AnyOf' AND EXISTS (SELECT 1 FROM ${roles} r WHERE r.entity_id = p.id AND r.value IN ${inTextList(q, textList(attributeList))}))
         OR (p.semantic <> 'AnyOf'
             AND NOT EXISTS (SELECT 1 FROM ${roles} r WHERE r.entity_id = p.id AND substr(r.value, 1, 1) = '#' AND r.value NOT IN ${inTextList(q, textList(attributeList))}))`
        : sql``;
      return sql<{ id: string }>`SELECT p.id FROM ${sql.table(kind.table)} p
      WHERE p.id IN (SELECT entity_id FROM ${roles} WHERE value IN ${inTextList(q, textList(candidates))})
        AND (EXISTS (SELECT 1 FROM ${roles} r WHERE r.entity_id = p.id AND r.value IN ${inTextList(q, textList(directRoles))}) ${byAttribute})`;
    },
  );
  return rows.map((row) => row.id);
}

/** The policies whose membership on this side holds the entity now. */
export async function membershipsOf(tx: Db, side: PolicySide, entityId: string): Promise<string[]> {
  const rows = await shapes.run<{ policy_id: string }>(
    tx,
    `memberships ${side.membershipTable}`,
    [entityId],
    (_q, [id]) => {
      return sql<{
        policy_id: string;
      }>`SELECT policy_id FROM ${sql.table(side.membershipTable)} WHERE entity_id = ${id}`;
    },
  );
  return rows.map((row) => row.policy_id);
}

/** The entity joins these policies' membership on this side and leaves those. */
export async function changeMemberships(
  tx: Db,
  side: PolicySide,
  entityId: string,
  joined: readonly string[],
  left: readonly string[],
): Promise<void> {
  const membership = sql.table(side.membershipTable);
  if (joined.length > 0) {
    // `l.*` is the list's one column, whatever the store names it.
    await shapes.run(tx, `join ${side.membershipTable}`, [joined, entityId], (q, [policies, id]) => {
      return sql`INSERT INTO ${membership} (policy_id, entity_id) SELECT l.*, ${id} FROM ${inTextList(q, textList(policies))} l`;
    });
  }
  if (left.length > 0) {
    await shapes.run(tx, `leave ${side.membershipTable}`, [entityId, left], (q, [id, policies]) => {
      return sql`DELETE FROM ${membership} WHERE entity_id = ${id} AND policy_id IN ${inTextList(q, textList(policies))}`;
    });
  }
}

/**
 * Before an entity is deleted: `@<id>` is stripped from the roles of every policy that names it, as upstream does
 * (no re-evaluation needed: the entity's own links go with it through ON DELETE CASCADE).
 */
export async function stripEntityReferences(
  tx: Db,
  entityKind: EntityKindName,
  entityId: string,
  at: string,
): Promise<void> {
  const role = `@${entityId}`;
  for (const kind of policyKinds) {
    for (const side of kind.sides) {
      if (side.entity !== entityKind) continue;
      const roleTable = sql.table(side.roleTable);
      const policies = (
        await sql<{ entity_id: string }>`SELECT entity_id FROM ${roleTable} WHERE value = ${role}`.execute(tx)
      ).rows;
      for (const { entity_id: policyId } of policies) {
        const row = await sql<{
          roles: string | null;
        }>`SELECT ${sql.ref(side.column)} AS roles FROM ${sql.table(kind.table)} WHERE id = ${policyId}`.execute(tx);
        const remaining = (stringList(parseJsonValue(row.rows[0]?.roles ?? '[]')) ?? []).filter((r) => r !== role);
        await sql`UPDATE ${sql.table(kind.table)} SET ${sql.ref(side.column)} = ${remaining.length ? JSON.stringify(remaining) : null}, updated_at = ${at}
          WHERE id = ${policyId}`.execute(tx);
      }
      await sql`DELETE FROM ${roleTable} WHERE value = ${role}`.execute(tx);
    }
  }
}
