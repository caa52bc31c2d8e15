// Writes made outside the generic entity writes (entity-writes.ts) are recorded as those record theirs: upstream's
// stores emit an entityChange for every write, whoever makes it (a login's client info, an enrollment used, a
// router's enrolled certificate). The entity is read through its definition before and after the write; a write
// that changed nothing records nothing.
import { isDeepStrictEqual } from 'node:util';
import type { Db } from '../store/store.js';
import type { EntityDefinition, EntityValues } from './define-entity.js';
import { findEntity, rowToValues } from './entity-store.js';
import type { Row } from '../store/queries/entities.js';
import { recordEntityChange, type EntityChangeFact } from '../events/entity-change-log.js';
import { upstreamEntityType } from '../events/entity-types.js';

type State = Readonly<Record<string, unknown>>;

const byType = new Map<string, EntityDefinition>();

/**
 * Makes a definition reachable by its type (`enrollment`) for code that writes its entity but cannot import it (the enrollment
 * definition's rules import the routers', whose rules create enrollments: an import cycle).
 */
export function recordable<V extends EntityValues>(definition: EntityDefinition<V>): EntityDefinition<V> {
  byType.set(definition.type, definition);
  return definition;
}

/** The definition `recordable` registered for `type`; its module is loaded wherever its entity can be written. */
export function recordableEntity(type: string): EntityDefinition {
  const definition = byType.get(type);
  if (!definition) throw new Error(`no recordable entity definition of type ${type} is loaded`);
  return definition;
}

export interface RecordOptions {
  /** Who made it, where that is not the running request's caller (the identity logging in, the router enrolling). */
  context?: EntityChangeFact['context'];
  /** The router whose control channel the write came through (its addresses join the source). */
  throughRouter?: string;
  /** Values the definition does not read that upstream's state holds and the write changes (an identity's sdkInfo). */
  extra?: (db: Db, id: string) => Promise<State>;
}

/** Runs `write` (a write of the entity `id` of `definition` in `tx`) and records what it changed. */
export async function recordedWrite<V extends EntityValues, T>(
  tx: Db,
  definition: EntityDefinition<V>,
  id: string,
  write: () => Promise<T>,
  options: RecordOptions = {},
): Promise<T> {
  const before = await readState(tx, definition, id, options);
  const result = await write();
  await recordStates(
    tx,
    upstreamEntityType(definition.path),
    id,
    before,
    await readState(tx, definition, id, options),
    options,
  );
  return result;
}

/**
 * Runs `insert` (an INSERT of one entity of `definition` answering the stored row, as RETURNING does) and records the
 * creation from that row: no read after it (a statement saved on a login's path).
 */
export async function recordedInsert<V extends EntityValues>(
  tx: Db,
  definition: EntityDefinition<V>,
  insert: () => Promise<Row>,
  options: Pick<RecordOptions, 'context' | 'throughRouter'> = {},
): Promise<V> {
  const after = rowToValues(definition, await insert());
  await recordStates(tx, upstreamEntityType(definition.path), after.id, undefined, after, options);
  return after;
}

/** The entity as its definition reads it, with the extra state upstream's holds. */
async function readState<V extends EntityValues>(
  tx: Db,
  definition: EntityDefinition<V>,
  id: string,
  options: RecordOptions,
): Promise<State | undefined> {
  const found = await findEntity(tx, definition, id);
  return found && { ...found, ...(options.extra ? await options.extra(tx, id) : {}) };
}

/**
 * Records the change between two states of one entity of upstream's `entityType` (either absent: a create or a
 * delete), if there is one.
 */
export async function recordStates(
  tx: Db,
  entityType: string,
  id: string,
  before: State | undefined,
  after: State | undefined,
  options: Pick<RecordOptions, 'context' | 'throughRouter'> = {},
): Promise<void> {
  if (!before && !after) return;
  // As the generic writes name them: the fields set, not the timestamps every write moves.
  const changedFields = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])].filter(
    (key) => key !== 'updatedAt' && !isDeepStrictEqual(before?.[key], after?.[key]),
  );
  if (before && after && changedFields.length === 0) return;
  await recordEntityChange(tx, {
    changeType: !before ? 'created' : !after ? 'deleted' : 'updated',
    entityType,
    entityId: id,
    before,
    after,
    changedFields,
    ...(options.context ? { context: options.context } : {}),
    ...(options.throughRouter ? { throughRouter: options.throughRouter } : {}),
  });
}
