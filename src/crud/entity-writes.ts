// Create, update, patch and delete of any entity in one transaction, with its rules and constraint errors mapped.
import { ApiError } from '../errors/api-error.js';
import { formatTimestamp } from '../lib/clock.js';
import { StoreError, type Db, type WriteOptions } from '../store/store.js';
import type { EntityDeps } from '../app-deps.js';
import type { EntityDefinition, EntityValues } from './define-entity.js';
import type { EntityChange, WriteChange } from './entity-rules.js';
import { entityInput, type WriteMode } from './entity-input.js';
import { isJsonObject } from '../lib/object-path.js';
import { deleteEntity, findEntity, insertEntity, isNameTaken, updateEntity } from './entity-store.js';
import type { Scope } from '../store/queries/scopes.js';
import { recordEntityChange } from '../events/entity-change-log.js';
import { upstreamEntityType } from '../events/entity-types.js';

/** Values a create takes beside the body's (see createEntity). */
type Extra<V> = Partial<V> & Readonly<Record<string, unknown>>;

export function newEntityId(definition: Pick<EntityDefinition, 'idKind'>, deps: Pick<EntityDeps, 'ids'>): string {
  const ids = deps.ids;
  return definition.idKind === 'shortId' ? ids.shortId() : definition.idKind === 'cuid' ? ids.cuid() : ids.base62();
}

/**
 * Creates an entity from a request body in its own transaction; `extra` sets values the body cannot: fields (ids,
 * system flags) or inputs of the rules that are not fields (an authenticator's `verifiedByCaId`).
 */
export async function createEntity<V extends EntityValues>(
  deps: EntityDeps,
  definition: EntityDefinition<V>,
  body: unknown,
  extra: Extra<V> = {},
): Promise<string> {
  // An own-row create's rules read only inside the transaction (define-entity.ts ownRowWrites): BEGIN goes with
  // their first statement.
  return deps.store.transaction(
    (tx) => createEntityIn(tx, deps, definition, body, extra),
    definition.ownRowWrites ? { touches: [], beginsAtFirstStatement: true } : undefined,
  );
}

/** Where a write of an existing entity takes turns (define-entity.ts ownRowWrites): its row, or strictly. */
function rowWrite(definition: Pick<EntityDefinition, 'ownRowWrites' | 'table'>, id: string): WriteOptions | undefined {
  return definition.ownRowWrites ? { touches: [`${definition.table}:${id}`] } : undefined;
}

/**
 * Creates an entity inside a transaction the caller holds (e.g. an enrollment that creates its identity), with the
 * same rules, policy links and constraint errors as `createEntity`; nothing is written if the caller's work fails.
 */
export async function createEntityIn<V extends EntityValues>(
  tx: Db,
  deps: EntityDeps,
  definition: EntityDefinition<V>,
  body: unknown,
  extra: Extra<V> = {},
): Promise<string> {
  return (await insertCreated(tx, deps, definition, body, extra, false)).id;
}

/**
 * As createEntityIn, answering the entity as stored: from the insert's own statement (`RETURNING`), or read again
 * when the definition's rules write after the insert (their afterWrite may change it).
 */
export async function createdEntityIn<V extends EntityValues>(
  tx: Db,
  deps: EntityDeps,
  definition: EntityDefinition<V>,
  body: unknown,
  extra: Extra<V> = {},
): Promise<V> {
  const returning = definition.rules.afterWrite === undefined;
  const { id, stored } = await insertCreated(tx, deps, definition, body, extra, returning);
  return stored ?? requireEntity(tx, definition, id);
}

async function insertCreated<V extends EntityValues>(
  tx: Db,
  deps: EntityDeps,
  definition: EntityDefinition<V>,
  body: unknown,
  extra: Extra<V>,
  returning: boolean,
): Promise<{ id: string; stored: V | undefined }> {
  const { values, changed } = entityInput(definition, body, 'create');
  const now = formatTimestamp(deps.clock());
  const id = extra.id ?? newEntityId(definition, deps);
  // Create writes every writable field (entityInput); fields no body may set come from `extra` or the rules'
  // `validate`, or are stored as their kind's empty value.
  const after = { ...values, isSystem: false, ...extra, id, createdAt: now, updatedAt: now } as V;
  const change: WriteChange<V> = { op: 'create', id, body: isJsonObject(body) ? body : {}, after, changed };
  try {
    const stored = await runRules(deps, definition, change, tx, () =>
      insertEntity(tx, definition, change.after, returning),
    );
    return { id, stored };
  } catch (error) {
    // Inside a transaction the driver's own error arrives (the store translates only at its boundary).
    rethrowStoreError(
      definition,
      error instanceof StoreError ? error : (deps.store.translateError(error) ?? error),
      change.after,
    );
  }
}

export async function modifyEntity<V extends EntityValues>(
  deps: EntityDeps,
  definition: EntityDefinition<V>,
  id: string,
  body: unknown,
  mode: Exclude<WriteMode, 'create'>,
): Promise<void> {
  const { values, changed } = entityInput(definition, body, mode);
  await deps.store
    .transaction(
      async (tx) => {
        const before = await requireEntity(tx, definition, id);
        // The body's values are of the fields they are named by (validated against the contract, which they mirror).
        const after = { ...before, ...values, updatedAt: formatTimestamp(deps.clock()) } as V;
        const change: WriteChange<V> = { op: mode, id, body: isJsonObject(body) ? body : {}, before, after, changed };
        await runRules(deps, definition, change, tx, () => updateEntity(tx, definition, change.after));
      },
      rowWrite(definition, id),
    )
    .catch((error: unknown) => rethrowStoreError(definition, error, values));
}

/**
 * Deletes an entity in its own transaction; `scope` (the caller's own rows) makes one outside it as missing as one
 * that does not exist.
 */
export async function removeEntity<V extends EntityValues>(
  deps: EntityDeps,
  definition: EntityDefinition<V>,
  id: string,
  scope?: (tx: Db) => Promise<Scope>,
): Promise<void> {
  await deps.store
    .transaction(async (tx) => removeEntityIn(tx, deps, definition, id, await scope?.(tx)), rowWrite(definition, id))
    .catch((error: unknown) => {
      // Rules name the referencing entities where they can; the database's own refusal is the backstop.
      if (error instanceof StoreError && error.kind === 'foreignKey') {
        throw ApiError.withMessage(
          'CAN_NOT_DELETE_REFERENCED_ENTITY',
          `${definition.type} ${id} is referenced by another entity`,
        );
      }
      throw error;
    });
}

/** Deletes an entity through its rules inside a transaction the caller holds (e.g. a re-enroll that replaces it). */
export async function removeEntityIn<V extends EntityValues>(
  tx: Db,
  deps: EntityDeps,
  definition: EntityDefinition<V>,
  id: string,
  scope?: Scope,
): Promise<void> {
  const before = await findEntity(tx, definition, id, scope);
  if (!before) throw ApiError.notFound(definition.deletedAs, id);
  await definition.rules.beforeDelete?.({ tx, deps }, before);
  const change: EntityChange<V> = { op: 'delete', id, before, changed: new Set() };
  await deleteEntity(tx, definition, id);
  await definition.rules.afterWrite?.({ tx, deps }, change);
  await recordChange(tx, definition, change);
}

/** The entity with this id, else 404; with a `scope` (the caller's own rows), one outside it is missing too. */
export async function requireEntity<V extends EntityValues>(
  db: Db,
  definition: EntityDefinition<V>,
  id: string,
  scope?: Scope,
): Promise<V> {
  const found = await findEntity(db, definition, id, scope);
  if (!found) throw ApiError.notFound(definition.type, id);
  return found;
}

/** Runs the checks and rules around `persist`; answers what it answered. */
async function runRules<V extends EntityValues, T>(
  deps: EntityDeps,
  definition: EntityDefinition<V>,
  change: WriteChange<V>,
  tx: Db,
  persist: () => Promise<T>,
): Promise<T> {
  // Field checks run once the entity is known to exist, so a missing one is a 404 whatever the body holds.
  for (const name of change.changed) definition.fields[name]?.check?.(change.after[name]);
  await definition.rules.validate?.({ tx, deps }, change);
  await requireFreeName(tx, definition, change);
  const persisted = await persist();
  await definition.rules.afterWrite?.({ tx, deps }, change);
  await recordChange(tx, definition, change);
  return persisted;
}

/** The committed change's record and events (events/entity-change-log.ts), in the write's transaction. */
function recordChange<V extends EntityValues>(
  tx: Db,
  definition: EntityDefinition<V>,
  change: EntityChange<V>,
): Promise<void> {
  return recordEntityChange(tx, {
    changeType: change.op === 'create' ? 'created' : change.op === 'delete' ? 'deleted' : 'updated',
    entityType: upstreamEntityType(definition.path),
    entityId: change.id,
    before: change.before,
    after: change.after,
    changedFields: [...change.changed],
  });
}

/**
 * Upstream's managers check a new name after the entity's own checks (a CA's certificate) and before the store's
 * indexes, so a duplicate name is reported even when another unique field (a signer's issuer) is duplicated too.
 */
async function requireFreeName<V extends EntityValues>(
  tx: Db,
  definition: EntityDefinition<V>,
  change: WriteChange<V>,
): Promise<void> {
  const name = change.after.name;
  if (definition.duplicateName !== 'checked' || !change.changed.has('name') || typeof name !== 'string') return;
  if (await isNameTaken(tx, definition, name, change.id)) throw duplicateNameError(definition, name);
}

function duplicateNameError(definition: EntityDefinition<never>, value: unknown): ApiError {
  // Upstream's wording, typo included (ziti controller/models/base_model.go ValidateNameOnCreate); the store's
  // index names its bolt bucket, which is our table.
  return definition.duplicateName === 'checked'
    ? ApiError.invalidField('name', 'name is must be unique', value)
    : ApiError.invalidField(
        'name',
        `duplicate value '${String(value)}' in unique index on ${definition.table} store`,
        value,
      );
}

/**
 * Unique-index violations become the upstream field error on the field that owns the column; a reference to a
 * missing entity that no rule caught first becomes REFERENCED_ENTITY_NOT_FOUND rather than a 500.
 */
function rethrowStoreError<V extends EntityValues>(
  definition: EntityDefinition<V>,
  error: unknown,
  values: Record<string, unknown>,
): never {
  if (error instanceof StoreError && error.kind === 'foreignKey') {
    throw ApiError.withMessage(
      'REFERENCED_ENTITY_NOT_FOUND',
      `a ${definition.type} field references an entity that does not exist`,
    );
  }
  if (!(error instanceof StoreError) || error.kind !== 'unique' || error.table !== definition.table) throw error;
  const ruleError = definition.rules.uniqueError?.(error.columns);
  if (ruleError) throw ruleError;
  const [name] = Object.entries(definition.fields).find(([, spec]) => error.columns.includes(spec.column)) ?? [
    error.columns[0] ?? 'id',
  ];
  const value = values[name];
  if (name === 'name') throw duplicateNameError(definition, value);
  throw ApiError.invalidField(
    name,
    `duplicate value '${String(value)}' in unique index on ${definition.path} store`,
    value,
  );
}
