// What path selection reads of routers (upstream model.Router Cost and NoTraversal), and whether a router still exists
// (a disconnected router is Unhealthy to its peers, a deleted one Removed).
import { typed } from '../connection.js';
import type { Db } from '../store.js';

export interface RouterPathAttributes {
  cost: number;
  noTraversal: boolean;
}

export async function routerPathAttributes(db: Db, ids: readonly string[]): Promise<Map<string, RouterPathAttributes>> {
  if (ids.length === 0) return new Map();
  const rows = await typed(db)
    .selectFrom('routers')
    .select(['id', 'cost', 'no_traversal'])
    .where('id', 'in', ids)
    .execute();
  return new Map(rows.map((row) => [row.id, { cost: row.cost, noTraversal: row.no_traversal === 1 }]));
}
