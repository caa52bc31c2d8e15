// The rules every policy kind shares: roles validated when they change, links synced inside the same write,
// unlinked before delete, and `*RolesDisplay` computed for a page at once.
import { ApiError } from '../../errors/api-error.js';
import { formatTimestamp } from '../../lib/clock.js';
import type { EntityChange, EntityRules, EntityValues, WriteChange } from '../../crud/entity-rules.js';
import type { PolicyKind } from '../../store/queries/policy-tables.js';
import { syncPolicy, unlinkPolicy, type PolicyRoles } from '../../policy/policy-links.js';
import { displayRoles, validateRoles } from '../../policy/roles.js';

const SEMANTICS: readonly string[] = ['AllOf', 'AnyOf'];

/** A role field's list as stored (null when empty). */
function rolesOf(values: EntityValues, field: string): string[] | null {
  const roles = values[field];
  return Array.isArray(roles) ? roles.filter((role): role is string => typeof role === 'string') : null;
}

function engineView(kind: PolicyKind, values: EntityValues): PolicyRoles {
  const roles = Object.fromEntries(kind.sides.map((side) => [side.field, rolesOf(values, side.field)]));
  return { id: values.id, semantic: values.semantic ?? 'AllOf', type: values.type, roles };
}

/** System policies belong to their edge router; upstream refuses REST changes with these codes and messages. */
function refuseSystem(change: EntityChange, type: string): void {
  if (!change.before?.isSystem) return;
  const op = change.op === 'delete' ? 'delete' : 'update';
  throw ApiError.withMessage(
    op === 'delete' ? 'ENTITY_CAN_NOT_BE_DELETED' : 'ENTITY_CAN_NOT_BE_UPDATED',
    `cannot ${op} system ${type} in a non-system context (id=${change.id})`,
  );
}

export interface PolicyRulesOptions {
  /** Entity-specific checks before the shared ones (e.g. a service policy's type). */
  validate?: (change: WriteChange) => void;
  /** Entity-specific computed fields merged into each page entry. */
  extend?: (entity: EntityValues) => Record<string, unknown>;
}

export function policyRules(kind: PolicyKind, type: string, options: PolicyRulesOptions = {}): EntityRules {
  return {
    async validate({ tx }, change) {
      refuseSystem(change, type);
      options.validate?.(change);
      const after = change.after;
      after.semantic ??= 'AllOf';
      // The contract lets a PATCH's "" through (an optional enum's zero value); upstream's store refuses it.
      if (typeof after.semantic !== 'string' || !SEMANTICS.includes(after.semantic))
        throw ApiError.invalidField('semantic', 'invalid semantic', after.semantic);
      for (const side of kind.sides) {
        // Upstream checks @ids only when the field changed in this write.
        if (change.op === 'create' || change.changed.has(side.field)) {
          await validateRoles(tx, side.field, side.entity, rolesOf(after, side.field) ?? []);
        }
      }
    },

    async afterWrite({ tx, deps }, change) {
      if (change.op === 'delete') return;
      const at = formatTimestamp(deps.clock());
      await syncPolicy(tx, kind, engineView(kind, change.after), change.before && engineView(kind, change.before), at);
    },

    async beforeDelete({ tx, deps }, existing) {
      refuseSystem({ op: 'delete', id: existing.id, before: existing, changed: new Set() }, type);
      await unlinkPolicy(tx, kind, engineView(kind, existing), formatTimestamp(deps.clock()));
    },

    async extend({ db }, policies) {
      const displays = await Promise.all(
        kind.sides.map((side) =>
          displayRoles(
            db,
            side.entity,
            policies.map((p) => rolesOf(p, side.field)),
          ),
        ),
      );
      return policies.map((policy, index) => {
        const extra: Record<string, unknown> = { ...options.extend?.(policy) };
        kind.sides.forEach((side, sideIndex) => {
          // Policies render empty role lists as [] (the contract's role arrays are not nullable).
          extra[side.field] = policy[side.field] ?? [];
          extra[`${side.field}Display`] = displays[sideIndex]?.[index];
        });
        return extra;
      });
    },
  };
}
