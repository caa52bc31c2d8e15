// Seeds the scale model's entities and policies straight into the controller's SQLite file (controller stopped),
// with the rows and role side tables the API would write; links are left to the engine (bench/scale-links.ts).
import Database from 'better-sqlite3';
import { hashPassword } from '../src/auth/password.js';
import { newBase62Id, newShortId } from '../src/lib/ids.js';
import {
  FIVE_PERCENT,
  byteOrder,
  edgeRouterPolicyAt,
  fivePercentPolicy,
  routerAttributesFor,
  routerName,
  scaleIdentities,
  serviceAttributesFor,
  serviceEdgeRouterPolicyAt,
  serviceName,
  servicePolicyAt,
  type ScaleModel,
  type SeededPolicy,
} from './scale-model.js';

const BATCH = 5_000;

export interface ScaleSeeding {
  ms: number;
  /** Rows written per entity kind. */
  rows: Record<string, number>;
  /** Ids the measurements need. */
  ids: { typical: string; heavy: string; changed: string; fivePercentPolicy: string };
}

type Progress = (line: string) => void;

export async function seedScaleModel(dbFile: string, model: ScaleModel, progress: Progress): Promise<ScaleSeeding> {
  const started = performance.now();
  // Hashed before the transaction: argon2 is asynchronous, better-sqlite3 transactions are not.
  const password = await hashPassword(scaleIdentities.password);
  const database = new Database(dbFile);
  try {
    const now = new Date().toISOString();
    const rows: Record<string, number> = {};
    const inBatches = (kind: string, count: number, write: (index: number) => void) => {
      const batch = database.transaction((from: number, to: number) => {
        for (let index = from; index < to; index++) write(index);
      });
      for (let from = 0; from < count; from += BATCH) {
        batch(from, Math.min(from + BATCH, count));
        if (count > BATCH) progress(`  ${kind}: ${Math.min(from + BATCH, count)}/${count}`);
      }
      rows[kind] = count;
    };
    const setRows = (table: string) => database.prepare(`INSERT INTO ${table} (entity_id, value) VALUES (?, ?)`);

    rows.fivePercentIdentities = markFivePercent(database);
    const ids = database.transaction(() => seedBenchIdentities(database, now, password))();

    const insertService = database.prepare(
      `INSERT INTO services (id, created_at, updated_at, tags, is_system, name, terminator_strategy, role_attributes,
         configs, encryption_required, max_idle_time_millis)
       VALUES (?, ?, ?, '{}', 0, ?, 'smartrouting', ?, NULL, 1, 0)`,
    );
    const serviceAttribute = setRows('service_role_attributes');
    inBatches('services', model.services, (index) => {
      const id = newBase62Id();
      const attributes = serviceAttributesFor(model, index);
      insertService.run(id, now, now, serviceName(index), JSON.stringify(attributes));
      for (const attribute of attributes) serviceAttribute.run(id, attribute);
    });

    const insertRouter = database.prepare(
      `INSERT INTO routers (id, created_at, updated_at, tags, is_system, name, is_edge, role_attributes)
       VALUES (?, ?, ?, '{}', 0, ?, 1, ?)`,
    );
    const routerAttribute = setRows('router_role_attributes');
    inBatches('edge routers', model.edgeRouters, (index) => {
      const id = newShortId();
      const attributes = routerAttributesFor(index);
      insertRouter.run(id, now, now, routerName(index), JSON.stringify(attributes));
      for (const attribute of attributes) routerAttribute.run(id, attribute);
    });

    const servicePolicies = policyWriter(database, 'service_policies', 'service_policy', ['identity_roles', 'service_roles'], now);
    inBatches('service policies', model.servicePolicies, (index) => servicePolicies(servicePolicyAt(model, index)));
    const fivePercentPolicyId = database.transaction(() => servicePolicies(fivePercentPolicy(false)))();
    rows['service policies'] = model.servicePolicies + 1;
    const edgeRouterPolicies = policyWriter(database, 'edge_router_policies', 'edge_router_policy', ['identity_roles', 'edge_router_roles'], now);
    inBatches('edge router policies', model.edgeRouterPolicies, (index) => edgeRouterPolicies(edgeRouterPolicyAt(index)));
    const serviceEdgeRouterPolicies = policyWriter(
      database,
      'service_edge_router_policies',
      'service_edge_router_policy',
      ['service_roles', 'edge_router_roles'],
      now,
    );
    inBatches('service edge router policies', model.serviceEdgeRouterPolicies, (index) =>
      serviceEdgeRouterPolicies(serviceEdgeRouterPolicyAt(model, index)),
    );
    database.pragma('wal_checkpoint(TRUNCATE)');
    return { ms: performance.now() - started, rows, ids: { ...ids, fivePercentPolicy: fivePercentPolicyId } };
  } finally {
    database.close();
  }
}

/** Every 20th bench identity gains the 5% attribute (it sorts after `attr-…`, so appending keeps the set sorted). */
function markFivePercent(database: Database.Database): number {
  const { identityAttribute, identityStride } = FIVE_PERCENT;
  // 'bench-identity-' is 15 characters: the index starts at the 16th.
  const selected = `name LIKE 'bench-identity-%' AND CAST(substr(name, 16) AS INTEGER) % ${identityStride} = 0`;
  return database.transaction(() => {
    database.prepare(`INSERT INTO identity_role_attributes (entity_id, value) SELECT id, ? FROM identities WHERE ${selected}`).run(identityAttribute);
    const update = database.prepare(`UPDATE identities SET role_attributes = json_insert(role_attributes, '$[#]', ?) WHERE ${selected}`);
    return update.run(identityAttribute).changes;
  })();
}

/** The heavy identity, and updb authenticators for it and the typical identity; returns the measured ids. */
function seedBenchIdentities(database: Database.Database, now: string, password: { hash: string; salt: string }) {
  const { typical, heavy, changed } = scaleIdentities;
  const heavyId = newShortId();
  database
    .prepare(
      `INSERT INTO identities (id, created_at, updated_at, tags, is_system, name, type_id, is_admin, is_default_admin,
         role_attributes, auth_policy_id, default_hosting_cost, default_hosting_precedence,
         service_hosting_costs, service_hosting_precedences)
       VALUES (?, ?, ?, '{}', 0, ?, 'Default', 0, 0, ?, 'default', 0, 'default', '{}', '{}')`,
    )
    .run(heavyId, now, now, heavy.name, JSON.stringify(heavy.attributes));
  const heavyAttribute = database.prepare(`INSERT INTO identity_role_attributes (entity_id, value) VALUES (?, ?)`);
  for (const attribute of heavy.attributes) heavyAttribute.run(heavyId, attribute);

  const idOf = (name: string) => {
    const row = database.prepare(`SELECT id FROM identities WHERE name = ?`).get(name) as { id: string } | undefined;
    if (!row) throw new Error(`identity ${name} was not seeded`);
    return row.id;
  };
  const typicalId = idOf(typical.name);
  const insertAuthenticator = database.prepare(
    `INSERT INTO authenticators (id, created_at, updated_at, tags, is_system, identity_id, method, username, password_hash, password_salt)
     VALUES (?, ?, ?, '{}', 0, ?, 'updb', ?, ?, ?)`,
  );
  for (const [identityId, username] of [[typicalId, typical.username], [heavyId, heavy.username]] as const) {
    insertAuthenticator.run(newBase62Id(), now, now, identityId, username, password.hash, password.salt);
  }
  return { typical: typicalId, heavy: heavyId, changed: idOf(changed.name) };
}

/** Writes one policy row and its role side tables (`<prefix>_<column>`); returns the policy's id. */
function policyWriter(database: Database.Database, table: string, prefix: string, roleColumns: string[], now: string) {
  const hasType = table === 'service_policies';
  const columns = ['id', 'created_at', 'updated_at', 'name', 'semantic', ...(hasType ? ['type'] : []), ...roleColumns];
  const insert = database.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
  const roleRows = roleColumns.map((column) => database.prepare(`INSERT INTO ${prefix}_${column} (entity_id, value) VALUES (?, ?)`));
  return (policy: SeededPolicy): string => {
    const id = newBase62Id();
    const roles = roleColumns.map((column) => [...(policy.roles[column] ?? [])].sort(byteOrder));
    const typeValue = hasType ? [policy.type ?? 1] : [];
    insert.run(id, now, now, policy.name, policy.semantic, ...typeValue, ...roles.map((list) => (list.length ? JSON.stringify(list) : null)));
    roles.forEach((list, index) => list.forEach((role) => roleRows[index]!.run(id, role)));
    return id;
  };
}
