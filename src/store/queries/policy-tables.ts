// What each policy kind selects and what it grants, and where the policy engine keeps it: the tables the engine
// evaluates and maintains (src/store/queries/policy-links.ts) and the domain reads (src/policy/), in one place.
import { sideTable, snakeCase } from '../naming.js';
import type { FilterSymbol } from '../filter/filter-types.js';
import type { TableName } from '../store.js';
import type { LinkTable } from './scopes.js';

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
  edgeRouter: {
    storeName: 'routers',
    table: 'routers',
    attributeTable: 'router_role_attributes',
    flag: 'is_edge',
    keyed: true,
  },
  postureCheck: {
    storeName: 'postureChecks',
    table: 'posture_checks',
    attributeTable: 'posture_check_role_attributes',
    keyed: false,
  },
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

const side = (policy: TableName, field: string, entity: EntityKindName): PolicySide => {
  const column = snakeCase(field);
  // The members are of the entity kind's table (`service_policy_identities`); edge routers are `edge_routers`.
  const members = entity === 'edgeRouter' ? 'edge_routers' : entityKinds[entity].table;
  return { field, column, roleTable: sideTable(policy, column), membershipTable: sideTable(policy, members), entity };
};

export const servicePolicyKind: PolicyKind = {
  name: 'servicePolicy',
  table: 'service_policies',
  sides: [
    side('service_policies', 'identityRoles', 'identity'),
    side('service_policies', 'serviceRoles', 'service'),
    side('service_policies', 'postureCheckRoles', 'postureCheck'),
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
  sides: [
    side('edge_router_policies', 'identityRoles', 'identity'),
    side('edge_router_policies', 'edgeRouterRoles', 'edgeRouter'),
  ],
  pairs: {
    table: 'identity_edge_routers',
    columns: ['identity_seq', 'edge_router_seq'],
    countColumn: () => 'count',
    counts: ['count'],
    touchesServiceLists: false,
  },
};

export const serviceEdgeRouterPolicyKind: PolicyKind = {
  name: 'serviceEdgeRouterPolicy',
  table: 'service_edge_router_policies',
  sides: [
    side('service_edge_router_policies', 'serviceRoles', 'service'),
    side('service_edge_router_policies', 'edgeRouterRoles', 'edgeRouter'),
  ],
  pairs: {
    table: 'service_edge_routers',
    columns: ['service_seq', 'edge_router_seq'],
    countColumn: () => 'count',
    counts: ['count'],
    touchesServiceLists: false,
  },
};

export const policyKinds = [servicePolicyKind, edgeRouterPolicyKind, serviceEdgeRouterPolicyKind] as const;

/** A policy's members on one side (`service-policies/{id}/identities`). */
const membersOf = (kind: PolicyKind, side: number): LinkTable => ({
  table: sideAt(kind, side).membershipTable,
  parentColumn: 'policy_id',
  childColumn: 'entity_id',
});
/** The policies of a kind that select an entity on one side (`identities/{id}/service-policies`). */
const policiesOf = (kind: PolicyKind, side: number): LinkTable => ({
  table: sideAt(kind, side).membershipTable,
  parentColumn: 'entity_id',
  childColumn: 'policy_id',
});
/** The entities of the other granting side a policy kind pairs with an entity (`identities/{id}/services`). */
const pairedWith = (kind: PolicyKind, from: 0 | 1): LinkTable => ({
  table: kind.pairs.table,
  parentTable: entityKinds[kind.sides[from].entity].table,
  parentColumn: kind.pairs.columns[from],
  childColumn: kind.pairs.columns[from === 0 ? 1 : 0],
});

function sideAt(kind: PolicyKind, index: number): PolicySide {
  const side = kind.sides[index];
  if (!side) throw new Error(`${kind.name} has no side ${index}`);
  return side;
}

/**
 * The links the entities' sub-lists read, by name, so that no entity spells the engine's tables: a policy's
 * members, the policies selecting an entity, the pairs the engine grants, and a service's configs (its set's rows).
 */
export const policyLinks = {
  servicePolicyIdentities: membersOf(servicePolicyKind, 0),
  servicePolicyServices: membersOf(servicePolicyKind, 1),
  servicePolicyPostureChecks: membersOf(servicePolicyKind, 2),
  edgeRouterPolicyIdentities: membersOf(edgeRouterPolicyKind, 0),
  edgeRouterPolicyEdgeRouters: membersOf(edgeRouterPolicyKind, 1),
  serviceEdgeRouterPolicyServices: membersOf(serviceEdgeRouterPolicyKind, 0),
  serviceEdgeRouterPolicyEdgeRouters: membersOf(serviceEdgeRouterPolicyKind, 1),
  identityServicePolicies: policiesOf(servicePolicyKind, 0),
  serviceServicePolicies: policiesOf(servicePolicyKind, 1),
  identityEdgeRouterPolicies: policiesOf(edgeRouterPolicyKind, 0),
  edgeRouterEdgeRouterPolicies: policiesOf(edgeRouterPolicyKind, 1),
  serviceServiceEdgeRouterPolicies: policiesOf(serviceEdgeRouterPolicyKind, 0),
  edgeRouterServiceEdgeRouterPolicies: policiesOf(serviceEdgeRouterPolicyKind, 1),
  identityServices: pairedWith(servicePolicyKind, 0),
  serviceIdentities: pairedWith(servicePolicyKind, 1),
  identityEdgeRouters: pairedWith(edgeRouterPolicyKind, 0),
  edgeRouterIdentities: pairedWith(edgeRouterPolicyKind, 1),
  serviceEdgeRouters: pairedWith(serviceEdgeRouterPolicyKind, 0),
  edgeRouterServices: pairedWith(serviceEdgeRouterPolicyKind, 1),
  serviceConfigs: { table: 'service_configs', parentColumn: 'entity_id', childColumn: 'value' },
  configServices: { table: 'service_configs', parentColumn: 'value', childColumn: 'entity_id' },
} satisfies Record<string, LinkTable>;

/** A filter symbol over a link's far side (`anyOf(identities) = "<id>"` on service policies): an index lookup. */
export const linkSymbol = (link: LinkTable): FilterSymbol => ({
  kind: 'set',
  type: 'string',
  table: link.table,
  ownerColumn: link.parentColumn,
  valueColumn: link.childColumn,
});
