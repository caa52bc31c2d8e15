// Checks the engine's link tables at scale against a from-scratch evaluation, as test/support/policy-oracle.ts
// does for small models: exactly for a sample of identities and for every service–edge router pair, and in total
// for the identity–service counts (the whole oracle would hold 6M pairs in memory).
import Database from 'better-sqlite3';
import { identityName } from './seed-identities.js';
import { scaleIdentities } from './scale-model.js';
// The same plain rule the tests' oracle uses, so the bench checks the engine against one definition.
import { matches } from '../test/support/policy-oracle.js';

export interface LinkCheck {
  ms: number;
  sampledIdentities: number;
  /** Pairs compared: the sample's identity–service and identity–edge router pairs, every service–edge router pair. */
  comparedPairs: number;
  /** Σ(dial + bind) over identity_services against Σ over service policies of |identities| × |services|. */
  countTotals: { stored: number; fromMemberships: number };
  mismatches: string[];
}

type Row = Record<string, unknown>;
const list = (value: unknown): string[] => (typeof value === 'string' ? (JSON.parse(value) as string[]) : []);

const SAMPLE = 40;

export function verifyLinks(dbFile: string, identities: number): LinkCheck {
  const started = performance.now();
  const database = new Database(dbFile, { readonly: true });
  try {
    const all = (query: string, ...params: unknown[]) => database.prepare(query).all(...params) as Row[];
    const entities = (table: string, where = '') =>
      all(`SELECT id, role_attributes FROM ${table} ${where}`).map((r) => ({ id: r.id as string, attributes: list(r.role_attributes) }));
    const services = entities('services');
    const routers = entities('routers', 'WHERE is_edge = 1');
    const select = (from: typeof services, roles: unknown, semantic: unknown) =>
      from.filter((e) => matches(list(roles), semantic, e.id, e.attributes)).map((e) => e.id);
    const memo = new Map<string, string[]>();
    const selectOnce = (key: string, compute: () => string[]) => memo.get(key) ?? memo.set(key, compute()).get(key)!;

    const names = [scaleIdentities.typical.name, scaleIdentities.heavy.name, scaleIdentities.changed.name];
    for (let i = 0; i < SAMPLE; i++) names.push(identityName(Math.floor((i * identities) / SAMPLE)));
    const sample = all(`SELECT id, role_attributes FROM identities WHERE name IN (${names.map(() => '?').join(', ')})`, ...names);
    const mismatches: string[] = [];
    let comparedPairs = 0;
    const compare = (what: string, expected: Map<string, string>, stored: Map<string, string>) => {
      comparedPairs += Math.max(expected.size, stored.size);
      for (const [pair, value] of expected) if (stored.get(pair) !== value) mismatches.push(`${what} ${pair}: expected ${value}, stored ${stored.get(pair) ?? 'none'}`);
      for (const [pair, value] of stored) if (!expected.has(pair)) mismatches.push(`${what} ${pair}: not expected, stored ${value}`);
    };

    const servicePolicies = all(`SELECT id, type, semantic, identity_roles, service_roles FROM service_policies`);
    const edgeRouterPolicies = all(`SELECT id, semantic, identity_roles, edge_router_roles FROM edge_router_policies`);
    for (const identity of sample) {
      const id = identity.id as string;
      const attributes = list(identity.role_attributes);
      const grants = new Map<string, { dial: number; bind: number }>();
      for (const p of servicePolicies.filter((p) => matches(list(p.identity_roles), p.semantic, id, attributes))) {
        for (const service of selectOnce(`sp:${String(p.id)}`, () => select(services, p.service_roles, p.semantic))) {
          const counts = grants.get(service) ?? { dial: 0, bind: 0 };
          counts[p.type === 2 ? 'bind' : 'dial']++;
          grants.set(service, counts);
        }
      }
      const expectedServices = new Map([...grants].map(([service, c]) => [service, `${c.dial}/${c.bind}`]));
      const storedServices = new Map(all(`SELECT service_id, dial, bind FROM identity_services WHERE identity_id = ?`, id).map((r) => [r.service_id as string, `${String(r.dial)}/${String(r.bind)}`]));
      compare(`identity_services ${id}`, expectedServices, storedServices);

      const routerCounts = new Map<string, number>();
      for (const p of edgeRouterPolicies.filter((p) => matches(list(p.identity_roles), p.semantic, id, attributes))) {
        for (const router of selectOnce(`erp:${String(p.id)}`, () => select(routers, p.edge_router_roles, p.semantic))) routerCounts.set(router, (routerCounts.get(router) ?? 0) + 1);
      }
      const storedRouters = new Map(all(`SELECT edge_router_id, count FROM identity_edge_routers WHERE identity_id = ?`, id).map((r) => [r.edge_router_id as string, String(r.count)]));
      compare(`identity_edge_routers ${id}`, new Map([...routerCounts].map(([r, n]) => [r, String(n)])), storedRouters);
    }

    const carried = new Map<string, number>();
    for (const p of all(`SELECT id, semantic, service_roles, edge_router_roles FROM service_edge_router_policies`)) {
      const carriedRouters = select(routers, p.edge_router_roles, p.semantic);
      for (const service of select(services, p.service_roles, p.semantic)) {
        for (const router of carriedRouters) carried.set(`${service}|${router}`, (carried.get(`${service}|${router}`) ?? 0) + 1);
      }
    }
    const storedCarried = new Map(all(`SELECT service_id, edge_router_id, count FROM service_edge_routers`).map((r) => [`${String(r.service_id)}|${String(r.edge_router_id)}`, String(r.count)]));
    compare('service_edge_routers', new Map([...carried].map(([k, n]) => [k, String(n)])), storedCarried);

    const total = (query: string) => Number((database.prepare(query).get() as { n: number | null }).n ?? 0);
    const countTotals = {
      stored: total(`SELECT sum(dial + bind) AS n FROM identity_services`),
      fromMemberships: total(`SELECT sum(i.n * s.n) AS n
        FROM (SELECT policy_id, count(*) AS n FROM service_policy_identities GROUP BY policy_id) i
        JOIN (SELECT policy_id, count(*) AS n FROM service_policy_services GROUP BY policy_id) s USING (policy_id)`),
    };
    if (countTotals.stored !== countTotals.fromMemberships) mismatches.push(`identity_services totals: ${countTotals.stored} ≠ ${countTotals.fromMemberships}`);
    return { ms: performance.now() - started, sampledIdentities: sample.length, comparedPairs, countTotals, mismatches };
  } finally {
    database.close();
  }
}
