// What an integrity scan reads once before walking the derived tables: every policy, the entities of the smaller
// kinds with the policies selecting them, and the change times service lists depend on — all from source records.
import { ExpectedLinks, memberKinds, type EntityRecord, type PolicyRecord } from '../policy/expected-links.js';
import { entityKinds, policyKinds, type PolicyKind } from '../store/queries/policy-tables.js';
import { scanLayouts } from '../store/queries/scan-layouts.js';
import type { Db } from '../store/store.js';
import { textOf, walkChunks, type ChunkPacer, type Row, type WalkSource } from './chunks.js';

export interface ScanContext {
  links: ExpectedLinks;
  /** Service id → when it last changed and the configs it uses. */
  services: ReadonlyMap<string, { updatedAt: string; configs: readonly string[] }>;
  /** Config id → when it last changed and its type. */
  configs: ReadonlyMap<string, { updatedAt: string; typeId: string }>;
  /** Posture check id → when it last changed. */
  postureChecks: ReadonlyMap<string, string>;
}

/** A JSON list column (role attributes, roles, configs) as an array; NULL is empty. */
export function listColumn(value: unknown): string[] {
  const list: unknown = typeof value === 'string' ? JSON.parse(value) : [];
  return Array.isArray(list) ? list.map(textOf) : [];
}

export const entityRecord = (row: Row): EntityRecord => ({
  id: textOf(row.id),
  attributes: listColumn(row.role_attributes),
});

/** Where the entities of a kind are read from, with their role attributes and `extra` columns. */
export function entitySource(kind: keyof typeof entityKinds, extra: readonly string[] = []): WalkSource {
  const entity = entityKinds[kind];
  return {
    table: entity.table,
    columns: [scanLayouts.roleAttributes, ...extra],
    ...('flag' in entity ? { filter: { flag: entity.flag } } : {}),
  };
}

export async function loadScanContext(db: Db, pacer: ChunkPacer): Promise<ScanContext> {
  const policies = new Map<PolicyKind, PolicyRecord[]>();
  for (const kind of policyKinds) policies.set(kind, await loadPolicies(db, kind, pacer));
  const links = new ExpectedLinks(policies);

  const services = new Map<string, { updatedAt: string; configs: string[] }>();
  const postureChecks = new Map<string, string>();
  for (const kind of memberKinds) {
    await walkChunks(
      db,
      entitySource(kind, [scanLayouts.changedAt, ...(kind === 'service' ? [scanLayouts.serviceConfigs] : [])]),
      pacer,
      ({ rows }) => {
        links.addEntities(kind, rows.map(entityRecord));
        for (const row of rows) {
          if (kind === 'service')
            services.set(textOf(row.id), { updatedAt: textOf(row.updated_at), configs: listColumn(row.configs) });
          if (kind === 'postureCheck') postureChecks.set(textOf(row.id), textOf(row.updated_at));
        }
      },
    );
  }
  const configs = new Map<string, { updatedAt: string; typeId: string }>();
  await walkChunks(db, scanLayouts.configs, pacer, ({ rows }) => {
    for (const row of rows)
      configs.set(textOf(row.id), { updatedAt: textOf(row.updated_at), typeId: textOf(row.config_type_id) });
  });
  return { links, services, configs, postureChecks };
}

async function loadPolicies(db: Db, kind: PolicyKind, pacer: ChunkPacer): Promise<PolicyRecord[]> {
  const columns = [
    'semantic',
    ...(kind.name === 'servicePolicy' ? ['type'] : []),
    ...kind.sides.map((side) => side.column),
  ];
  const policies: PolicyRecord[] = [];
  await walkChunks(db, { table: kind.table, columns }, pacer, ({ rows }) => {
    for (const row of rows) {
      const roles = Object.fromEntries(kind.sides.map((side) => [side.field, listColumn(row[side.column])]));
      policies.push({ id: textOf(row.id), type: row.type, semantic: row.semantic, roles });
    }
  });
  return policies;
}
