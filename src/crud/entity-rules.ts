// The hooks an entity may implement; every hook runs inside the write's transaction.
import type { ApiError } from '../errors/api-error.js';
import type { Db } from '../store/store.js';
import type { EntityDeps } from '../app-deps.js';
import type { RequestContext } from '../http/request-context.js';
/** The fields every entity has, beside its declared ones. */
export type BaseValues = {
  id: string;
  createdAt: string;
  updatedAt: string;
  tags: Record<string, unknown>;
  isSystem: boolean;
};

/** An entity's stored values: the base fields and its own (define-entity.ts ValuesOf types them per entity). */
export type EntityValues = BaseValues & Record<string, unknown>;

interface ChangeOf {
  id: string;
  /** API names of the fields the request set (for patch: only those present with a non-null value). */
  changed: ReadonlySet<string>;
}

/** A write from a request: `after` is the entity as it will be stored, `before` the stored one (not on create). */
export type WriteChange<V extends EntityValues = EntityValues> = ChangeOf & {
  /** The request body as validated, for rules that read input which is not a stored field (e.g. identity `type`). */
  body: Readonly<Record<string, unknown>>;
  after: V;
} & ({ op: 'create'; before?: undefined } | { op: 'update' | 'patch'; before: V });

/** A delete: only the stored entity. */
export type DeleteChange<V extends EntityValues = EntityValues> = ChangeOf & {
  op: 'delete';
  before: V;
  after?: undefined;
  body?: undefined;
};

export type EntityChange<V extends EntityValues = EntityValues> = WriteChange<V> | DeleteChange<V>;

export interface RuleContext {
  tx: Db;
  deps: EntityDeps;
}

/** What mapping to API shapes may read: the database, the deps, and who is asking (absent outside requests). */
export interface ReadContext {
  db: Db;
  deps: EntityDeps;
  caller?: RequestContext;
}

export interface EntityRules<V extends EntityValues = EntityValues> {
  /** Meaning checks (references exist, cross-field rules); throw ApiError to refuse. May adjust `change.after`. */
  validate?(context: RuleContext, change: WriteChange<V>): Promise<void>;
  /** Refuse a delete (e.g. still referenced) by throwing ApiError. */
  beforeDelete?(context: RuleContext, existing: V): Promise<void>;
  /** Side effects that must commit with the write (policy links, system entities). */
  afterWrite?(context: RuleContext, change: EntityChange<V>): Promise<void>;
  /**
   * Computed response fields for a page of entities at once, in the same order, so a list of 500 costs a few
   * queries rather than one per row.
   */
  extend?(context: ReadContext, entities: readonly V[]): Promise<Record<string, unknown>[]>;
  /**
   * The rule's own error for a unique constraint of the entity's table that backs a check-then-insert rule (the
   * database refused what a concurrent writer made true after `validate` looked); undefined: the field error.
   */
  uniqueError?(columns: readonly string[]): ApiError | undefined;
}
