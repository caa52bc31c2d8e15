// Seeds identities straight into the controller's SQLite file (the controller must be stopped), in batches of
// one transaction each, with the rows the API would write (see src/crud/entity-store.ts, valuesToRow).
import Database from 'better-sqlite3';
import { newShortId } from '../src/lib/ids.js';

const BATCH = 10_000;
export const ATTRIBUTE_POOL = 1_000;
const ATTRIBUTES_EACH = 3;

export function identityName(index: number): string {
  return `bench-identity-${String(index).padStart(6, '0')}`;
}

/** Three distinct attributes out of the pool, a pure function of the index so that a later batch agrees. */
export function attributesFor(index: number): string[] {
  const chosen = new Set<string>();
  for (let draw = 0; chosen.size < ATTRIBUTES_EACH; draw++) {
    chosen.add(`attr-${mix(index * 7919 + draw) % ATTRIBUTE_POOL}`);
  }
  // Sorted byte-wise, as the controller stores sets (src/crud/entity-store.ts, normaliseSet).
  return [...chosen].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** A 32-bit integer hash (mulberry32's mixing step): spreads attributes evenly without a random seed. */
export function mix(value: number): number {
  let t = (value + 0x6d2b79f5) | 0;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return (t ^ (t >>> 14)) >>> 0;
}

/** Inserts identities with indexes [from, to); returns how long it took in ms. */
export function seedIdentities(dbFile: string, from: number, to: number, progress: (done: number) => void): number {
  const started = performance.now();
  const database = new Database(dbFile);
  try {
    const insertIdentity = database.prepare(
      `INSERT INTO identities (id, created_at, updated_at, tags, is_system, name, type_id, is_admin, is_default_admin,
         role_attributes, auth_policy_id, default_hosting_cost, default_hosting_precedence,
         service_hosting_costs, service_hosting_precedences)
       VALUES (?, ?, ?, '{}', 0, ?, 'Default', 0, 0, ?, 'default', 0, 'default', '{}', '{}')`,
    );
    const insertAttribute = database.prepare(`INSERT INTO identity_role_attributes (entity_id, value) VALUES (?, ?)`);
    const insertBatch = database.transaction((start: number, end: number) => {
      const now = new Date().toISOString();
      for (let index = start; index < end; index++) {
        const id = newShortId();
        const attributes = attributesFor(index);
        insertIdentity.run(id, now, now, identityName(index), JSON.stringify(attributes));
        for (const attribute of attributes) insertAttribute.run(id, attribute);
      }
    });
    for (let start = from; start < to; start += BATCH) {
      const end = Math.min(start + BATCH, to);
      insertBatch(start, end);
      progress(end);
    }
    // Leave a plain database file behind, as the controller would on a clean stop.
    database.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    database.close();
  }
  return performance.now() - started;
}
