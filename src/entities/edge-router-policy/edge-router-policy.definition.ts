// Edge router policies: which identities may use which edge routers.
import { boolean, defineEntity, stringSet, text } from '../../crud/define-entity.js';
import { edgeRouterPolicyKind } from '../../store/queries/policy-tables.js';
import { policyRules } from '../shared/policy-rules.js';

export const edgeRouterPolicy = defineEntity({
  type: 'edgeRouterPolicy',
  deletedAs: 'edgeRouterPolicies',
  path: 'edge-router-policies',
  table: 'edge_router_policies',
  idKind: 'base62',
  fields: {
    name: text({ unique: true }),
    semantic: text({ fallback: () => 'AllOf' }),
    identityRoles: stringSet(),
    edgeRouterRoles: stringSet(),
    // The only policy kind whose REST model shows it: tunneler-enabled edge routers own system policies.
    isSystem: boolean({ column: 'is_system', filter: false, writable: 'never' }),
  },
  links: (policy) => ({
    'edge-routers': `./edge-router-policies/${String(policy.id)}/edge-routers`,
    identities: `./edge-router-policies/${String(policy.id)}/identities`,
  }),
  rules: policyRules(edgeRouterPolicyKind, 'edgeRouterPolicy'),
});
