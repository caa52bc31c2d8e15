// Posture check rules: the type fixed at create, its fields checked and stored per type, MFA's filter columns.
import { ApiError } from '../../errors/api-error.js';
import type { EntityChange, EntityRules } from '../../crud/entity-rules.js';
import { postureCheckSubtype, type Details, type PostureCheckSubtype } from './posture-check-subtypes.js';
import { withPolicyLinks } from '../shared/policy-links.rules.js';
import { setPromptColumns } from '../../store/queries/posture.js';
import { isJsonObject } from '../../lib/object-path.js';

/**
 * The type comes from the create body and never changes. The contract's discriminator also lets its base names
 * through (`"typeId": "postureCheckCreate"`), which name no type: upstream then fails with a nil subtype (500),
 * we answer 400. On PUT and PATCH the body must name the stored type; upstream would write the other type's
 * fields where nothing reads them and answer 200, which hides the mistake.
 */
function subtypeOf(change: EntityChange): PostureCheckSubtype {
  const typeId = change.after!.typeId;
  const given = change.body?.typeId;
  if (change.op !== 'create' && given !== typeId) {
    throw ApiError.invalidField(
      'typeId',
      `the type of a posture check cannot be changed from ${String(typeId)}`,
      given,
    );
  }
  const subtype = postureCheckSubtype(typeId);
  if (!subtype) throw ApiError.invalidField('typeId', 'unknown posture check type', typeId);
  return subtype;
}

/** The type's own fields present in the body; null counts as absent (PATCH ignores it, PUT takes the zero value). */
function givenFields(body: Readonly<Record<string, unknown>>, subtype: PostureCheckSubtype): Details {
  return Object.fromEntries(
    subtype.fields.flatMap((field) =>
      body[field] === undefined || body[field] === null ? [] : [[field, body[field]]],
    ),
  );
}

const ownRules: EntityRules = {
  validate(_context, change) {
    const after = change.after;
    const subtype = subtypeOf(change);
    let input = givenFields(change.body ?? {}, subtype);
    if (change.op === 'patch') {
      const stored = isJsonObject(change.before.details) ? change.before.details : {};
      input = subtype.merge ? subtype.merge(stored, input) : { ...stored, ...input };
    }
    after.details = subtype.normalise(input);
    after.version = 1;
    return Promise.resolve();
  },

  /**
   * Upstream keeps `promptOnWake` / `promptOnUnlock` only in an MFA check's own bucket, so on other checks the
   * symbols have no value: `promptOnWake = null` matches them (and, as for any missing bool, `= false`). The kit
   * writes booleans as 0/1; this sets the columns the way the symbols read.
   */
  async afterWrite({ tx }, change) {
    if (change.op === 'delete') return;
    const after = change.after;
    await setPromptColumns(
      tx,
      change.id,
      postureCheckSubtype(after.typeId)?.filterValues?.(isJsonObject(after.details) ? after.details : {}),
    );
  },

  /** Upstream renders missing role attributes as [] here (unlike identities), then the type's own fields. */
  extend(_context, checks) {
    return Promise.resolve(
      checks.map((check) => ({
        roleAttributes: check.roleAttributes ?? [],
        ...postureCheckSubtype(check.typeId)?.render(isJsonObject(check.details) ? check.details : {}),
      })),
    );
  },
};

export const postureCheckRules: EntityRules = withPolicyLinks('postureCheck', ownRules);
