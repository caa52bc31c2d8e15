// List scopes: conditions that narrow an entity list beyond the request's filter (a parent's children, the rows
// a policy links, the caller's own rows). Domain code composes them; only the store turns them into SQL.
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { inTextList } from '../prepared.js';
import type { Db, TableName } from '../store.js';

/**
 * A scope is a shape and its values, so that list queries compile once per shape (src/store/prepared.ts): `key`
 * names the shape, and `render` writes it with whatever stands for the values (themselves, or a prepared shape's
 * arguments).
 */
interface ScopeShape {
  key: string;
  values: readonly unknown[];
  render(values: readonly unknown[], db: Db): RawBuilder<SqlBool>;
}

/** The alias the listed table has in every list query (src/store/queries/entities.ts). */
export const LISTED = 't';

/** A condition on the listed rows; opaque outside the store, which alone reads its shape. */
export class Scope {
  readonly #shape: ScopeShape;

  private constructor(shape: ScopeShape) {
    this.#shape = shape;
  }

  /** @internal the store's: see `scope` and `shapeOf` below. */
  static of(shape: ScopeShape): Scope {
    return new Scope(shape);
  }

  /** @internal */
  static shapeOf(value: Scope): ScopeShape {
    return value.#shape;
  }
}

const scope = (shape: ScopeShape) => Scope.of(shape);
const shapeOf = (value: Scope) => Scope.shapeOf(value);

/** What names a scope's shape, inside the store. */
export const scopeKey = (value: Scope): string => shapeOf(value).key;
/** A scope's values, in the order its shape takes them. */
export const scopeValues = (value: Scope): readonly unknown[] => shapeOf(value).values;
/** The SQL of a scope, inside the store, with `values` (by default its own) in place of its values. */
export const scopeSql = (value: Scope, db: Db, values = scopeValues(value)): RawBuilder<SqlBool> =>
  shapeOf(value).render(values, db);

const listed = (column: string) => sql.ref(`${LISTED}.${column}`);
const constant = (key: string, condition: RawBuilder<SqlBool>) => scope({ key, values: [], render: () => condition });

export const everyRow: Scope = constant('all', sql<SqlBool>`1 = 1`);
export const noRow: Scope = constant('none', sql<SqlBool>`1 = 0`);

/** Rows whose `column` holds `value`. */
export function columnIs(column: string, value: string | number): Scope {
  return scope({ key: `${column}=`, values: [value], render: ([bound]) => sql<SqlBool>`${listed(column)} = ${bound}` });
}

/** The scopes joined by `joiner`, each rendered with its own slice of the values. */
function joined(name: string, scopes: readonly Scope[], joiner: RawBuilder<unknown>): Scope {
  const shapes = scopes.map(shapeOf);
  return scope({
    key: `${name}(${shapes.map((shape) => shape.key).join(',')})`,
    values: shapes.flatMap((shape) => shape.values),
    render(values, db) {
      let at = 0;
      const parts = shapes.map((shape) => shape.render(values.slice(at, (at += shape.values.length)), db));
      return sql<SqlBool>`(${sql.join(parts, joiner)})`;
    },
  });
}

/** Rows that pass every scope. */
export function allOf(...scopes: Scope[]): Scope {
  return scopes.length === 0 ? everyRow : joined('and', scopes, sql` AND `);
}

/** Rows that pass any of the scopes (none: no row). */
export function anyOf(scopes: readonly Scope[]): Scope {
  return scopes.length === 0 ? noRow : joined('or', scopes, sql` OR `);
}

/** Rows with one of these ids. */
export function idIn(ids: readonly string[]): Scope {
  if (ids.length === 0) return noRow;
  // `list` is the ids, or a prepared shape's stand-in for them (src/store/prepared.ts), which binds as they would.
  return scope({
    key: 'idIn',
    values: [ids],
    render: ([list], db) => sql<SqlBool>`${listed('id')} IN ${inTextList(db, list as string[])}`,
  });
}

/** A link table rows of one entity reach rows of another through (membership, pair and join tables). */
export interface LinkTable {
  table: TableName;
  /** The column holding the parent's id, and the one holding the listed entity's. */
  parentColumn: string;
  childColumn: string;
  /**
   * Set when the link holds the entities' integer keys (`seq`) rather than their ids, as the policy engine's pair
   * tables do: the parent's table, where its key is found. The listed rows are then matched by their key too.
   */
  parentTable?: TableName;
}

/** Rows linked to `parentId` through `link`; with `positiveCount`, only link rows where that count is above 0. */
export function linkedTo(link: LinkTable, parentId: string, positiveCount?: string): Scope {
  return scope({
    key: `link(${link.table}.${link.parentColumn}.${link.childColumn}.${positiveCount ?? ''})`,
    values: [parentId],
    render([parent]) {
      const parentKey = link.parentTable
        ? sql`(SELECT seq FROM ${sql.table(link.parentTable)} WHERE id = ${parent})`
        : sql`${parent}`;
      const rows = sql`SELECT ${sql.ref(link.childColumn)} FROM ${sql.table(link.table)} WHERE ${sql.ref(link.parentColumn)} = ${parentKey}`;
      const counted = positiveCount ? sql`${rows} AND ${sql.ref(positiveCount)} > 0` : rows;
      return sql<SqlBool>`${listed(link.parentTable ? 'seq' : 'id')} IN (${counted})`;
    },
  });
}

/**
 * Rows holding role attributes (a set field's side table): every one of them (`AllOf`) or any (`AnyOf`).
 */
export function withAttributes(setTable: TableName, attributes: readonly string[], semantic: 'AllOf' | 'AnyOf'): Scope {
  if (attributes.length === 0) return noRow;
  return scope({
    key: `attributes(${setTable}.${semantic})`,
    values: [attributes, attributes.length],
    render([list, count], db) {
      // `list`: the attributes or a prepared shape's stand-in for them, as in idIn.
      const holders = sql`SELECT entity_id FROM ${sql.table(setTable)} WHERE value IN ${inTextList(db, list as string[])}`;
      if (semantic === 'AnyOf') return sql<SqlBool>`${listed('id')} IN (${holders})`;
      return sql<SqlBool>`${listed('id')} IN (${holders} GROUP BY entity_id HAVING count(*) = ${count})`;
    },
  });
}
