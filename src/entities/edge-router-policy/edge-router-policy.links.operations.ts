// An edge router policy's members, read from the membership tables the policy engine maintains.
import type { OperationTable } from '../../http/operation.js';
import { policyLinks } from '../../store/queries/policy-tables.js';
import { linkedTo, list } from '../../crud/crud-handlers.js';
import { edgeRouter } from '../edge-router/edge-router.definition.js';
import { identity } from '../identity/identity.definition.js';
import { edgeRouterPolicy } from './edge-router-policy.definition.js';

export const edgeRouterPolicyLinkOperations: OperationTable<'management'> = {
  listEdgeRouterPolicyEdgeRouters: list(edgeRouter, 'admin', {
    scope: linkedTo(edgeRouterPolicy, policyLinks.edgeRouterPolicyEdgeRouters),
  }),
  listEdgeRouterPolicyIdentities: list(identity, 'admin', {
    scope: linkedTo(edgeRouterPolicy, policyLinks.edgeRouterPolicyIdentities),
  }),
};
