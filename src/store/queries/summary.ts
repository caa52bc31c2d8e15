// The management `/summary` counts: upstream's store names, counted from the tables that hold them here.
import type { Db, TableName } from '../store.js';
import { countRows } from './table-rows.js';

/** Upstream's store names, each with the table that holds it here once that entity exists. */
const summaryStores: Readonly<Record<string, TableName | undefined>> = {
  apiSessionCertificates: 'api_session_certificates',
  apiSessions: 'api_sessions',
  authPolicies: 'auth_policies',
  authenticators: 'authenticators',
  cas: 'cas',
  configTypes: 'config_types',
  configs: 'configs',
  controllers: undefined,
  edgeRouterPolicies: 'edge_router_policies',
  enrollments: 'enrollments',
  eventualEvents: undefined,
  externalJwtSigners: undefined,
  identities: 'identities',
  identityTypes: 'identity_types',
  mfas: undefined,
  postureCheckTypes: 'posture_check_types',
  postureChecks: 'posture_checks',
  revocations: undefined,
  routers: 'routers',
  'routers.edge': 'edge_routers',
  serviceEdgeRouterPolicies: 'service_edge_router_policies',
  servicePolicies: 'service_policies',
  services: 'services',
  'services.edge': 'services',
  sessions: 'sessions',
  terminators: 'terminators',
};

/** upstream's store names (child stores as `<parent>.edge`): the entity types its events name. */
export const upstreamStoreNames = (): string[] => Object.keys(summaryStores);

/** Each of upstream's store names with its row count (0 for what has no table here yet). */
export async function summaryCounts(db: Db): Promise<Record<string, number>> {
  const result: Record<string, number> = {};
  for (const [key, table] of Object.entries(summaryStores)) {
    result[key] = table ? await countRows(db, table) : 0;
  }
  return result;
}
