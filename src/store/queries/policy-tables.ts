// What each policy kind selects and what it grants, and where the policy engine keeps it: the tables the engine
// evaluates and maintains (src/store/queries/policy-links.ts) and the domain reads (src/policy/), in one place.
import type { TableName } from '../store.js';

/** One kind of entity a policy side selects: where its rows and role attributes live. */
export interface EntityKind {
  /** Upstream's store name, used in messages ("no identities found with the given ids"). */
  storeName: string;
  table: TableName;
  /** Side table of the entity's role attributes. */
  attributeTable: TableName;
  /** Only rows where this 0/1 column is 1 are of the kind, when it shares its table (edge routers live in `routers`). */
  flag?: string;
  /** The table has an integer key `seq`, which the pair tables hold (kinds on a granting side of some policy). */
  keyed: boolean;
}

export const entityKinds = {
  identity: { storeName: 'identities', table: 'identities', attributeTable: 'identity_role_attributes', keyed: true },
  service: { storeName: 'services', table: 'services', attributeTable: 'service_role_attributes', keyed: true },
  edgeRouter: { storeName: 'routers', table: 'routers', attributeTable: 'router_role_attributes', flag: 'is_edge', keyed: true },
  postureCheck: { storeName: 'postureChecks', table: 'posture_checks', attributeTable: 'posture_check_role_attributes', keyed: false },
} as const satisfies Record<string, EntityKind>;

export type EntityKindName = keyof typeof entityKinds;

/** One role field of a policy and the membership table its evaluation maintains. */
export interface PolicySide {
  /** API field, e.g. `identityRoles`. */
  field: string;
  /** JSON column holding the sorted role list. */
  column: string;
  /** The kit's side table of the role list (indexed by value). */
  roleTable: TableName;
  /** (policy_id, entity_id) rows: which entities the policy currently selects on this side. */
  membershipTable: TableName;
  entity: EntityKindName;
}

/** The reference-counted pair table the two granting sides of a policy feed. */
export interface PairTable {
  table: TableName;
  /** Column holding the integer key (`seq`) of the entity from `sides[0]`, and from `sides[1]`. */
  columns: readonly [string, string];
  /** Count column; for service policies it depends on the policy type. */
  countColumn: (policy: { type?: unknown }) => string;
  /** Every count column of the table. */
  counts: readonly string[];
  /** Whether pair changes touch the identity's service list (service-updates polling). */
  touchesServiceLists: boolean;
}

export interface PolicyKind {
  name: 'servicePolicy' | 'edgeRouterPolicy' | 'serviceEdgeRouterPolicy';
  table: TableName;
  /** The two sides whose cross product is granted, and any further side (posture checks). */
  sides: readonly [PolicySide, PolicySide, ...PolicySide[]];
  pairs: PairTable;
}

const side = (policy: string, field: string, entity: EntityKindName, membership: string): PolicySide => {
  const column = field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  // Named as the migrations name them (006-policies.ts); the typed schema cannot follow the concatenation.
  return { field, column, roleTable: `${policy}_${column}` as TableName, membershipTable: `${policy}_${membership}` as TableName, entity };
};

export const servicePolicyKind: PolicyKind = {
  name: 'servicePolicy',
  table: 'service_policies',
  sides: [
    side('service_policy', 'identityRoles', 'identity', 'identities'),
    side('service_policy', 'serviceRoles', 'service', 'services'),
    side('service_policy', 'postureCheckRoles', 'postureCheck', 'posture_checks'),
  ],
  pairs: {
    table: 'identity_services',
    columns: ['identity_seq', 'service_seq'],
    // Stored type 1 = Dial, 2 = Bind, as upstream.
    countColumn: (policy) => (policy.type === 2 ? 'bind' : 'dial'),
    counts: ['dial', 'bind'],
    touchesServiceLists: true,
  },
};

export const edgeRouterPolicyKind: PolicyKind = {
  name: 'edgeRouterPolicy',
  table: 'edge_router_policies',
  sides: [side('edge_router_policy', 'identityRoles', 'identity', 'identities'), side('edge_router_policy', 'edgeRouterRoles', 'edgeRouter', 'edge_routers')],
  pairs: { table: 'identity_edge_routers', columns: ['identity_seq', 'edge_router_seq'], countColumn: () => 'count', counts: ['count'], touchesServiceLists: false },
};

export const serviceEdgeRouterPolicyKind: PolicyKind = {
  name: 'serviceEdgeRouterPolicy',
  table: 'service_edge_router_policies',
  sides: [
    side('service_edge_router_policy', 'serviceRoles', 'service', 'services'),
    side('service_edge_router_policy', 'edgeRouterRoles', 'edgeRouter', 'edge_routers'),
  ],
  pairs: { table: 'service_edge_routers', columns: ['service_seq', 'edge_router_seq'], countColumn: () => 'count', counts: ['count'], touchesServiceLists: false },
};

export const policyKinds = [servicePolicyKind, edgeRouterPolicyKind, serviceEdgeRouterPolicyKind] as const;
