// Adds the policy engine's hooks to an entity's own rules: links follow the entity's role attributes, `@id`
// references go before the entity does, and the identities whose service lists depend on it are told.
import { formatTimestamp } from '../../lib/clock.js';
import type { EntityRules, EntityValues } from '../../crud/entity-rules.js';
import type { EntityKindName } from '../../store/queries/policy-tables.js';
import { syncEntity } from '../../policy/entity-links.js';
import { stripEntityReferences } from '../../store/queries/entity-policies.js';
import { touchServiceLists, type ServiceListHolders } from '../../store/queries/service-lists.js';
import type { Db } from '../../store/store.js';

/** Which identities' service lists depend on an entity of this kind beyond policy links (e.g. a service's name). */
function dependentIdentities(kind: EntityKindName, id: string): ServiceListHolders | undefined {
  if (kind === 'service') return { services: [id] };
  if (kind === 'postureCheck') return { servicePoliciesOfPostureCheck: id };
  return undefined;
}

async function touchDependents(tx: Db, kind: EntityKindName, id: string, at: string): Promise<void> {
  const identities = dependentIdentities(kind, id);
  if (identities) await touchServiceLists(tx, identities, at);
}

/**
 * `appliesTo` narrows the entities of a shared table (edge routers among routers). New entities are always
 * evaluated, so `#all` policies pick them up even without attributes.
 */
export function withPolicyLinks<V extends EntityValues & { roleAttributes: string[] | null }>(
  kind: EntityKindName,
  rules: EntityRules<V>,
  appliesTo: (entity: V) => boolean = () => true,
): EntityRules<V> {
  return {
    ...rules,
    async afterWrite(context, change) {
      await rules.afterWrite?.(context, change);
      if (change.op === 'delete' || !appliesTo(change.after)) return;
      const at = formatTimestamp(context.deps.clock());
      if (change.op === 'create' || change.changed.has('roleAttributes')) {
        await syncEntity(context.tx, kind, change.id, change.after.roleAttributes ?? null, at);
      }
      if (change.op !== 'create') await touchDependents(context.tx, kind, change.id, at);
    },
    async beforeDelete(context, existing) {
      await rules.beforeDelete?.(context, existing);
      if (!appliesTo(existing)) return;
      const at = formatTimestamp(context.deps.clock());
      await touchDependents(context.tx, kind, existing.id, at);
      await stripEntityReferences(context.tx, kind, existing.id, at);
    },
  };
}
