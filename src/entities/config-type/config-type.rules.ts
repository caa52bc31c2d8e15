// Config type rules: the reserved name, a schema that compiles with an object root, no delete while in use.
import { ApiError } from '../../errors/api-error.js';
import type { EntityRules } from '../../crud/entity-rules.js';
import { goQuote } from '../../lib/go-format.js';
import { isJsonObject } from '../../lib/object-path.js';
import { hasConfigsOfType } from '../../store/queries/configs.js';
import { configDataCheck, withSortedKeys } from '../shared/config-type-schema.js';

/** `all` asks for every config type in `configTypes` lists, so no type may carry that name. */
const RESERVED_NAME = 'all';

/**
 * The contract takes any JSON value as the schema (Go's interface{}); upstream's router refuses anything but an
 * object before anything else, with go-openapi's InvalidType (the value quoted only when it is a string).
 */
function requireObjectSchema(schema: unknown): void {
  if (schema === null || schema === undefined || isJsonObject(schema)) return;
  const shown = typeof schema === 'string' ? `: ${goQuote(schema)}` : '';
  throw ApiError.invalidField('schema', `schema in body must be of type object${shown}`, schema);
}

/**
 * The stored schema: absent stays absent; a non-empty one must compile and describe an object — upstream's
 * checks, in its order (ziti `model/config_type_model.go` `toBoltEntity`). Keys are sorted as Go's encoder
 * writes map keys.
 */
function checkedSchema(schema: unknown): unknown {
  if (schema === null || schema === undefined) return null;
  // The contract types the schema as an object; anything else is refused as ajv would refuse it.
  if (!isJsonObject(schema)) throw ApiError.invalidField('schema', 'invalid schema', schema);
  const document = schema;
  // An empty schema is stored as none, so it reads back null (ziti `db/config_type_store.go` PersistEntity).
  if (Object.keys(document).length === 0) return null;
  try {
    configDataCheck(document);
  } catch (error) {
    throw ApiError.invalidField(
      'schema',
      `invalid schema ${error instanceof Error ? error.message : String(error)}`,
      document,
    );
  }
  if (document.type !== 'object') {
    throw ApiError.invalidField('schema', 'invalid config type schema, root type must be object', document);
  }
  return withSortedKeys(document);
}

export const configTypeRules: EntityRules = {
  validate(_context, change) {
    const after = change.after;
    if (change.changed.has('schema')) requireObjectSchema(after.schema);
    if (after.name === RESERVED_NAME) {
      throw ApiError.invalidField(
        'name',
        `${RESERVED_NAME} is a keyword and may not be used as a config type name`,
        after.name,
      );
    }
    if (change.changed.has('schema')) after.schema = checkedSchema(after.schema);
    return Promise.resolve();
  },

  /** Upstream refuses with a plain error (a 500, in these words); the contract's 409 is what a client can act on. */
  async beforeDelete({ tx }, existing) {
    if (await hasConfigsOfType(tx, existing.id)) {
      throw ApiError.withMessage(
        'CAN_NOT_DELETE_REFERENCED_ENTITY',
        `cannot delete config type ${String(existing.id)}, as configs of that type exist`,
      );
    }
  },
};
