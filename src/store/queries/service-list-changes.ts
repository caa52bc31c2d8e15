// Which identities' service lists a service policy change alters, decided as upstream's service events decide it
// (db/policy_common.go): an identity gains or loses Dial or Bind on a service (a pair count crossing 0), or the
// posture checks it answers for a service change (a policy with posture checks gains or loses it or services, or
// its checks change). A policy that selects an identity but grants it nothing new leaves its list alone.
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../store.js';
import { inTextList, ShapeCache } from '../prepared.js';
import type { EntityKindName } from './policy-tables.js';
import {
  markChangedStatement,
  markServiceLists,
  queuePostureRechecks,
  type ServiceListHolders,
} from './service-lists.js';

const shapes = new ShapeCache(100);

/** The identities' and the services' integer keys of the pairs a change touches (each a SELECT of `seq`), of a policy id. */
export type PairKeySets = (policyId: unknown) => [RawBuilder<unknown>, RawBuilder<unknown>];

/** How the pairs' counts are about to change: one up, one down, or one moved between columns (a type change). */
export type CountChange = { add: string } | { remove: string } | { move: readonly [from: string, to: string] };

/**
 * Before the counts of `identity_services` change: marks the identities for which some pair of the key sets is about
 * to cross 0 in a column, i.e. that gain or lose Dial or Bind on a service. Only the pairs the change touches are
 * looked at (each a primary key lookup), so the work follows the change, as the count update itself does.
 */
export async function markAccessCrossings(
  tx: Db,
  shape: string,
  policyId: string,
  keySets: PairKeySets,
  change: CountChange,
  at: string,
): Promise<void> {
  await shapes.run(tx, `${shape} crossings`, [policyId, at], (_q, [policy, time]) => {
    const [identities, services] = keySets(policy);
    const count = (column: string) => sql.ref(`p.${column}`);
    // A pair gains a count where none is stored yet or its column is 0; it loses its last one where the column is 1.
    const crossing =
      'add' in change
        ? sql`SELECT a.seq FROM (${identities}) a WHERE EXISTS (SELECT 1 FROM (${services}) b WHERE NOT EXISTS (
            SELECT 1 FROM identity_services p WHERE p.identity_seq = a.seq AND p.service_seq = b.seq AND ${count(change.add)} > 0))`
        : sql`SELECT p.identity_seq FROM identity_services p WHERE p.identity_seq IN (${identities}) AND p.service_seq IN (${services})
            AND ${'remove' in change ? sql`${count(change.remove)} = 1` : sql`(${count(change.move[0])} = 1 OR ${count(change.move[1])} = 0)`}`;
    return markChangedStatement(sql`SELECT id FROM identities WHERE seq IN (${crossing})`, time);
  });
}

/**
 * After service policies' selections changed on the `changed` side (undefined: their type), before their memberships
 * are written. The sessions of `holders` (the identities concerned) are queued for a posture recheck, as their access
 * may now rest on other policies. Their lists move only where a changed policy's posture checks are shown to them
 * (as the posture queries of the services it grants); gained and lost access is marked by markAccessCrossings.
 */
export async function touchPolicyChange(
  tx: Db,
  changed: EntityKindName | undefined,
  policyIds: readonly string[],
  holders: ServiceListHolders,
  at: string,
): Promise<void> {
  await queuePostureRechecks(tx, holders);
  // A changed service side means the policy grants services (before or after); a changed posture side means it has checks.
  const showing = await policiesShowingChecks(tx, policyIds, {
    checks: changed !== 'postureCheck',
    services: changed !== 'service',
  });
  if (showing.length === 0) return;
  await markServiceLists(tx, 'servicePolicies' in holders ? { servicePolicies: showing } : holders, at);
}

/** Of these service policies, those with posture checks and granting services, as far as each is required. */
async function policiesShowingChecks(
  tx: Db,
  policyIds: readonly string[],
  needs: { checks: boolean; services: boolean },
): Promise<string[]> {
  if (policyIds.length === 0) return [];
  if (!needs.checks && !needs.services) return [...policyIds];
  const rows = await shapes.run<{ id: string }>(
    tx,
    `showing checks ${needs.checks} ${needs.services}`,
    [policyIds],
    (q, [ids]) => {
      const checks = needs.checks
        ? sql`AND EXISTS (SELECT 1 FROM service_policy_posture_checks c WHERE c.policy_id = p.id)`
        : sql``;
      const services = needs.services
        ? sql`AND EXISTS (SELECT 1 FROM service_policy_services s WHERE s.policy_id = p.id)`
        : sql``;
      // `ids`: the policy ids or the shape's stand-in for them (src/store/prepared.ts), which binds as they would.
      return sql<{
        id: string;
      }>`SELECT p.id FROM service_policies p WHERE p.id IN ${inTextList(q, ids as readonly string[])} ${checks} ${services}`;
    },
  );
  return rows.map((row) => row.id);
}
