// Every table (or column) the controller keeps denormalised, declared as what its rows should be given the source
// records: the integrity scan compares and repairs each one the same way. A new derived table is one entry here.
import type { Db } from '../store/store.js';
import type { EntityDefinition } from '../crud/define-entity.js';
import { certificateFingerprint } from '../pki/fingerprint.js';
import { pairRows } from '../store/queries/pair-rows.js';
import { policyKinds } from '../store/queries/policy-tables.js';
import { touchServiceLists } from '../store/queries/service-lists.js';
import type { IdRange, RowFilter } from '../store/queries/table-rows.js';
import { fingerprintLayouts, scanLayouts, type FingerprintLayout } from '../store/queries/scan-layouts.js';
import type { TableName } from '../store/store.js';
import { textOf, type Row, type WalkSource } from './chunks.js';
import { entityRecord, entitySource, listColumn, type ScanContext } from './scan-context.js';
import { identity } from '../entities/identity/identity.definition.js';
import { service } from '../entities/service/service.definition.js';
import { edgeRouter } from '../entities/edge-router/edge-router.definition.js';
import { postureCheck } from '../entities/posture-check/posture-check.definition.js';
import { ca } from '../entities/ca/ca.definition.js';
import { servicePolicy } from '../entities/service-policy/service-policy.definition.js';
import { edgeRouterPolicy } from '../entities/edge-router-policy/edge-router-policy.definition.js';
import { serviceEdgeRouterPolicy } from '../entities/service-edge-router-policy/service-edge-router-policy.definition.js';

export interface DerivedTable {
  table: TableName;
  /** The source rows the derived rows follow from, walked in id order a chunk at a time. */
  source: WalkSource;
  /** Columns identifying a derived row; the first holds the source row's id. */
  key: readonly [string, ...string[]];
  /** Derived columns besides the key, compared and repaired too. */
  values?: readonly string[];
  /** Only these stored rows are derived (a column kept only where its source is set). */
  storedFilter?: RowFilter;
  /** The rows a chunk of source rows implies. `stored` is the chunk's stored rows, for tables that derive columns of rows that are themselves source data. */
  expected(sources: Row[], stored: Row[], context: ScanContext): Row[];
  /** Runs after repairs in the same transaction (e.g. the identities whose service list a repair changed are told). */
  afterRepair?(tx: Db, repaired: Row[], at: string): Promise<void>;
  /** How its rows are read and written when they are not stored as compared (pairs stored by integer keys); else the table as it is. */
  storage?: DerivedStorage;
}

/** A derived table's rows as the scan compares them: read by a range of the source's ids, matched by the key columns. */
export interface DerivedStorage {
  inRange(db: Db, range: IdRange): Promise<Row[]>;
  select(db: Db, match: Readonly<Row>): Promise<Row[]>;
  insert(tx: Db, row: Readonly<Row>): Promise<void>;
  /** Many rows at once, for a derivation from scratch (derive-fresh.ts). */
  insertMany(tx: Db, rows: readonly Readonly<Row>[]): Promise<void>;
  update(tx: Db, values: Readonly<Row>, match: Readonly<Row>): Promise<number>;
  delete(tx: Db, match: Readonly<Row>): Promise<number>;
}

/** Entities whose set fields have side tables (one row per element, for indexed filters). */
const entitiesWithSets: readonly EntityDefinition[] = [
  identity,
  service,
  edgeRouter,
  postureCheck,
  ca,
  servicePolicy,
  edgeRouterPolicy,
  serviceEdgeRouterPolicy,
];

function setTables(): DerivedTable[] {
  const tables = new Map<string, DerivedTable>();
  for (const definition of entitiesWithSets) {
    for (const spec of Object.values(definition.fields)) {
      if (spec.kind !== 'stringSet' || !spec.setTable || tables.has(spec.setTable)) continue;
      tables.set(spec.setTable, {
        table: spec.setTable,
        source: { table: definition.table, columns: [spec.column] },
        key: scanLayouts.setRowKey,
        expected: (sources) =>
          sources.flatMap((row) =>
            [...new Set(listColumn(row[spec.column]))].map((value) => ({ entity_id: row.id, value })),
          ),
      });
    }
  }
  return [...tables.values()];
}

/** Which entities each policy selects on each side, from its roles and the entities' attributes. */
function membershipTables(): DerivedTable[] {
  return policyKinds.flatMap((kind) =>
    kind.sides.map((side) => ({
      table: side.membershipTable,
      source: entitySource(side.entity),
      key: scanLayouts.membershipKey,
      expected: (sources: Row[], _stored: Row[], { links }: ScanContext) =>
        sources.flatMap((row) =>
          links
            .policiesSelecting(kind, side.field, entityRecord(row))
            .map((policy) => ({ entity_id: row.id, policy_id: policy.id })),
        ),
    })),
  );
}

/** How many policies of each kind join each pair, counted from the policies' selections; pairs named by ids. */
function pairTables(): DerivedTable[] {
  return policyKinds.map((kind) => {
    const storage = pairRows(kind);
    const [first, second] = storage.ids;
    const zeros = Object.fromEntries(kind.pairs.counts.map((column) => [column, 0]));
    return {
      table: kind.pairs.table,
      source: entitySource(kind.sides[0].entity),
      storage,
      key: [first, second],
      values: kind.pairs.counts,
      expected: (sources, _stored, { links }) =>
        sources.flatMap((row) =>
          [...links.pairsOf(kind, entityRecord(row))].map(([other, counts]) => ({
            [first]: row.id,
            [second]: other,
            ...zeros,
            ...counts,
          })),
        ),
      ...(kind.pairs.touchesServiceLists ? { afterRepair: touchRepairedIdentities } : {}),
    };
  });
}

async function touchRepairedIdentities(tx: Db, repaired: Row[], at: string): Promise<void> {
  const ids = [...new Set(repaired.map((row) => textOf(row.identity_id)))];
  if (ids.length > 0) await touchServiceLists(tx, { identities: ids }, at);
}

/**
 * An identity's service list changed no earlier than anything it shows changed: its services, their configs and the
 * posture checks of its service policies that grant services (each of those writes marks the list). A time before
 * that would let an SDK polling service-updates miss the change, so the repair moves it up to that bound.
 */
const serviceListChangeTimes: DerivedTable = {
  ...scanLayouts.serviceListTimes,
  source: entitySource('identity'),
  expected(sources, stored, context) {
    const storedAt = new Map(stored.map((row) => [textOf(row.identity_id), textOf(row.changed_at)]));
    return sources.flatMap((row) => {
      const bound = serviceListBound(entityRecord(row), context);
      const at = storedAt.get(textOf(row.id));
      if (bound === undefined) return at === undefined ? [] : [{ identity_id: row.id, changed_at: at }];
      return [{ identity_id: row.id, changed_at: at !== undefined && at >= bound ? at : bound }];
    });
  },
};

function serviceListBound(
  entity: ReturnType<typeof entityRecord>,
  { links, services, configs, postureChecks }: ScanContext,
): string | undefined {
  const times: string[] = [];
  const [servicePolicies] = policyKinds;
  for (const serviceId of links.pairsOf(servicePolicies, entity).keys()) {
    const found = services.get(serviceId);
    if (!found) continue;
    times.push(found.updatedAt, ...found.configs.flatMap((id) => configs.get(id)?.updatedAt ?? []));
  }
  for (const policy of links.policiesSelecting(servicePolicies, 'identityRoles', entity)) {
    // A policy that grants no service shows its posture checks to nobody.
    if (links.members(policy.id, 'serviceRoles').length === 0) continue;
    times.push(...links.members(policy.id, 'postureCheckRoles').flatMap((id) => postureChecks.get(id) ?? []));
  }
  return times.length > 0 ? times.reduce((latest, time) => (time > latest ? time : latest)) : undefined;
}

/** An override keeps its config's type beside it (its key); the config's own type is the truth. */
const overrideConfigTypes: DerivedTable = {
  table: scanLayouts.overrideConfigTypes.table,
  source: { table: scanLayouts.overrideConfigTypes.sourceTable, columns: [] },
  key: scanLayouts.overrideConfigTypes.key,
  values: scanLayouts.overrideConfigTypes.values,
  expected: (_sources, stored, { configs }) =>
    stored.map((row) => ({ ...row, config_type_id: configs.get(textOf(row.config_id))?.typeId ?? row.config_type_id })),
};

/** A certificate's fingerprint, kept beside it for lookups (certificate login, enrollment), is the hash of its DER. */
function fingerprintColumn({ table, fingerprint, pem }: FingerprintLayout): DerivedTable {
  const filter = { present: pem };
  return {
    table,
    source: { table, columns: [pem], filter },
    storedFilter: filter,
    key: scanLayouts.ownKey,
    values: [fingerprint],
    expected: (sources) => sources.map((row) => ({ id: row.id, [fingerprint]: fingerprintOrNull(textOf(row[pem])) })),
  };
}

function fingerprintOrNull(pem: string): string | null {
  try {
    return certificateFingerprint(pem);
  } catch {
    // An unreadable certificate has no fingerprint; the difference is reported (and a repair refused by NOT NULL).
    return null;
  }
}

/** In dependency order: sets and memberships before what is counted from them. */
export const derivedTables: readonly DerivedTable[] = [
  ...setTables(),
  ...membershipTables(),
  ...pairTables(),
  serviceListChangeTimes,
  overrideConfigTypes,
  ...fingerprintLayouts.map(fingerprintColumn),
];
