// upstream's store entity types (ziti controller/db EntityType*), which entityChange events name and their
// subscriptions' `include` lists: ours are named by the collection's URL segment.
import { upstreamStoreNames } from '../store/queries/summary.js';

/** Every entity type upstream v1.1.8 emits entityChange events for: its stores' names (child stores apart). */
export const UPSTREAM_ENTITY_TYPES: readonly string[] = upstreamStoreNames().filter((name) => !name.includes('.'));

/* eslint-disable storage/no-storage-words -- upstream's entity type names, which happen to equal tables of ours */
/** The entity types whose changes make more events than entityChange (sessions, terminators) or that two of ours share. */
export const EntityTypes = {
  apiSessions: 'apiSessions',
  sessions: 'sessions',
  terminators: 'terminators',
  routers: 'routers',
  mfas: 'mfas',
} as const;
/* eslint-enable storage/no-storage-words */

/** Edge and transit routers are both upstream's fabric routers (the edge router store extends the router store). */
const ROUTER_PATHS = new Set(['edge-routers', 'transit-routers']);

/** Paths that do not spell their store's name. */
const STORE_OF_PATH: Readonly<Record<string, string>> = {
  'current-api-session/certificates': 'apiSessionCertificates',
};

/** `service-policies` → `servicePolicies`. */
export function upstreamEntityType(path: string): string {
  if (ROUTER_PATHS.has(path)) return EntityTypes.routers;
  const store = STORE_OF_PATH[path];
  if (store) return store;
  return path.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}
