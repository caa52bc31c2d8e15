// Identity rules: type mapping, auth-policy reference, the undeletable default admin, enrollments, computed fields.
import { ApiError } from '../../errors/api-error.js';
import type { EntityRules, RuleContext, WriteChange } from '../../crud/entity-rules.js';
import { isJsonObject } from '../../lib/object-path.js';
import { authPolicyExists } from '../../store/queries/auth-policies.js';
import { caExists } from '../../store/queries/cas.js';
import { identityExtras } from '../../store/queries/identities.js';
import type { Db } from '../../store/store.js';
import { withPolicyLinks } from '../shared/policy-links.rules.js';
import {
  createEnrollment,
  DEFAULT_ENROLLMENT_LIFETIME_MS,
  requireUnusedUsername,
} from '../../enrollment/create-enrollment.js';
import { identityEnrollments } from './identity-enrollments.js';
import { isIdentityDisabled } from '../../auth/identity-disable.js';
import type { Identity } from './identity.fields.js';
import { omitEmpty } from '../../lib/omit-empty.js';

/** The REST enum User, Device, Service and Default all mean type Default; Router is reserved for the system. */
function typeIdFor(type: unknown): string {
  if (type === 'Router') throw ApiError.invalidField('type', 'may not create identities with given typeId', type);
  return 'Default';
}

async function requireAuthPolicy(tx: Db, id: unknown): Promise<void> {
  if (!(await authPolicyExists(tx, String(id))))
    throw ApiError.invalidField('authPolicyId', 'no auth policy found with the given id', id);
}

/**
 * A Router identity exists because its edge router is tunneler-enabled and follows that router: its name and type
 * change only with the router. Role attributes and the rest stay editable, as upstream (`model/identity_model.go`
 * toBoltEntityForUpdate), so policies can select it.
 */
function refuseRouterIdentityChange(change: WriteChange<Identity>): void {
  const type = change.body.type;
  if (type !== undefined && type !== null && type !== 'Router') {
    throw ApiError.invalidField('typeId', 'may not change type of router identities', 'Default');
  }
  if (change.changed.has('name') && change.after.name !== change.before?.name) {
    throw ApiError.invalidField('name', 'may not change name of router identities', change.after.name);
  }
}

/**
 * `enrollment: {ott | ottca | updb}` on create: the first one set is made, for the default lifetime, in the
 * identity's transaction (upstream `routes/identity_api_model.go` MapCreateIdentityToModel, CreateWithEnrollments).
 */
async function createRequestedEnrollment(
  { tx, deps }: RuleContext,
  identityId: string,
  requested: unknown,
): Promise<void> {
  const { ott, ottca, updb } = isJsonObject(requested) ? requested : {};
  const now = deps.clock();
  const expiresAt = new Date(now.getTime() + DEFAULT_ENROLLMENT_LIFETIME_MS);
  if (ott === true) {
    await createEnrollment(tx, deps, { method: 'ott', identityId, expiresAt });
  } else if (typeof ottca === 'string' && ottca) {
    if (!(await caExists(tx, ottca))) throw ApiError.invalidField('enrollment.ottca', 'ca not found', ottca);
    await createEnrollment(tx, deps, { method: 'ottca', identityId, caId: ottca, expiresAt });
  } else if (typeof updb === 'string' && updb) {
    await requireUnusedUsername(tx, updb, 'enrollment.updb', now);
    await createEnrollment(tx, deps, { method: 'updb', identityId, username: updb, expiresAt });
  }
}

const ownRules: EntityRules<Identity> = {
  async validate({ tx }: RuleContext, change) {
    const { after, body } = change;
    const typeGiven = body.type !== undefined && body.type !== null;
    if (change.op === 'create') after.typeId = typeIdFor(body.type);
    else if (change.before?.typeId === 'Router') refuseRouterIdentityChange(change);
    else if (typeGiven) after.typeId = typeIdFor(body.type);
    if (change.op === 'create' || change.changed.has('authPolicyId')) await requireAuthPolicy(tx, after.authPolicyId);
  },

  async afterWrite(context, change) {
    if (change.op === 'create') await createRequestedEnrollment(context, change.id, change.body.enrollment);
  },

  beforeDelete(_context, existing) {
    if (existing.isDefaultAdmin) {
      return Promise.reject(ApiError.withMessage('ENTITY_CAN_NOT_BE_DELETED', 'the default admin cannot be deleted'));
    }
    if (existing.typeId === 'Router') {
      // It goes when its router is deleted or stops tunneling; upstream's wording (`db/identity_store.go` DeleteById).
      const message = `cannot delete router identity ${existing.name} until associated router is deleted`;
      return Promise.reject(ApiError.withMessage('ENTITY_CAN_NOT_BE_DELETED', message));
    }
    return Promise.resolve();
  },

  async extend({ db, deps }, entities) {
    const ids = entities.map((e) => e.id);
    if (ids.length === 0) return [];
    const policyIds = [...new Set(entities.map((e) => e.authPolicyId))];
    const { authenticators, withApiSession, authPolicyNames, withMfa, enrollments } = await identityExtras(
      db,
      ids,
      policyIds,
    );
    const enrollmentsOf = identityEnrollments(enrollments);
    const now = deps.clock();
    return entities.map((entity) => {
      const own = authenticators.filter((a) => a.identityId === entity.id);
      const updb = own.find((a) => a.method === 'updb');
      const cert = own.find((a) => a.method === 'cert');
      const { authPolicyId: policyId, typeId } = entity;
      return {
        appData: entity.appData ?? {},
        authPolicy: {
          _links: { self: { href: `./auth-policies/${policyId}` } },
          entity: 'auth-policies',
          id: policyId,
          name: authPolicyNames.get(policyId) ?? '',
        },
        authenticators: {
          ...(updb ? { updb: { id: updb.id, username: updb.username } } : {}),
          ...(cert ? { cert: { fingerprint: cert.certFingerprint, id: cert.id } } : {}),
        },
        disabled: isIdentityDisabled(entity, now),
        ...omitEmpty({ disabledAt: entity.disabledAt, disabledUntil: entity.disabledUntil }),
        enrollment: enrollmentsOf(entity.id),
        envInfo: entity.envInfo ?? {},
        externalId: entity.externalId ?? null,
        hasApiSession: withApiSession.has(entity.id),
        // Routers' control channel is out of scope, so no edge router connection is ever seen.
        hasEdgeRouterConnection: false,
        isMfaEnabled: withMfa.has(entity.id),
        sdkInfo: entity.sdkInfo ?? {},
        serviceHostingCosts: entity.serviceHostingCosts ?? {},
        serviceHostingPrecedences: entity.serviceHostingPrecedences ?? {},
        type: {
          _links: { self: { href: `./identity-types/${typeId}` } },
          entity: 'identity-types',
          id: typeId,
          name: typeId,
        },
      };
    });
  },
};

export const identityRules: EntityRules<Identity> = withPolicyLinks('identity', ownRules);
