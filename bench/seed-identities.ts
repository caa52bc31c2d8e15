// Seeds identities through the store's modules (the controller must be stopped), in batches of one transaction
// each, with the rows the API would write (see src/crud/entity-store.ts, valuesToRow).
import { newShortId } from '../src/lib/ids.js';
import { insertRows, type NewRow } from '../src/store/queries/table-rows.js';
import type { Store } from '../src/store/store.js';
import { slices, withBenchStore } from './bench-store.js';

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

async function insertBatch(store: Store, start: number, end: number): Promise<void> {
  const now = new Date().toISOString();
  const identities: NewRow<'identities'>[] = [];
  const attributes: NewRow<'identity_role_attributes'>[] = [];
  for (let index = start; index < end; index++) {
    const id = newShortId();
    const list = attributesFor(index);
    identities.push({
      id,
      created_at: now,
      updated_at: now,
      name: identityName(index),
      type_id: 'Default',
      role_attributes: JSON.stringify(list),
      service_hosting_costs: '{}',
      service_hosting_precedences: '{}',
    });
    attributes.push(...list.map((value) => ({ entity_id: id, value })));
  }
  await store.transaction(async (tx) => {
    for (const rows of slices(identities)) await insertRows(tx, 'identities', rows);
    for (const rows of slices(attributes)) await insertRows(tx, 'identity_role_attributes', rows);
  });
}

/** Inserts identities with indexes [from, to) into the home's store; returns how long it took in ms. */
export async function seedIdentities(
  home: string,
  from: number,
  to: number,
  progress: (done: number) => void,
): Promise<number> {
  const started = performance.now();
  await withBenchStore(home, async (store) => {
    for (let start = from; start < to; start += BATCH) {
      const end = Math.min(start + BATCH, to);
      await insertBatch(store, start, end);
      progress(end);
    }
  });
  return performance.now() - started;
}
