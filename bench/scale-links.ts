// Produces the scale model's link tables with the project's own engine: every seeded policy goes through
// syncPolicy as if it had just been created, many policies per transaction.
import { formatTimestamp } from '../src/lib/clock.js';
import { policyKinds, type PolicyKind } from '../src/store/queries/policy-tables.js';
import { countRows, selectMatching } from '../src/store/queries/table-rows.js';
import { syncPolicy, type PolicyRoles } from '../src/policy/policy-links.js';
import type { Db } from '../src/store/store.js';
import { withBenchStore } from './bench-store.js';

/** Policies per transaction: large enough that commits cost nothing, small enough to show progress. */
const POLICIES_PER_TRANSACTION = 100;

export const LINK_TABLES = [
  'service_policy_identities',
  'service_policy_services',
  'edge_router_policy_identities',
  'edge_router_policy_edge_routers',
  'service_edge_router_policy_services',
  'service_edge_router_policy_edge_routers',
  'identity_services',
  'identity_edge_routers',
  'service_edge_routers',
  'identity_service_updates',
] as const;

export interface LinkGeneration {
  ms: number;
  /** Time per policy kind, in ms. */
  msByKind: Record<string, number>;
  policies: number;
  rows: Record<string, number>;
}

type Progress = (line: string) => void;

export async function generateLinks(home: string, progress: Progress): Promise<LinkGeneration> {
  return withBenchStore(home, async (store) => {
    const started = performance.now();
    const msByKind: Record<string, number> = {};
    let policies = 0;
    for (const kind of policyKinds) {
      const kindStarted = performance.now();
      const all = await store.read((db) => readPolicies(db, kind));
      for (let from = 0; from < all.length; from += POLICIES_PER_TRANSACTION) {
        const batch = all.slice(from, from + POLICIES_PER_TRANSACTION);
        await store.transaction(async (tx) => {
          const at = formatTimestamp(new Date());
          for (const policy of batch) await syncPolicy(tx, kind, policy, undefined, at);
        });
        const done = Math.min(from + POLICIES_PER_TRANSACTION, all.length);
        if (done % 500 === 0 || done === all.length) {
          progress(
            `  ${kind.table}: ${done}/${all.length} linked (${((performance.now() - kindStarted) / 1000).toFixed(1)} s)`,
          );
        }
      }
      msByKind[kind.name] = performance.now() - kindStarted;
      policies += all.length;
    }
    const ms = performance.now() - started;
    const rows: Record<string, number> = {};
    for (const table of LINK_TABLES) {
      rows[table] = await store.read((db) => countRows(db, table));
    }
    return { ms, msByKind, policies, rows };
  });
}

/** Every policy of one kind in the shape the engine's rules hand to syncPolicy (see src/entities/shared/policy-rules.ts). */
async function readPolicies(db: Db, kind: PolicyKind): Promise<PolicyRoles[]> {
  const rows = (await selectMatching(db, kind.table, {})).sort((a, b) =>
    (a.name as string) < (b.name as string) ? -1 : 1,
  );
  return rows.map((row) => ({
    id: row.id as string,
    semantic: row.semantic ?? 'AllOf',
    type: row.type,
    roles: Object.fromEntries(kind.sides.map((side) => [side.field, parseList(row[side.column])])),
  }));
}

function parseList(raw: unknown): string[] | null {
  return typeof raw === 'string' ? (JSON.parse(raw) as string[]) : null;
}
