// Reference-counted pairs: how many policies join each identity–service (dial, bind), identity–edge router and
// service–edge router pair. A delta on one side of a policy changes the counts of (delta × the other side).
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../store/store.js';
import type { PolicyKind, PolicySide } from './policy-kinds.js';
import { dropSessionsWithoutAccess } from './session-access.js';

export interface PolicyState {
  id: string;
  /** Service policies' stored type (1 Dial, 2 Bind); absent for other kinds. */
  type?: unknown;
}

/**
 * Adds one ('added') or takes one ('removed') from the policy's count of every pair (entity in
 * policy_delta[deltaKind] on side `sideIndex`) × (member of the policy's other granting side); a pair no policy
 * joins any more is dropped.
 *
 * The pairs are never listed one by one: they are the cross product of two id sets, one per pair column, each
 * read in its index order. That lets SQLite walk the pair table's primary key once, in order, instead of once per
 * entity of the delta (a 100k-pair change used to sweep the identity-ordered table once per added service).
 */
export async function applyPairDelta(tx: Db, kind: PolicyKind, policy: PolicyState, sideIndex: 0 | 1, deltaKind: 'added' | 'removed'): Promise<void> {
  const { table, columns } = kind.pairs;
  const other = kind.sides[sideIndex === 0 ? 1 : 0];
  // Both sets come out sorted by entity_id: policy_delta's key is (kind, entity_id), a membership's (policy_id, entity_id).
  const delta = sql`SELECT entity_id FROM policy_delta WHERE kind = ${deltaKind}`;
  const members = sql`SELECT entity_id FROM ${sql.table(other.membershipTable)} WHERE policy_id = ${policy.id}`;
  const [first, second] = sideIndex === 0 ? [delta, members] : [members, delta];
  const count = sql.ref(kind.pairs.countColumn(policy));
  const [c0, c1] = [sql.ref(columns[0]), sql.ref(columns[1])];

  if (deltaKind === 'added') {
    // Rows are produced in the pair table's key order (first column's set outside, second's inside; both sorted,
    // so SQLite needs no sort step), and each insert or count bump lands next to the previous one.
    // `WHERE true` is required: without it SQLite would read ON CONFLICT as a join constraint of the SELECT.
    await sql`INSERT INTO ${sql.table(table)} (${c0}, ${c1}, ${count})
      SELECT a.entity_id, b.entity_id, 1 FROM (${first}) a CROSS JOIN (${second}) b WHERE true
      ORDER BY a.entity_id, b.entity_id
      ON CONFLICT (${c0}, ${c1}) DO UPDATE SET ${count} = ${count} + 1`.execute(tx);
    return;
  }
  // Two IN lists on the two key columns: SQLite seeks the primary key for each (first, second) in key order.
  const affected = sql`${c0} IN (${first}) AND ${c1} IN (${second})`;
  // Pairs that only this grant of this policy kept alive go first, in one delete, so the update below does
  // not rewrite rows that are about to disappear (on widening and narrowing most pairs are of this kind).
  await sql`DELETE FROM ${sql.table(table)} WHERE ${affected} AND ${onlyGrant(kind, policy)}`.execute(tx);
  // What is left of the affected pairs is still joined by something else: it just loses this policy's count.
  await sql`UPDATE ${sql.table(table)} SET ${count} = ${count} - 1 WHERE ${affected}`.execute(tx);
  if (table === 'identity_services') await dropSessionsWithoutAccess(tx, first, second);
}

/** A service policy's type changed: every pair it joins moves from one count to the other. */
export async function movePairCounts(tx: Db, kind: PolicyKind, before: PolicyState, after: PolicyState): Promise<void> {
  const from = sql.ref(kind.pairs.countColumn(before));
  const to = sql.ref(kind.pairs.countColumn(after));
  const membersOf = (side: PolicySide) => sql`SELECT entity_id FROM ${sql.table(side.membershipTable)} WHERE policy_id = ${after.id}`;
  const [first, second] = [membersOf(kind.sides[0]), membersOf(kind.sides[1])];
  const [c0, c1] = kind.pairs.columns;
  // The policy's pairs are (first side's members × second side's members); two IN lists walk the key in order.
  await sql`UPDATE ${sql.table(kind.pairs.table)} SET ${from} = ${from} - 1, ${to} = ${to} + 1
    WHERE ${sql.ref(c0)} IN (${first}) AND ${sql.ref(c1)} IN (${second})`.execute(tx);
  if (kind.pairs.table === 'identity_services') await dropSessionsWithoutAccess(tx, first, second);
}

/** The pair is joined by exactly one grant, the one of `policy`'s count column, and nothing else. */
function onlyGrant(kind: PolicyKind, policy: PolicyState): RawBuilder<unknown> {
  if (kind.pairs.table !== 'identity_services') return sql`count = 1`;
  return kind.pairs.countColumn(policy) === 'bind' ? sql`bind = 1 AND dial = 0` : sql`dial = 1 AND bind = 0`;
}
