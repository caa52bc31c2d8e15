// Capabilities, protocols and the management `/summary` counts.
import { envelope } from '../http/envelope.js';
import type { OperationHandler } from '../http/operation.js';
import { countRows } from '../store/queries/table-rows.js';
import type { TableName } from '../store/store.js';

export const listEnumeratedCapabilities: OperationHandler = {
  access: 'public',
  handle: () => Promise.resolve({ status: 200, json: envelope(['OIDC_AUTH', 'HA_CONTROLLER']) }),
};

export const listProtocols: OperationHandler = {
  access: 'public',
  handle: ({ deps }) => {
    const { advertisedHost, advertisedPort } = deps.settings;
    return Promise.resolve({ status: 200, json: envelope({ https: { address: `${advertisedHost}:${advertisedPort}` } }) });
  },
};

/** Upstream's store names, each with the table that holds it here once that entity exists. */
const summaryStores: Record<string, TableName | undefined> = {
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

export const listSummary: OperationHandler = {
  access: 'admin',
  async handle({ deps }) {
    const counts = await deps.store.read(async (db) => {
      const result: Record<string, number> = {};
      for (const [key, table] of Object.entries(summaryStores)) {
        result[key] = table ? await countRows(db, table) : 0;
      }
      return result;
    });
    return { status: 200, json: envelope(counts) };
  },
};
