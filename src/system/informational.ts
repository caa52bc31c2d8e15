// Capabilities, protocols, controllers and the management `/summary` counts.
import { sql } from 'kysely';
import { envelope, listEnvelope } from '../http/envelope.js';
import type { OperationHandler } from '../http/operation.js';
import { listQueryFrom } from '../crud/list-params.js';
import type { SymbolTable } from '../store/filter/filter-types.js';

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

const controllerSymbols: SymbolTable = {
  id: { kind: 'column', type: 'string', column: 'id' },
  name: { kind: 'column', type: 'string', column: 'name' },
  ctrlAddress: { kind: 'column', type: 'string', column: 'ctrl_address' },
  certPem: { kind: 'column', type: 'string', column: 'cert_pem' },
  fingerprint: { kind: 'column', type: 'string', column: 'fingerprint' },
  isOnline: { kind: 'column', type: 'bool', column: 'is_online' },
  lastJoinedAt: { kind: 'column', type: 'datetime', column: 'last_joined_at' },
  createdAt: { kind: 'column', type: 'datetime', column: 'created_at' },
  updatedAt: { kind: 'column', type: 'datetime', column: 'updated_at' },
  tags: { kind: 'map', column: 'tags' },
  isSystem: { kind: 'column', type: 'bool', column: 'is_system' },
};

/**
 * Controller records exist only in an HA cluster (upstream writes them from raft events); this controller runs
 * stand-alone, so the list is empty — but the query is still checked, so a bad filter is still a 400.
 */
export const listControllers: OperationHandler = {
  access: 'authenticated',
  handle: (context) => {
    const query = listQueryFrom(context, controllerSymbols);
    const pagination = { limit: query.limit, offset: query.offset, totalCount: 0 };
    return Promise.resolve({ status: 200, json: listEnvelope([], pagination, Object.keys(controllerSymbols)) });
  },
};

/** Upstream's store names, each with the table that holds it here once that entity exists. */
const summaryStores: Record<string, string | undefined> = {
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
        const row = table ? await db.selectFrom(table).select(sql<number>`count(*)`.as('n')).executeTakeFirst() : undefined;
        result[key] = Number(row?.n ?? 0);
      }
      return result;
    });
    return { status: 200, json: envelope(counts) };
  },
};
