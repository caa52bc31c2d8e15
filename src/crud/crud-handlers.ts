// The generic operations every entity gets from its definition: list, detail, create, update, patch, delete.
import {
  createdEnvelope,
  emptyEnvelope,
  envelopeWriter,
  isVersionedMeta,
  listEnvelope,
  type EnvelopeWriter,
} from '../http/envelope.js';
import {
  operation,
  type Access,
  type CallerFor,
  type HandlerOf,
  type OperationContext,
  type OperationHandler,
  type OperationShape,
} from '../http/operation.js';
import type { RequestContext } from '../http/request-context.js';
import type { EntityDefinition } from './define-entity.js';
import type { EntityValues } from './entity-rules.js';
import { toApiEntities, toApiEntity } from './entity-mapping.js';
import { listEntities, listSetValues } from './entity-store.js';
import { createEntity, modifyEntity, removeEntity, requireEntity } from './entity-writes.js';
import { listQueryFrom } from './list-params.js';
import type { ListQuery } from '../store/filter/filter-types.js';
import { setValues } from '../store/naming.js';
import {
  columnIs,
  linkedTo as linkedRows,
  type LinkTable as StoredLinkTable,
  type Scope,
} from '../store/queries/scopes.js';
import type { Db } from '../store/store.js';
import { ReadCaches } from '../store/read-cache.js';
import type { ChangeKey } from '../store/store.js';

/** The operations addressed by an `{id}` path parameter: detail, update, patch, delete, sub-lists. */
export type ById = OperationShape & { params: { id: string } };

/**
 * Narrows a list beyond the request's filter: a parent's children (`identities/{id}/authenticators`) or the
 * caller's own rows. It may throw (404 for a missing parent).
 */
export type ListScope<Op extends OperationShape = OperationShape, Caller extends RequestContext = RequestContext> = (
  context: OperationContext<Op, Caller>,
  db: Db,
) => Promise<Scope>;

export interface ListOptions<
  Op extends OperationShape = OperationShape,
  Caller extends RequestContext = RequestContext,
> {
  scope?: ListScope<Op, Caller>;
  /**
   * Keeps answers, as sent, per query string until a committed write of any instance moves one of `dependsOn`
   * (changes.ts: every table the list's rows, computed fields and scope read). A page is not kept when one of its
   * entities has a value of a field that changes with time (FieldSpec.changesWithTime). Only for lists whose answer
   * depends on nothing but the query and the data (not on the caller).
   */
  keep?: { dependsOn: readonly ChangeKey[] };
  /**
   * Reads the page instead of the definition's rows under `scope` (a list whose rows and computed fields come
   * together from elsewhere, e.g. a client's services with its pair counts); the rows are what `keep` tests.
   */
  read?: (context: OperationContext<Op, Caller>, db: Db, query: ListQuery) => Promise<ListedPage>;
}

/**
 * Options of detail and remove: `scope` as for lists (the caller's own rows, a parent's children) finds the id only
 * among its rows; one outside it is as missing as one that does not exist (404), so nothing about it shows.
 */
export type FindOptions<
  Op extends OperationShape = OperationShape,
  Caller extends RequestContext = RequestContext,
> = Pick<ListOptions<Op, Caller>, 'scope'>;

/** A read page: its entities as stored and as the API shows them, and the count of all matches. */
export interface ListedPage {
  rows: EntityValues[];
  data: unknown[];
  totalCount: number;
}

/** Kept list answers: at most this many (per store; the least recently used go first), each at most this long. */
const KEPT_ANSWERS = 256;
const KEPT_ANSWER_CHARS = 64 * 1024;
const keptAnswers = new ReadCaches<{ text: string; isKeepable: boolean }>(KEPT_ANSWERS);

/**
 * A scope for sub-lists such as `identities/{id}/authenticators`: the `child` rows whose `field` holds the parent's
 * id. 404 when the parent is missing.
 */
export function childrenOf(parent: EntityDefinition, child: EntityDefinition, field: string): ListScope<ById> {
  return async (context, db) => {
    const { id } = context.params;
    await requireEntity(db, parent, id);
    return fieldIs(child, field, id);
  };
}

/** Rows whose `field` holds `value` (the caller's own: `identityId` is the caller's), named by field, not column. */
export function fieldIs(definition: EntityDefinition, field: string, value: string | number): Scope {
  const spec = definition.fields[field];
  if (!spec) throw new Error(`${definition.type} has no field ${field}`);
  return columnIs(spec.column, value);
}

/** A link table the policy engine maintains: which column holds the parent (its id or key) and which the listed entity. */
export interface LinkTable extends StoredLinkTable {
  /** A count column the link rows must have above 0 for one request (`dial` for `?policyType=dial`); undefined keeps them all. */
  positiveCount?: (context: OperationContext) => string | undefined;
}

/**
 * A scope for sub-lists read from a link table (`service-policies/{id}/identities`): the listed entities whose
 * id sits beside the parent's. 404 when the parent is missing or `checkParent` refuses it (it throws).
 */
export function linkedTo(
  parent: EntityDefinition,
  link: LinkTable,
  checkParent: (found: EntityValues) => unknown = () => undefined,
): ListScope<ById> {
  return async (context, db) => {
    const { id } = context.params;
    checkParent(await requireEntity(db, parent, id));
    return linkedRows(link, id, link.positiveCount?.(context));
  };
}

/** Each definition's envelopes, written once its first list or detail is asked for (a definition serves one API). */
const writers = new WeakMap<EntityDefinition, EnvelopeWriter>();

function writerOf(definition: EntityDefinition, api: OperationContext['api']): EnvelopeWriter {
  let writer = writers.get(definition);
  if (!writer) writers.set(definition, (writer = envelopeWriter(definition.filterableFields, isVersionedMeta(api))));
  return writer;
}

/** Whether an entity shows nothing that changes with time alone: only then may an answer holding it be kept. */
function timeless(definition: EntityDefinition): (entity: EntityValues) => boolean {
  const timed = Object.entries(definition.fields)
    .filter(([, spec]) => spec.changesWithTime)
    .map(([name]) => name);
  return (entity) => timed.every((name) => entity[name] === null || entity[name] === undefined);
}

export function list<Op extends OperationShape, A extends Access>(
  definition: EntityDefinition,
  access: A,
  options: ListOptions<Op, CallerFor<A>> = {},
): HandlerOf<Op> {
  type Context = OperationContext<Op, CallerFor<A>>;
  const { keep } = options;
  const keepable = timeless(definition);
  const read =
    options.read ??
    (async (context: Context, db: Db, query: ListQuery): Promise<ListedPage> => {
      const scope = options.scope ? await options.scope(context, db) : undefined;
      const page = await listEntities(db, definition, query, scope);
      const { deps, caller } = context;
      return {
        rows: page.rows,
        data: await toApiEntities(definition, page.rows, { db, deps, caller }),
        totalCount: page.totalCount,
      };
    });
  const answer = async (context: Context) => {
    const query = listQueryFrom(context, definition.symbols);
    const { data, totalCount, rows } = await context.deps.store.read((db) => read(context, db, query));
    const text = writerOf(definition, context.api).list(data, { limit: query.limit, offset: query.offset, totalCount });
    return { text, isKeepable: keep !== undefined && text.length <= KEPT_ANSWER_CHARS && rows.every(keepable) };
  };
  return operation(access, async (context: Context) => {
    const key = `${definition.path}?${queryOf(context.request.url)}`;
    const { text } = keep
      ? await keptAnswers.of(context.deps.store).get(
          key,
          keep.dependsOn,
          () => answer(context),
          (kept) => kept.isKeepable,
        )
      : await answer(context);
    return { status: 200, raw: text, contentType: 'application/json' };
  });
}

const queryOf = (url: string): string => {
  const at = url.indexOf('?');
  return at === -1 ? '' : url.slice(at + 1);
};

export function detail<A extends Access>(
  definition: EntityDefinition,
  access: A,
  options: FindOptions<ById, CallerFor<A>> = {},
): OperationHandler<ById> {
  return operation(access, async (context: OperationContext<ById, CallerFor<A>>) => {
    const { deps, caller } = context;
    const data = await deps.store.read(async (db) => {
      const found = await requireEntity(db, definition, context.params.id, await options.scope?.(context, db));
      return toApiEntity(definition, found, { db, deps, caller });
    });
    return { status: 200, raw: writerOf(definition, context.api).one(data), contentType: 'application/json' };
  });
}

export function create(definition: EntityDefinition, access: Access): OperationHandler {
  return operation(access, async (context: OperationContext) => {
    const id = await createEntity(context.deps, definition, context.body);
    return { status: 201, json: createdEnvelope(definition.path, id) };
  });
}

export function update(definition: EntityDefinition, access: Access): OperationHandler<ById> {
  return modify(definition, access, 'update');
}

export function patch(definition: EntityDefinition, access: Access): OperationHandler<ById> {
  return modify(definition, access, 'patch');
}

function modify(definition: EntityDefinition, access: Access, mode: 'update' | 'patch'): OperationHandler<ById> {
  return operation(access, async (context: OperationContext<ById>) => {
    await modifyEntity(context.deps, definition, context.params.id, context.body, mode);
    return { status: 200, json: emptyEnvelope() };
  });
}

export function remove<A extends Access>(
  definition: EntityDefinition,
  access: A,
  options: FindOptions<ById, CallerFor<A>> = {},
): OperationHandler<ById> {
  const { scope } = options;
  return operation(access, async (context: OperationContext<ById, CallerFor<A>>) => {
    await removeEntity(context.deps, definition, context.params.id, scope && ((tx) => scope(context, tx)));
    return { status: 200, json: emptyEnvelope(context.api) };
  });
}

/**
 * `/identity-role-attributes` and its siblings: the distinct values of a set field, sorted. Only `filter`
 * applies, with the single symbol `id` (the value); limit and offset are ignored, as upstream does.
 */
export function listSetField(definition: EntityDefinition, field: string, access: Access): OperationHandler {
  return operation(access, async (context: OperationContext) => {
    const filterOnly = { ...context, query: {}, rawQuery: { filter: context.rawQuery.filter } };
    const query = listQueryFrom(filterOnly, setValues.symbols, setValues.column);
    const hasLimitClause = /\blimit\b/i.test(String(context.rawQuery.filter ?? ''));
    const values = await context.deps.store.read((db) =>
      listSetValues(db, definition, field, context.rawQuery.filter ? query : undefined, hasLimitClause),
    );
    const limit = hasLimitClause ? query.limit : 'none';
    return {
      status: 200,
      json: listEnvelope(values, { limit, offset: query.offset, totalCount: values.length }, ['id']),
    };
  });
}
