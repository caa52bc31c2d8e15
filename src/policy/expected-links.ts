// What the policy engine's link tables should hold, evaluated from scratch in plain code
// (docs/reference/policies-services-sessions.md §1.3, §2.4, §2.6) and independent of the engine's SQL: the integrity
// scan checks the stored links against it, and the tests and the bench check the engine through that scan.
import { entityKinds, policyKinds, type EntityKindName, type PolicyKind } from '../store/queries/policy-tables.js';
import { keysOf } from '../lib/collections.js';

/**
 * The selection rule of docs/reference/policies-services-sessions.md §1.3: `@id` or `#all`; else AnyOf / AllOf over the
 * `#attr` roles.
 */
export function matches(
  roles: readonly string[],
  semantic: unknown,
  id: string,
  attributes: readonly string[],
): boolean {
  if (roles.includes(`@${id}`) || roles.includes('#all')) return true;
  const wanted = roles.filter((role) => role.startsWith('#')).map((role) => role.slice(1));
  if (wanted.length === 0) return false;
  return semantic === 'AnyOf'
    ? wanted.some((a) => attributes.includes(a))
    : wanted.every((a) => attributes.includes(a));
}

export interface PolicyRecord {
  id: string;
  /** Service policies' stored type (1 Dial, 2 Bind). */
  type: unknown;
  semantic: unknown;
  /** Role list per side field (`identityRoles`, …). */
  roles: Readonly<Record<string, readonly string[]>>;
}

export interface EntityRecord {
  id: string;
  attributes: readonly string[];
}

/**
 * The policies of one kind that select an entity on one side. Candidates come from an index of the policies' role
 * entries (`#all`, `@id`, `#attr`): a policy that selects the entity must hold one of them. The rule decides.
 */
class SideSelection {
  readonly #byRole = new Map<string, PolicyRecord[]>();

  constructor(
    readonly field: string,
    policies: readonly PolicyRecord[],
  ) {
    for (const policy of policies) {
      for (const role of new Set(policy.roles[field] ?? [])) {
        const list = this.#byRole.get(role);
        if (list) list.push(policy);
        else this.#byRole.set(role, [policy]);
      }
    }
  }

  select({ id, attributes }: EntityRecord): PolicyRecord[] {
    const candidates = new Set(
      [`#all`, `@${id}`, ...attributes.map((a) => `#${a}`)].flatMap((role) => this.#byRole.get(role) ?? []),
    );
    return [...candidates].filter((policy) => matches(policy.roles[this.field] ?? [], policy.semantic, id, attributes));
  }
}

/**
 * The expected links of every policy kind. Entities of the smaller kinds (services, edge routers, posture checks)
 * are added once and their memberships kept per policy; identities, the large kind, are evaluated one at a time.
 */
export class ExpectedLinks {
  readonly #selections = new Map<string, SideSelection>();
  /** policy id → side field → the ids of the entities it selects there (kinds added with addEntities only). */
  readonly #members = new Map<string, Map<string, string[]>>();

  constructor(policies: ReadonlyMap<PolicyKind, readonly PolicyRecord[]>) {
    for (const kind of policyKinds) {
      for (const side of kind.sides)
        this.#selections.set(`${kind.name}.${side.field}`, new SideSelection(side.field, policies.get(kind) ?? []));
    }
  }

  /** The policies of `kind` whose `field` side selects the entity. */
  policiesSelecting(kind: PolicyKind, field: string, entity: EntityRecord): PolicyRecord[] {
    return this.#selections.get(`${kind.name}.${field}`)?.select(entity) ?? [];
  }

  /** Records which policies select each of these entities, on every side of that entity kind. */
  addEntities(entityKind: EntityKindName, entities: readonly EntityRecord[]): void {
    for (const kind of policyKinds) {
      for (const side of kind.sides.filter((s) => s.entity === entityKind)) {
        for (const entity of entities) {
          for (const policy of this.policiesSelecting(kind, side.field, entity))
            this.#membersOf(policy.id, side.field).push(entity.id);
        }
      }
    }
  }

  /** Entities added with addEntities that the policy selects on `field`. */
  members(policyId: string, field: string): readonly string[] {
    return this.#members.get(policyId)?.get(field) ?? [];
  }

  /**
   * The pair rows of `kind` for one entity of its first side: for every policy selecting it, one count (in the
   * policy's count column) per member of the second side. Keyed by the second side's id.
   */
  pairsOf(kind: PolicyKind, entity: EntityRecord): Map<string, Record<string, number>> {
    const [first, second] = kind.sides;
    const pairs = new Map<string, Record<string, number>>();
    for (const policy of this.policiesSelecting(kind, first.field, entity)) {
      const column = kind.pairs.countColumn(policy);
      for (const other of this.members(policy.id, second.field)) {
        const counts = pairs.get(other) ?? {};
        counts[column] = (counts[column] ?? 0) + 1;
        pairs.set(other, counts);
      }
    }
    return pairs;
  }

  #membersOf(policyId: string, field: string): string[] {
    let sides = this.#members.get(policyId);
    if (!sides) this.#members.set(policyId, (sides = new Map<string, string[]>()));
    let list = sides.get(field);
    if (!list) sides.set(field, (list = []));
    return list;
  }
}

/** The entity kinds kept in memory by addEntities: every kind but identities. */
export const memberKinds = keysOf(entityKinds).filter((kind) => kind !== 'identity');
