// The policy engine's link tables, kept in step incrementally: a policy side's membership delta (in the scratch
// table policy_delta, which only this module touches), the reference-counted pairs it feeds, and the sessions a
// lost pair takes with it. src/policy/ decides what to re-evaluate; this module does it in SQL. One entity's side
// (the policies that select or hold it) is entity-policies.ts.
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../store.js';
import { preparedQuery, ShapeCache } from '../prepared.js';
import { entityKinds, type EntityKindName, type PolicyKind, type PolicySide } from './policy-tables.js';
import { markAccessCrossings } from './service-list-changes.js';

/**
 * What a role list selects (docs/reference/policies-services-sessions.md §1.3): `@id`s, `#all`, and attributes all-of
 * or any-of.
 */
export interface RoleSelection {
  ids: readonly string[];
  attributes: readonly string[];
  all: boolean;
  semantic: unknown;
}

export interface PolicyState {
  id: string;
  /** Service policies' stored type (1 Dial, 2 Bind); absent for other kinds. */
  type?: unknown;
}

export type DeltaKind = 'added' | 'removed';

/**
 * The statements an entity's attribute change runs (a few per policy that gains or loses it) are built once per
 * shape (kind, side, delta kind, count column) and run with new arguments: building and compiling them cost more
 * than running them. A policy's own change runs few, large statements and builds them per change.
 */
const shapes = new ShapeCache(500);
const clearDelta = preparedQuery(() => sql`DELETE FROM policy_delta`);
const deltaSize = async (tx: Db, deltaKind: DeltaKind): Promise<number> =>
  Number((await selectDeltaSize(tx, deltaKind))[0]?.n ?? 0);
const selectDeltaSize = preparedQuery(
  (_q, deltaKind: DeltaKind) => sql<{ n: number }>`SELECT count(*) AS n FROM policy_delta WHERE kind = ${deltaKind}`,
);
const selectServicePolicyType = preparedQuery((q, policyId: string) =>
  q.selectFrom('service_policies').select('type').where('id', '=', policyId),
);
const selectAnySession = preparedQuery(
  () => sql<{ any: number | boolean }>`SELECT EXISTS (SELECT 1 FROM sessions) AS any`,
);

/**
 * `SELECT id ...` of every entity of `kind` the roles select. Each part is an index lookup (ids by primary key,
 * attributes through the attribute table's (value, entity_id) index) except `#all`, which selects everything.
 */
function matchingEntities(kind: EntityKindName, roles: RoleSelection): RawBuilder<unknown> {
  const entity = entityKinds[kind];
  const table = sql.table(entity.table);
  const restrict = 'flag' in entity ? sql` AND ${sql.ref(entity.flag)} = 1` : sql``;
  const parts: RawBuilder<unknown>[] = [];
  if (roles.all) parts.push(sql`SELECT id FROM ${table} WHERE 1 = 1${restrict}`);
  if (roles.ids.length > 0) parts.push(sql`SELECT id FROM ${table} WHERE id IN (${sql.join(roles.ids)})${restrict}`);
  const attributes = [...new Set(roles.attributes)];
  if (attributes.length > 0) {
    const attributeTable = sql.table(entity.attributeTable);
    const values = sql.join(attributes);
    parts.push(
      roles.semantic === 'AnyOf'
        ? sql`SELECT DISTINCT entity_id AS id FROM ${attributeTable} WHERE value IN (${values})`
        : sql`SELECT entity_id AS id FROM ${attributeTable} WHERE value IN (${values}) GROUP BY entity_id HAVING count(*) = ${attributes.length}`,
    );
  }
  // An empty role list selects nothing.
  return parts.length > 0 ? sql.join(parts, sql` UNION `) : sql`SELECT NULL AS id WHERE 1 = 0`;
}

/**
 * Fills the delta with the entities `roles` now select that the side's membership lacks ('added') and the members
 * they no longer select ('removed'); returns how many of each there are.
 */
export async function computePolicyDelta(
  tx: Db,
  side: PolicySide,
  policyId: string,
  roles: RoleSelection,
): Promise<Record<DeltaKind, number>> {
  const membership = sql.table(side.membershipTable);
  const entity = entityKinds[side.entity];
  // The added and removed entities' integer keys, for the pair tables (entities without one feed no pairs).
  const keyOf = (alias: string) =>
    entity.keyed
      ? { key: sql`e.seq`, join: sql`JOIN ${sql.table(entity.table)} e ON e.id = ${sql.ref(`${alias}.entity_id`)}` }
      : { key: sql`NULL`, join: sql`` };
  const [added, removed] = [keyOf('d'), keyOf('x')];
  await clearDelta(tx);
  await sql`INSERT INTO policy_delta (kind, entity_id) SELECT DISTINCT 'new', m.id FROM (${matchingEntities(side.entity, roles)}) m WHERE m.id IS NOT NULL`.execute(
    tx,
  );
  await sql`INSERT INTO policy_delta (kind, entity_id, entity_seq) SELECT 'added', d.entity_id, ${added.key} FROM policy_delta d ${added.join}
    WHERE d.kind = 'new' AND NOT EXISTS (SELECT 1 FROM ${membership} x WHERE x.policy_id = ${policyId} AND x.entity_id = d.entity_id)`.execute(
    tx,
  );
  await sql`INSERT INTO policy_delta (kind, entity_id, entity_seq) SELECT 'removed', x.entity_id, ${removed.key} FROM ${membership} x ${removed.join}
    WHERE x.policy_id = ${policyId} AND NOT EXISTS (SELECT 1 FROM policy_delta d WHERE d.kind = 'new' AND d.entity_id = x.entity_id)`.execute(
    tx,
  );
  return { added: await deltaSize(tx, 'added'), removed: await deltaSize(tx, 'removed') };
}

/** The delta is this one entity, added to or removed from policies (an entity's attributes changed). */
export async function setEntityDelta(
  tx: Db,
  entityKind: EntityKindName,
  deltaKind: DeltaKind,
  entityId: string,
): Promise<void> {
  await clearDelta(tx);
  await shapes.run(tx, `entity delta ${entityKind} ${deltaKind}`, [entityId], (_q, [id]) => {
    return sql`INSERT INTO policy_delta (kind, entity_id, entity_seq) SELECT ${deltaKind}, id, seq FROM ${sql.table(entityKinds[entityKind].table)} WHERE id = ${id}`;
  });
}

/** A service policy's stored type (1 Dial, 2 Bind). */
export async function servicePolicyType(tx: Db, policyId: string): Promise<number | undefined> {
  const [row] = await selectServicePolicyType(tx, policyId);
  return row?.type;
}

/** The integer keys (`seq`) of the side's members: the pair tables' keys. */
function memberKeys(side: PolicySide, policyId: unknown): RawBuilder<unknown> {
  return sql`SELECT e.seq FROM ${sql.table(side.membershipTable)} m JOIN ${sql.table(entityKinds[side.entity].table)} e ON e.id = m.entity_id WHERE m.policy_id = ${policyId}`;
}

/** Writes the delta into the side's membership: 'added' entities join the policy, 'removed' ones leave it. */
export async function applyMembershipDelta(tx: Db, side: PolicySide, policyId: string): Promise<void> {
  const membership = sql.table(side.membershipTable);
  await sql`INSERT INTO ${membership} (policy_id, entity_id) SELECT ${policyId}, entity_id FROM policy_delta WHERE kind = 'added'`.execute(
    tx,
  );
  await sql`DELETE FROM ${membership} WHERE policy_id = ${policyId}
    AND entity_id IN (SELECT entity_id FROM policy_delta WHERE kind = 'removed')`.execute(tx);
}

/**
 * Adds one ('added') or takes one ('removed') from the policy's count of every pair (entity in
 * policy_delta[deltaKind] on side `sideIndex`) × (member of the policy's other granting side); a pair no policy
 * joins any more is dropped. Identities whose Dial or Bind on a service appears or goes have their lists marked at
 * `at`.
 *
 * The pairs are never listed one by one: they are the cross product of two key sets, one per pair column, put in
 * key order. That lets SQLite walk the pair table's primary key once, in order, instead of once per entity of the
 * delta (a 100k-pair change used to sweep the identity-ordered table once per added service).
 */
export async function applyPairDelta(
  tx: Db,
  kind: PolicyKind,
  policy: PolicyState,
  sideIndex: 0 | 1,
  deltaKind: DeltaKind,
  at: string,
): Promise<void> {
  const { table, columns } = kind.pairs;
  const other = kind.sides[sideIndex === 0 ? 1 : 0];
  const countColumn = kind.pairs.countColumn(policy);
  const count = sql.ref(countColumn);
  const [c0, c1] = [sql.ref(columns[0]), sql.ref(columns[1])];
  const shape = `pairs ${kind.name} ${sideIndex} ${countColumn} ${deltaKind}`;
  // The pairs' two key sets, the policy id bound as the shape's one argument.
  const keySets = (policyId: unknown): [RawBuilder<unknown>, RawBuilder<unknown>] => {
    const delta = sql`SELECT entity_seq AS seq FROM policy_delta WHERE kind = ${deltaKind}`;
    const members = memberKeys(other, policyId);
    return sideIndex === 0 ? [delta, members] : [members, delta];
  };
  if (kind.pairs.touchesServiceLists) {
    await markAccessCrossings(
      tx,
      shape,
      policy.id,
      keySets,
      deltaKind === 'added' ? { add: countColumn } : { remove: countColumn },
      at,
    );
  }

  if (deltaKind === 'added') {
    // Rows are produced in the pair table's key order, so each insert or count bump lands next to the previous one.
    // `WHERE true` is required: without it SQLite would read ON CONFLICT as a join constraint of the SELECT. The
    // count is qualified by its table, which PostgreSQL needs to tell it from the proposed row's.
    await shapes.run(tx, shape, [policy.id], (_q, [policyId]) => {
      const [first, second] = keySets(policyId);
      return sql`INSERT INTO ${sql.table(table)} (${c0}, ${c1}, ${count})
        SELECT a.seq, b.seq, 1 FROM (${first}) a CROSS JOIN (${second}) b WHERE true
        ORDER BY a.seq, b.seq
        ON CONFLICT (${c0}, ${c1}) DO UPDATE SET ${count} = ${sql.ref(`${table}.${countColumn}`)} + 1`;
    });
    return;
  }
  // Two IN lists on the two key columns: SQLite seeks the primary key for each (first, second) in key order.
  const affected = (policyId: unknown) => {
    const [first, second] = keySets(policyId);
    return sql`${c0} IN (${first}) AND ${c1} IN (${second})`;
  };
  // Pairs that only this grant of this policy kept alive go first, in one delete, so the update below does
  // not rewrite rows that are about to disappear (on widening and narrowing most pairs are of this kind).
  const deleted = await shapes.execute(tx, `${shape} delete`, [policy.id], (_q, [policyId]) => {
    return sql`DELETE FROM ${sql.table(table)} WHERE ${affected(policyId)} AND ${onlyGrant(kind, policy)}`;
  });
  // What is left of the affected pairs is still joined by something else: it just loses this policy's count.
  // When the delete took every affected pair, nothing is left, and the update's second walk is spared.
  const [members] = await shapes.run<{ n: number }>(
    tx,
    `member count ${other.membershipTable}`,
    [policy.id],
    (_q, [policyId]) => {
      return sql<{ n: number }>`SELECT count(*) AS n FROM (${memberKeys(other, policyId)}) m`;
    },
  );
  const affectedPairs = (await deltaSize(tx, deltaKind)) * Number(members?.n ?? 0);
  if (Number(deleted.numAffectedRows ?? 0) < affectedPairs) {
    await shapes.run(
      tx,
      `${shape} update`,
      [policy.id],
      (_q, [policyId]) => sql`UPDATE ${sql.table(table)} SET ${count} = ${count} - 1 WHERE ${affected(policyId)}`,
    );
  }
  if (table === 'identity_services') await dropSessionsWithoutAccess(tx, shape, policy.id, keySets);
}

/**
 * A service policy's type changed: every pair it joins moves from one count to the other (lists marked as in
 * applyPairDelta).
 */
export async function movePairCounts(
  tx: Db,
  kind: PolicyKind,
  before: PolicyState,
  after: PolicyState,
  at: string,
): Promise<void> {
  const [fromColumn, toColumn] = [kind.pairs.countColumn(before), kind.pairs.countColumn(after)];
  const [from, to] = [sql.ref(fromColumn), sql.ref(toColumn)];
  const keySets = (policyId: unknown): [RawBuilder<unknown>, RawBuilder<unknown>] => [
    memberKeys(kind.sides[0], policyId),
    memberKeys(kind.sides[1], policyId),
  ];
  if (kind.pairs.touchesServiceLists)
    await markAccessCrossings(
      tx,
      `move ${kind.name} ${fromColumn}`,
      after.id,
      keySets,
      { move: [fromColumn, toColumn] },
      at,
    );
  const [first, second] = keySets(after.id);
  const [c0, c1] = kind.pairs.columns;
  // The policy's pairs are (first side's members × second side's members); two IN lists walk the key in order.
  await sql`UPDATE ${sql.table(kind.pairs.table)} SET ${from} = ${from} - 1, ${to} = ${to} + 1
    WHERE ${sql.ref(c0)} IN (${first}) AND ${sql.ref(c1)} IN (${second})`.execute(tx);
  if (kind.pairs.table === 'identity_services')
    await dropSessionsWithoutAccess(tx, `move ${kind.name}`, after.id, keySets);
}

/** The pair is joined by exactly one grant, the one of `policy`'s count column, and nothing else. */
function onlyGrant(kind: PolicyKind, policy: PolicyState): RawBuilder<unknown> {
  if (kind.pairs.table !== 'identity_services') return sql`count = 1`;
  return kind.pairs.countColumn(policy) === 'bind' ? sql`bind = 1 AND dial = 0` : sql`dial = 1 AND bind = 0`;
}

/**
 * Sessions follow the access they were created under (docs/reference/policies-services-sessions.md §6.4): deletes the
 * sessions among (identities × services) whose type the identity may no longer use. The two key sets are those of the
 * pair counts just lowered (`keySets` of the policy id, in a shape named after the caller's), so the work follows the
 * change, not the number of sessions. Admins keep theirs, as upstream exempts them (`model/session_manager.go` via the
 * access-lost event handler).
 */
async function dropSessionsWithoutAccess(
  tx: Db,
  shape: string,
  policyId: string,
  keySets: (policyId: unknown) => [RawBuilder<unknown>, RawBuilder<unknown>],
): Promise<void> {
  const [any] = await selectAnySession(tx);
  if (!any?.any) return;
  await shapes.run(tx, `${shape} drop sessions`, [policyId], (_q, [bound]) => {
    const [identityKeys, serviceKeys] = keySets(bound);
    return sql`DELETE FROM sessions WHERE identity_id IN (SELECT id FROM identities WHERE seq IN (${identityKeys}))
    AND service_id IN (SELECT id FROM services WHERE seq IN (${serviceKeys}))
    AND NOT EXISTS (SELECT 1 FROM identity_services p
      WHERE p.identity_seq = (SELECT seq FROM identities WHERE id = sessions.identity_id) AND p.service_seq = (SELECT seq FROM services WHERE id = sessions.service_id)
      AND (CASE sessions.type WHEN 'Bind' THEN p.bind ELSE p.dial END) > 0)
    AND NOT EXISTS (SELECT 1 FROM identities i WHERE i.id = sessions.identity_id AND (i.is_admin = 1 OR i.is_default_admin = 1))`;
  });
}
