// Service edge router policies: which edge routers may carry which services.
import { defineEntity, stringSet, text } from '../../crud/define-entity.js';
import { serviceEdgeRouterPolicyKind } from '../../store/queries/policy-tables.js';
import { policyRules } from '../shared/policy-rules.js';

export const serviceEdgeRouterPolicy = defineEntity({
  type: 'serviceEdgeRouterPolicy',
  deletedAs: 'serviceEdgeRouterPolicies',
  path: 'service-edge-router-policies',
  table: 'service_edge_router_policies',
  idKind: 'base62',
  fields: {
    name: text({ unique: true }),
    semantic: text({ fallback: () => 'AllOf' }),
    serviceRoles: stringSet(),
    edgeRouterRoles: stringSet(),
  },
  links: (policy) => {
    const base = `./service-edge-router-policies/${String(policy.id)}`;
    return { 'edge-routers': `${base}/edge-routers`, services: `${base}/services` };
  },
  rules: policyRules(serviceEdgeRouterPolicyKind, 'serviceEdgeRouterPolicy'),
});
