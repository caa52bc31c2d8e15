// A from-scratch evaluation of every policy (reference §1.3 and §2.4), in plain code, to check the maintained
// link tables against: the engine is right when both agree after any sequence of changes.
import assert from 'node:assert/strict';
import type { Store } from '../../src/store/store.js';

type Row = Record<string, unknown>;
const list = (value: unknown): string[] => (typeof value === 'string' ? (JSON.parse(value) as string[]) : []);

/** The selection rule of reference §1.3, written plainly: `@id`, `#all`, then AnyOf / AllOf over `#attr` roles. */
export function matches(roles: string[], semantic: unknown, id: string, attributes: string[]): boolean {
  const ids = roles.filter((r) => r.startsWith('@')).map((r) => r.slice(1));
  const attrs = roles.filter((r) => r.startsWith('#')).map((r) => r.slice(1));
  if (ids.includes(id) || attrs.includes('all')) return true;
  if (attrs.length === 0) return false;
  return semantic === 'AnyOf' ? attrs.some((a) => attributes.includes(a)) : attrs.every((a) => attributes.includes(a));
}

async function rows(store: Store, table: string): Promise<Row[]> {
  return store.read((db) => db.selectFrom(table).selectAll().execute() as Promise<Row[]>);
}

const key = (...parts: unknown[]) => parts.map(String).join('|');

export async function expectedLinks(store: Store) {
  const entities = {
    identity: await rows(store, 'identities'),
    service: await rows(store, 'services'),
    edgeRouter: (await rows(store, 'routers')).filter((r) => r.is_edge === 1),
    postureCheck: await rows(store, 'posture_checks'),
  };
  const select = (kind: keyof typeof entities, roles: string[], semantic: unknown) =>
    entities[kind].filter((e) => matches(roles, semantic, e.id as string, list(e.role_attributes))).map((e) => e.id as string);

  const membership: Record<string, Set<string>> = {};
  const add = (table: string, value: string) => (membership[table] ??= new Set()).add(value);
  const identityServices = new Map<string, { dial: number; bind: number }>();
  const identityRouters = new Map<string, number>();
  const serviceRouters = new Map<string, number>();

  for (const p of await rows(store, 'service_policies')) {
    const identities = select('identity', list(p.identity_roles), p.semantic);
    const services = select('service', list(p.service_roles), p.semantic);
    const checks = select('postureCheck', list(p.posture_check_roles), p.semantic);
    identities.forEach((i) => add('service_policy_identities', key(p.id, i)));
    services.forEach((s) => add('service_policy_services', key(p.id, s)));
    checks.forEach((c) => add('service_policy_posture_checks', key(p.id, c)));
    for (const i of identities) for (const s of services) {
      const pair = identityServices.get(key(i, s)) ?? { dial: 0, bind: 0 };
      if (p.type === 2) pair.bind++;
      else pair.dial++;
      identityServices.set(key(i, s), pair);
    }
  }
  for (const p of await rows(store, 'edge_router_policies')) {
    const identities = select('identity', list(p.identity_roles), p.semantic);
    const routers = select('edgeRouter', list(p.edge_router_roles), p.semantic);
    identities.forEach((i) => add('edge_router_policy_identities', key(p.id, i)));
    routers.forEach((r) => add('edge_router_policy_edge_routers', key(p.id, r)));
    for (const i of identities) for (const r of routers) identityRouters.set(key(i, r), (identityRouters.get(key(i, r)) ?? 0) + 1);
  }
  for (const p of await rows(store, 'service_edge_router_policies')) {
    const services = select('service', list(p.service_roles), p.semantic);
    const routers = select('edgeRouter', list(p.edge_router_roles), p.semantic);
    services.forEach((s) => add('service_edge_router_policy_services', key(p.id, s)));
    routers.forEach((r) => add('service_edge_router_policy_edge_routers', key(p.id, r)));
    for (const s of services) for (const r of routers) serviceRouters.set(key(s, r), (serviceRouters.get(key(s, r)) ?? 0) + 1);
  }
  return { membership, identityServices, identityRouters, serviceRouters };
}

/** Asserts that every link table holds exactly what a from-scratch evaluation computes. */
export async function assertLinksConsistent(store: Store, context = ''): Promise<void> {
  const expected = await expectedLinks(store);
  const membershipTables = [
    'service_policy_identities', 'service_policy_services', 'service_policy_posture_checks',
    'edge_router_policy_identities', 'edge_router_policy_edge_routers',
    'service_edge_router_policy_services', 'service_edge_router_policy_edge_routers',
  ];
  for (const table of membershipTables) {
    const actual = new Set((await rows(store, table)).map((r) => key(r.policy_id, r.entity_id)));
    assert.deepEqual([...actual].sort(), [...(expected.membership[table] ?? [])].sort(), `${context}: ${table}`);
  }
  const pairs = (await rows(store, 'identity_services')).map((r) => [key(r.identity_id, r.service_id), { dial: r.dial, bind: r.bind }] as const);
  assert.deepEqual(new Map(pairs.sort()), new Map([...expected.identityServices].sort()), `${context}: identity_services`);
  const routers = (await rows(store, 'identity_edge_routers')).map((r) => [key(r.identity_id, r.edge_router_id), r.count] as const);
  assert.deepEqual(new Map(routers.sort()), new Map([...expected.identityRouters].sort()), `${context}: identity_edge_routers`);
  const carried = (await rows(store, 'service_edge_routers')).map((r) => [key(r.service_id, r.edge_router_id), r.count] as const);
  assert.deepEqual(new Map(carried.sort()), new Map([...expected.serviceRouters].sort()), `${context}: service_edge_routers`);
}
