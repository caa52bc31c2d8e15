// Service rules: the terminator strategy, attached configs, and the caller's access view.
import { ApiError } from '../../errors/api-error.js';
import type { EntityRules } from '../../crud/entity-rules.js';
import type { Service } from './service.fields.js';
import { configsWithTypes } from '../../store/queries/configs.js';
import type { Db } from '../../store/store.js';
import { withPolicyLinks } from '../shared/policy-links.rules.js';
import type { ConfigTypeSelection } from '../../store/queries/configs.js';
import { serviceAccessViews, type PermissionSource } from '../../policy/service-access.js';
import { postureViewFor } from '../../posture/posture-inputs.js';
import type { PostureCheckRecord } from '../../posture/check-evaluation.js';

/** The strategies upstream registers (ziti `controller/xt_*`); there is no `ha` in v1.1.8. */
const TERMINATOR_STRATEGIES: readonly string[] = ['smartrouting', 'weighted', 'random', 'sticky'];
const DEFAULT_TERMINATOR_STRATEGY = 'smartrouting';

/** An empty strategy means the default; an unknown one is a not-found, as upstream's strategy registry answers. */
function terminatorStrategyOf(value: unknown): string {
  const name = typeof value === 'string' && value !== '' ? value : DEFAULT_TERMINATOR_STRATEGY;
  if (!TERMINATOR_STRATEGIES.includes(name))
    throw ApiError.withMessage('NOT_FOUND', `terminatorStrategy with name ${name} not found`);
  return name;
}

interface AttachedConfig {
  id: string;
  name: string;
  typeId: string;
  typeName: string;
}

/**
 * Every attached config must exist (404, as upstream's store answers) and no two may share a config type
 * (ziti `model/edge_service_model.go` `validateConfigs`, whose message — typo and trailing space — we keep).
 */
async function checkConfigs(tx: Db, ids: readonly string[]): Promise<void> {
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return;
  const rows = await configsWithTypes(tx, wanted);
  const found = new Map<string, AttachedConfig>(rows.map((row) => [row.id, row]));
  const byType = new Map<string, AttachedConfig>();
  for (const id of wanted) {
    const attached = found.get(id);
    if (!attached) throw ApiError.withMessage('NOT_FOUND', `configs with id ${id} not found`);
    const conflict = byType.get(attached.typeId);
    if (conflict) {
      const reason = `duplicate configs named ${conflict.name} and ${attached.name} found for config type ${attached.typeName}. Only one config of a given typed is allowed per service `;
      throw ApiError.invalidField('configs', reason, ids);
    }
    byType.set(attached.typeId, attached);
  }
}

const ownRules: EntityRules<Service> = {
  async validate({ tx }, change) {
    const after = change.after;
    after.terminatorStrategy = terminatorStrategyOf(after.terminatorStrategy);
    if (change.changed.has('configs')) await checkConfigs(tx, after.configs ?? []);
  },

  extend: serviceView(),
};

export const serviceRules: EntityRules<Service> = withPolicyLinks('service', ownRules);

/**
 * The caller's view of a page of services: `permissions`, `config` (by config type name, for the API session's
 * config types unless `configTypes` overrides them) and `postureQueries`. `configs` (the attached ids) is always a
 * list. Without a caller (outside a request) nothing is granted and no config is expanded. `permissions` says where
 * they come from (read from the caller's pairs by default).
 */
export function serviceView(
  configTypes?: ConfigTypeSelection,
  permissions?: PermissionSource,
): NonNullable<EntityRules['extend']> {
  return async ({ db, deps, caller }, services) => {
    const session = caller?.session;
    const viewer = session && {
      identityId: session.identityId,
      apiSessionId: session.apiSessionId,
      isAdmin: session.isAdmin,
    };
    const posture =
      session &&
      ((checks: readonly PostureCheckRecord[]) =>
        postureViewFor(db, deps.posture, session.identityId, session.apiSessionId, deps.clock(), checks));
    const ids = services.map((entity) => entity.id);
    const views = await serviceAccessViews(db, viewer, ids, configTypes, posture, permissions);
    return services.map((entity, index) => ({ configs: entity.configs ?? [], ...views[index] }));
  };
}
