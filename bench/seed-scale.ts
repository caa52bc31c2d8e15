// Seeds the scale model's entities and policies straight into the controller's store (controller stopped; SQLite
// or PostgreSQL, through the store's query modules), with the rows and role side tables the API would write; links
// are left to the engine (bench/scale-links.ts).
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
import { insertRows, selectRows, updateRows, type Row } from '../src/store/queries/table-rows.js';
import type { TableName, Store } from '../src/store/store.js';
import { slices, withBenchStore } from './bench-store.js';

const BATCH = 5_000;

export interface ScaleSeeding {
  ms: number;
  /** Rows written per entity kind. */
  rows: Record<string, number>;
  /** Ids the measurements need. */
  ids: { typical: string; heavy: string; changed: string; fivePercentPolicy: string };
}

type Progress = (line: string) => void;

export async function seedScaleModel(home: string, model: ScaleModel, progress: Progress): Promise<ScaleSeeding> {
  const started = performance.now();
  // Hashed before any transaction: argon2 is slow, and the store's write lock is held for a transaction's length.
  const password = await hashPassword(scaleIdentities.password);
  return withBenchStore(home, async (store) => {
    const now = new Date().toISOString();
    const rows: Record<string, number> = {};
    const inBatches = async (kind: string, count: number, write: (index: number, add: Add) => void) => {
      for (let from = 0; from < count; from += BATCH) {
        const to = Math.min(from + BATCH, count);
        await writeBatch(store, (add) => {
          for (let index = from; index < to; index++) write(index, add);
        });
        if (count > BATCH) progress(`  ${kind}: ${to}/${count}`);
      }
      rows[kind] = count;
    };

    rows.fivePercentIdentities = await markFivePercent(store);
    const ids = await seedBenchIdentities(store, now, password);

    await inBatches('services', model.services, (index, add) => {
      const id = newBase62Id();
      const attributes = serviceAttributesFor(model, index);
      add('services', {
        id,
        created_at: now,
        updated_at: now,
        name: serviceName(index),
        terminator_strategy: 'smartrouting',
        role_attributes: JSON.stringify(attributes),
        configs: null,
        encryption_required: 1,
        max_idle_time_millis: 0,
      });
      for (const value of attributes) add('service_role_attributes', { entity_id: id, value });
    });
    await inBatches('edge routers', model.edgeRouters, (index, add) => {
      const id = newShortId();
      const attributes = routerAttributesFor(index);
      add('routers', {
        id,
        created_at: now,
        updated_at: now,
        name: routerName(index),
        is_edge: 1,
        role_attributes: JSON.stringify(attributes),
      });
      for (const value of attributes) add('router_role_attributes', { entity_id: id, value });
    });

    const servicePolicies = policyWriter(
      'service_policies',
      'service_policy',
      ['identity_roles', 'service_roles'],
      now,
    );
    await inBatches('service policies', model.servicePolicies, (index, add) =>
      servicePolicies(servicePolicyAt(model, index), add),
    );
    let fivePercentPolicyId = '';
    await writeBatch(store, (add) => (fivePercentPolicyId = servicePolicies(fivePercentPolicy(false), add)));
    rows['service policies'] = model.servicePolicies + 1;
    const edgeRouterPolicies = policyWriter(
      'edge_router_policies',
      'edge_router_policy',
      ['identity_roles', 'edge_router_roles'],
      now,
    );
    await inBatches('edge router policies', model.edgeRouterPolicies, (index, add) =>
      edgeRouterPolicies(edgeRouterPolicyAt(index), add),
    );
    const serviceEdgeRouterPolicies = policyWriter(
      'service_edge_router_policies',
      'service_edge_router_policy',
      ['service_roles', 'edge_router_roles'],
      now,
    );
    await inBatches('service edge router policies', model.serviceEdgeRouterPolicies, (index, add) =>
      serviceEdgeRouterPolicies(serviceEdgeRouterPolicyAt(model, index), add),
    );
    return { ms: performance.now() - started, rows, ids: { ...ids, fivePercentPolicy: fivePercentPolicyId } };
  });
}

/** Collects rows per table for one transaction. */
type Add = (table: TableName, row: Row) => void;

async function writeBatch(store: Store, fill: (add: Add) => void): Promise<void> {
  const byTable = new Map<TableName, Row[]>();
  fill((table, row) => {
    const list = byTable.get(table) ?? [];
    list.push(row);
    byTable.set(table, list);
  });
  await store.transaction(async (tx) => {
    for (const [table, list] of byTable) for (const part of slices(list)) await insertRows(tx, table, part as never[]);
  });
}

/** Every 20th bench identity gains the 5% attribute (it sorts after `attr-…`, so appending keeps the set sorted). */
async function markFivePercent(store: Store): Promise<number> {
  const { identityAttribute, identityStride } = FIVE_PERCENT;
  const identities = await store.read((db) => selectRows(db, 'identities'));
  // 'bench-identity-' is 15 characters: the index follows.
  const selected = identities.filter(
    (row) => row.name.startsWith('bench-identity-') && Number(row.name.slice(15)) % identityStride === 0,
  );
  await store.transaction(async (tx) => {
    for (const row of selected) {
      const attributes = [...(JSON.parse(row.role_attributes ?? '[]') as string[]), identityAttribute];
      await updateRows(tx, 'identities', { role_attributes: JSON.stringify(attributes) }, { id: row.id });
    }
    for (const part of slices(selected))
      await insertRows(
        tx,
        'identity_role_attributes',
        part.map((row) => ({ entity_id: row.id, value: identityAttribute })),
      );
  });
  return selected.length;
}

/** The heavy identity, and updb authenticators for it and the typical identity; returns the measured ids. */
async function seedBenchIdentities(store: Store, now: string, password: { hash: string; salt: string }) {
  const { typical, heavy, changed } = scaleIdentities;
  const heavyId = newShortId();
  return store.transaction(async (tx) => {
    await insertRows(tx, 'identities', [
      {
        id: heavyId,
        created_at: now,
        updated_at: now,
        name: heavy.name,
        type_id: 'Default',
        role_attributes: JSON.stringify(heavy.attributes),
        service_hosting_costs: '{}',
        service_hosting_precedences: '{}',
      },
    ]);
    await insertRows(
      tx,
      'identity_role_attributes',
      heavy.attributes.map((value) => ({ entity_id: heavyId, value })),
    );
    const idOf = async (name: string) => {
      const [row] = await selectRows(tx, 'identities', { name });
      if (!row) throw new Error(`identity ${name} was not seeded`);
      return row.id;
    };
    const typicalId = await idOf(typical.name);
    for (const [identityId, username] of [
      [typicalId, typical.username],
      [heavyId, heavy.username],
    ] as const) {
      await insertRows(tx, 'authenticators', [
        {
          id: newBase62Id(),
          created_at: now,
          updated_at: now,
          identity_id: identityId,
          method: 'updb',
          username,
          password_hash: password.hash,
          password_salt: password.salt,
        },
      ]);
    }
    return { typical: typicalId, heavy: heavyId, changed: await idOf(changed.name) };
  });
}

/** Adds one policy row and its role side tables (`<prefix>_<column>`); returns the policy's id. */
function policyWriter(table: TableName, prefix: string, roleColumns: string[], now: string) {
  const hasType = table === 'service_policies';
  return (policy: SeededPolicy, add: Add): string => {
    const id = newBase62Id();
    const roles = roleColumns.map((column) => [...(policy.roles[column] ?? [])].sort(byteOrder));
    const row: Row = {
      id,
      created_at: now,
      updated_at: now,
      name: policy.name,
      semantic: policy.semantic,
      ...(hasType ? { type: policy.type ?? 1 } : {}),
    };
    roleColumns.forEach((column, index) => (row[column] = roles[index]!.length ? JSON.stringify(roles[index]) : null));
    add(table, row);
    roles.forEach((list, index) =>
      list.forEach((value) => add(`${prefix}_${roleColumns[index]}` as TableName, { entity_id: id, value })),
    );
    return id;
  };
}
