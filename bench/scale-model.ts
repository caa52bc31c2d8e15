// The scale model: how many of each entity, which attributes each carries and what each policy selects, all pure
// functions of an index, so the seeder, the link check and the measurements agree without sharing state.
import { ATTRIBUTE_POOL, attributesFor, identityName, mix } from './seed-identities.js';

export interface ScaleModel {
  /** Seeded through bench/seed-identities.ts: 3 attributes each out of ATTRIBUTE_POOL. */
  identities: number;
  services: number;
  /** Each service carries 2 of these, so an attribute selects services ÷ pool × 2 services (10 at full scale). */
  serviceAttributePool: number;
  servicePolicies: number;
  edgeRouters: number;
  edgeRouterPolicies: number;
  serviceEdgeRouterPolicies: number;
}

/**
 * Full scale is 100k identities, 10k services, 2k service policies. Every identity attribute is carried by about
 * 300 identities and named by two policies (one Dial, one Bind), every service attribute selects about 10
 * services: 3 attributes × 2 policies × 10 services ≈ 60 services per identity, ≈ 6M identity–service links.
 */
export function scaleModel(factor: number): ScaleModel {
  const scaled = (full: number) => Math.max(2, Math.round(full * factor));
  return {
    identities: scaled(100_000),
    services: scaled(10_000),
    serviceAttributePool: scaled(2_000),
    servicePolicies: scaled(2_000),
    edgeRouters: scaled(500),
    edgeRouterPolicies: scaled(200),
    serviceEdgeRouterPolicies: scaled(200),
  };
}

const SERVICE_ATTRIBUTES_EACH = 2;
const ROUTER_ATTRIBUTE_POOL = 100;
const ROUTER_ATTRIBUTES_EACH = 2;

/** Distinct attributes drawn by the same hash the identity seeder uses, sorted as the controller stores sets. */
function drawAttributes(index: number, salt: number, count: number, pool: number, prefix: string): string[] {
  const chosen = new Set<string>();
  for (let draw = 0; chosen.size < Math.min(count, pool); draw++)
    chosen.add(`${prefix}${mix(index * 104_729 + salt + draw) % pool}`);
  return [...chosen].sort(byteOrder);
}

export const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export const serviceName = (index: number) => `bench-service-${String(index).padStart(5, '0')}`;
export const routerName = (index: number) => `bench-edge-router-${String(index).padStart(3, '0')}`;

/** The 5% policy starts with the BASE services and the measurement adds and removes the EXTRA ones. */
export const FIVE_PERCENT = {
  identityAttribute: 'scale-five-percent',
  /** Every 20th bench identity carries the attribute. */
  identityStride: 20,
  policyName: 'bench-service-policy-five-percent',
  baseAttribute: 'scale-base',
  extraAttribute: 'scale-extra',
  baseServices: 10,
  extraServices: 20,
} as const;

export function serviceAttributesFor(model: ScaleModel, index: number): string[] {
  const drawn = drawAttributes(index, 17, SERVICE_ATTRIBUTES_EACH, model.serviceAttributePool, 'service-attr-');
  const { baseServices, extraServices, baseAttribute, extraAttribute } = FIVE_PERCENT;
  if (index < baseServices) drawn.push(baseAttribute);
  else if (index < baseServices + extraServices) drawn.push(extraAttribute);
  return drawn.sort(byteOrder);
}

export const routerAttributesFor = (index: number) =>
  drawAttributes(index, 31, ROUTER_ATTRIBUTES_EACH, ROUTER_ATTRIBUTE_POOL, 'router-attr-');

export interface SeededPolicy {
  name: string;
  /** Service policies only: 1 Dial, 2 Bind (as stored). */
  type?: 1 | 2;
  semantic: 'AllOf' | 'AnyOf';
  /** Role lists by column (`identity_roles`, …), each sorted. */
  roles: Record<string, string[]>;
}

/**
 * Policy i names identity attribute i mod 1000 and service attribute i mod pool: the first half Dial, the second
 * half Bind, so each identity attribute gets one Dial and one Bind policy with different services.
 */
export function servicePolicyAt(model: ScaleModel, index: number): SeededPolicy {
  return {
    name: `bench-service-policy-${String(index).padStart(4, '0')}`,
    type: index < model.servicePolicies / 2 ? 1 : 2,
    semantic: 'AllOf',
    roles: {
      identity_roles: [`#attr-${index % ATTRIBUTE_POOL}`],
      service_roles: [`#service-attr-${index % model.serviceAttributePool}`],
    },
  };
}

/** AnyOf, so that adding a second service attribute widens the selection rather than narrowing it. */
export const fivePercentPolicy = (withExtra: boolean): SeededPolicy => ({
  name: FIVE_PERCENT.policyName,
  type: 1,
  semantic: 'AnyOf',
  roles: {
    identity_roles: [`#${FIVE_PERCENT.identityAttribute}`],
    service_roles: [`#${FIVE_PERCENT.baseAttribute}`, ...(withExtra ? [`#${FIVE_PERCENT.extraAttribute}`] : [])],
  },
});

export const edgeRouterPolicyAt = (index: number): SeededPolicy => ({
  name: `bench-edge-router-policy-${String(index).padStart(3, '0')}`,
  semantic: 'AllOf',
  roles: {
    identity_roles: [`#attr-${(index * 5) % ATTRIBUTE_POOL}`],
    edge_router_roles: [`#router-attr-${index % ROUTER_ATTRIBUTE_POOL}`],
  },
});

export const serviceEdgeRouterPolicyAt = (model: ScaleModel, index: number): SeededPolicy => ({
  name: `bench-service-edge-router-policy-${String(index).padStart(3, '0')}`,
  semantic: 'AllOf',
  roles: {
    service_roles: [`#service-attr-${(index * 10) % model.serviceAttributePool}`],
    edge_router_roles: [`#router-attr-${index % ROUTER_ATTRIBUTE_POOL}`],
  },
});

/** 50 attributes × 2 policies × 10 services: about 1,000 services. */
const HEAVY_ATTRIBUTES = 50;

/** The identities the measurements log in as or change, with the password their updb authenticators share. */
export const scaleIdentities = {
  password: 'Bench-Identity-Password-1!',
  typical: { index: 7, name: identityName(7), username: 'bench-typical' },
  heavy: {
    name: 'bench-heavy-identity',
    username: 'bench-heavy',
    attributes: Array.from({ length: HEAVY_ATTRIBUTES }, (_, i) => `attr-${i}`).sort(byteOrder),
  },
  /** Not logged in: its role attributes flip between two sets while nobody reads its list. */
  changed: { index: 43, name: identityName(43), attributeSets: [attributesFor(43), attributesFor(1_000_043)] as const },
} as const;
