// An identity's policy-derived sub-lists, read from the link tables the policy engine maintains.
import { sql, type SqlBool } from 'kysely';
import type { OperationContext, OperationTable } from '../../http/operation.js';
import { linkedTo, list } from '../../crud/crud-handlers.js';
import { edgeRouter } from '../edge-router/edge-router.definition.js';
import { edgeRouterPolicy } from '../edge-router-policy/edge-router-policy.definition.js';
import { associatedService } from '../service/service.definition.js';
import { servicePolicy } from '../service-policy/service-policy.definition.js';
import { identity } from './identity.definition.js';

/**
 * `?policyType=dial|bind` on identity–service lists: only pairs some policy of that type joins. The contract
 * declares the enum, so other values are refused before this runs (upstream lower-cases and ignores them).
 */
export function policyTypeFilter(context: OperationContext) {
  const given = context.query.policyType;
  const policyType = typeof given === 'string' ? given.toLowerCase() : undefined;
  if (policyType === 'dial') return sql<SqlBool>`identity_services.dial > 0`;
  if (policyType === 'bind') return sql<SqlBool>`identity_services.bind > 0`;
  return undefined;
}

export const identityLinkOperations: OperationTable = {
  listIdentityServicePolicies: list(servicePolicy, 'admin', {
    scope: linkedTo(identity, { table: 'service_policy_identities', parentColumn: 'entity_id', childColumn: 'policy_id' }),
  }),
  listIdentitysEdgeRouterPolicies: list(edgeRouterPolicy, 'admin', {
    scope: linkedTo(identity, { table: 'edge_router_policy_identities', parentColumn: 'entity_id', childColumn: 'policy_id' }),
  }),
  listIdentityServices: list(associatedService, 'admin', {
    scope: linkedTo(identity, {
      table: 'identity_services',
      parentColumn: 'identity_id',
      childColumn: 'service_id',
      rowFilter: policyTypeFilter,
    }),
  }),
  listIdentityEdgeRouters: list(edgeRouter, 'admin', {
    scope: linkedTo(identity, { table: 'identity_edge_routers', parentColumn: 'identity_id', childColumn: 'edge_router_id' }),
  }),
};
