// Reference-counted pairs: how many policies join each identity–service (dial, bind), identity–edge router and
// service–edge router pair. A delta on one side of a policy changes the counts of (delta × the other side).
import { sql } from 'kysely';
import type { Db } from '../store/store.js';
import type { PolicyKind } from './policy-kinds.js';

export interface PolicyState {
  id: string;
  /** Service policies' stored type (1 Dial, 2 Bind); absent for other kinds. */
  type?: unknown;
}

/**
 * Adds `sign` (+1 / -1) for every pair (entity in policy_delta[deltaKind] on side `sideIndex`) × (member of the
 * policy's other granting side), then drops pairs no policy joins any more.
 */
export async function applyPairDelta(tx: Db, kind: PolicyKind, policy: PolicyState, sideIndex: 0 | 1, deltaKind: 'added' | 'removed'): Promise<void> {
  const { table, columns, countColumn } = kind.pairs;
  const other = kind.sides[sideIndex === 0 ? 1 : 0];
  const [mine, theirs] = sideIndex === 0 ? [columns[0], columns[1]] : [columns[1], columns[0]];
  const count = sql.ref(countColumn(policy));
  const pairs = sql`SELECT d.entity_id AS mine, m.entity_id AS theirs FROM policy_delta d
    JOIN ${sql.table(other.membershipTable)} m ON m.policy_id = ${policy.id} WHERE d.kind = ${deltaKind}`;
  if (deltaKind === 'added') {
    await sql`INSERT INTO ${sql.table(table)} (${sql.ref(mine)}, ${sql.ref(theirs)}, ${count})
      SELECT p.mine, p.theirs, 1 FROM (${pairs}) p WHERE 1 = 1
      ON CONFLICT (${sql.ref(columns[0])}, ${sql.ref(columns[1])}) DO UPDATE SET ${count} = ${count} + 1`.execute(tx);
    return;
  }
  const affected = sql`(${sql.ref(mine)}, ${sql.ref(theirs)}) IN (SELECT p.mine, p.theirs FROM (${pairs}) p)`;
  await sql`UPDATE ${sql.table(table)} SET ${count} = ${count} - 1 WHERE ${affected}`.execute(tx);
  await sql`DELETE FROM ${sql.table(table)} WHERE ${affected} AND ${emptyPair(kind)}`.execute(tx);
}

/** A service policy's type changed: every pair it joins moves from one count to the other. */
export async function movePairCounts(tx: Db, kind: PolicyKind, before: PolicyState, after: PolicyState): Promise<void> {
  const from = sql.ref(kind.pairs.countColumn(before));
  const to = sql.ref(kind.pairs.countColumn(after));
  const [first, second] = kind.sides;
  const [c0, c1] = kind.pairs.columns;
  const members = sql`SELECT a.entity_id, b.entity_id FROM ${sql.table(first.membershipTable)} a
    JOIN ${sql.table(second.membershipTable)} b ON b.policy_id = a.policy_id WHERE a.policy_id = ${after.id}`;
  await sql`UPDATE ${sql.table(kind.pairs.table)} SET ${from} = ${from} - 1, ${to} = ${to} + 1
    WHERE (${sql.ref(c0)}, ${sql.ref(c1)}) IN (${members})`.execute(tx);
}

function emptyPair(kind: PolicyKind) {
  return kind.pairs.table === 'identity_services' ? sql`dial = 0 AND bind = 0` : sql`count = 0`;
}
