// Declares an entity once (fields, storage, filterable symbols, links); the rest of the kit derives from it.
import { ApiError } from '../errors/api-error.js';
import type { FilterSymbol, SymbolTable } from '../store/filter/filter-types.js';
import { baseSymbols, setSymbol, sideTable, snakeCase } from '../store/naming.js';
import type { TableName } from '../store/store.js';
import type { BaseValues, EntityRules, EntityValues } from './entity-rules.js';

export type { BaseValues, EntityValues } from './entity-rules.js';

export type FieldKind = 'text' | 'integer' | 'boolean' | 'timestamp' | 'json' | 'stringSet';

/** When a field may be written through the API. */
export type Writable = 'always' | 'create' | 'never';

export interface FieldSpec {
  kind: FieldKind;
  /** Column in the entity's table; derived from the API name (the store's `snakeCase`) unless given. */
  column: string;
  /** Public filter symbol name; undefined when the field is not filterable. */
  symbol: string | undefined;
  unique: boolean;
  writable: Writable;
  /** Value on create and on PUT when the body leaves the field out; undefined means the kind's empty value. */
  fallback: (() => unknown) | undefined;
  /** Whether the field appears in API responses. */
  output: boolean;
  /** Whether a blank or whitespace-only string counts as no value (the fallback, else null), on PATCH too. */
  blankIsUnset: boolean;
  /** Refuses (throws ApiError) a written value the kind allows but the field does not. */
  check: ((value: unknown) => void) | undefined;
  /** For stringSet: the side table with one row per element (the store's `sideTable`), which makes set filters use an index. */
  setTable: TableName | undefined;
  /**
   * While set, what the entity shows changes with time alone (a disable that ends): a list whose page holds such a
   * value is never kept (crud-handlers.ts ListOptions.keep), as no write would drop it.
   */
  changesWithTime: boolean;
}

export interface FieldOptions {
  column?: string;
  /** false: not filterable; a string: filterable under that symbol name. Default: filterable under its own name. */
  filter?: boolean | string;
  unique?: boolean;
  writable?: Writable;
  fallback?: () => unknown;
  output?: boolean;
  blankIsUnset?: boolean;
  check?: (value: unknown) => void;
  /** Typing only: the stored value is never null (a NOT NULL column that every write of the entity sets). */
  required?: true;
  /** The value alone changes what is shown as time passes (a disable's end): an answer holding it is never kept. */
  changesWithTime?: boolean;
}

declare const heldType: unique symbol;

/** A declared field: builds its spec from its API name and table; `T` is the type of the value it holds. */
export interface FieldBuilder<T> {
  (name: string, table: TableName): FieldSpec;
  /** Never set: carries `T` to the entity's values type. */
  readonly [heldType]?: T;
}

/** What a field holds: its fallback's type when it has one, `Base` when required, else `Base` or the kind's empty value. */
type Held<Base, Unset, O> = O extends { fallback: () => infer F }
  ? F
  : O extends { required: true }
    ? Base
    : Base | Unset;

function field<Base, Unset>(kind: FieldKind) {
  return <O extends FieldOptions = Record<never, never>>(options?: O): FieldBuilder<Held<Base, Unset, O>> =>
    (name, table) => {
      const { column = snakeCase(name), filter = kind !== 'json' } = options ?? {};
      return {
        kind,
        column,
        symbol: filter === false ? undefined : filter === true ? name : filter,
        unique: options?.unique ?? false,
        writable: options?.writable ?? 'always',
        fallback: options?.fallback,
        output: options?.output ?? true,
        blankIsUnset: options?.blankIsUnset ?? false,
        check: options?.check,
        changesWithTime: options?.changesWithTime ?? false,
        setTable: kind === 'stringSet' ? sideTable(table, column) : undefined,
      };
    };
}

export const text = field<string, null>('text');
export const integer = field<number, null>('integer');
export const boolean = field<boolean, never>('boolean');
/** An RFC 3339 timestamp as stored. */
export const timestamp = field<string, null>('timestamp');
export const json = field<unknown, never>('json');
/** A sorted, de-duplicated set of strings (role attributes, roles); rendered as null when empty, as upstream. */
export const stringSet = field<string[], null>('stringSet');

/**
 * Role attributes that policies select with `#attr` and `@id` roles, so none may look like a role (upstream
 * `db/policy_common.go` validateRoleAttributes, run by the identity, service and edge router stores; posture
 * checks' attributes are a plain set there).
 */
export const roleAttributes = (options: Omit<FieldOptions, 'check' | 'fallback'> = {}) =>
  stringSet({ ...options, check: checkRoleAttributes });

/** Upstream reports the first offending attribute, in the order given. */
function checkRoleAttributes(attributes: unknown): void {
  const given: readonly unknown[] = Array.isArray(attributes) ? attributes : [];
  for (const attribute of given) {
    for (const prefix of ['#', '@']) {
      if (typeof attribute === 'string' && attribute.startsWith(prefix)) {
        throw ApiError.invalidField('roleAttributes', `role attributes may not be prefixed with ${prefix}`, attribute);
      }
    }
  }
}

export type IdKind = 'shortId' | 'base62' | 'cuid';

export type FieldBuilders = Record<string, FieldBuilder<unknown>>;

/**
 * An entity's values by API name, typed by its fields; `name` is a string wherever an entity has one, as the kit
 * refuses a write without it (entity-input.ts).
 */
export type ValuesOf<F extends FieldBuilders> = BaseValues & {
  -readonly [K in keyof F]: K extends 'name' ? string : F[K] extends FieldBuilder<infer T> ? T : never;
};

/** What links are made from: the id, and whatever else of the entity is at hand (a reference has its name only). */
export type LinkSource<V> = Partial<V> & { id: string };

/** Entity values of a definition not known here, keyed by API field name. */

export interface EntityDefinitionInput<F extends FieldBuilders> {
  /** Singular name as upstream uses it in messages ("identity with id x not found"). */
  type: string;
  /**
   * Where upstream's delete path names the entity differently in its not-found message (the policy stores say
   * "servicePolicies with id … not found" there and "servicePolicy" everywhere else).
   */
  deletedAs?: string;
  /** The collection's URL segment, also `entity` in references and the `_links` prefix. */
  path: string;
  table: TableName;
  idKind: IdKind;
  /**
   * Declared apart (a `const` or an `<entity>.fields.ts`) where `links` or `rules` read typed values: written inline
   * beside those functions, the fields' value types are not inferred (they read as unknown).
   */
  fields: F;
  /** Extra `_links` beyond `self`, by name → href (relative to the API base). */
  links?: (entity: LinkSource<NoInfer<ValuesOf<F>>>) => Record<string, string>;
  /** Public filter symbols that are not fields, such as a terminator's `service.name` (a lookup column). */
  symbols?: SymbolTable;
  rules?: EntityRules<NoInfer<ValuesOf<F>>>;
  /**
   * How a duplicate name is refused. Upstream's entity managers check the name before the store sees the entity
   * (`checked`, the default); identities (created together with their enrollments) and fabric routers skip that
   * check and meet the store's name index (`index`), which upstream words differently.
   */
  duplicateName?: DuplicateName;
  /**
   * Its writes decide only on rows that strict writes change (the entities it references) and change only its own
   * row (a terminator): a create runs beside other writes, an update or delete takes turns with writes of the same
   * row only (store.ts WriteOptions). Its create's rules read nothing outside the transaction, so BEGIN goes with
   * their first statement (WriteOptions.beginsAtFirstStatement). Claim it only when all hold; by default every write
   * is strict.
   */
  ownRowWrites?: boolean;
}

export type DuplicateName = 'checked' | 'index';

/** A declared entity; `V` is the type of its values (`ValuesOf` its fields). */
export interface EntityDefinition<V extends EntityValues = EntityValues> {
  type: string;
  deletedAs: string;
  path: string;
  table: TableName;
  idKind: IdKind;
  fields: Readonly<Record<string, FieldSpec>>;
  symbols: SymbolTable;
  filterableFields: readonly string[];
  links(entity: LinkSource<V>): Record<string, { href: string }>;
  rules: EntityRules<V>;
  duplicateName: DuplicateName;
  ownRowWrites: boolean;
}

export function defineEntity<F extends FieldBuilders>(input: EntityDefinitionInput<F>): EntityDefinition<ValuesOf<F>> {
  const fields = Object.fromEntries(
    Object.entries(input.fields).map(([name, build]) => [name, build(name, input.table)]),
  );
  const symbols: Record<string, FilterSymbol> = { ...baseSymbols };
  for (const spec of Object.values(fields)) {
    if (spec.symbol !== undefined) symbols[spec.symbol] = symbolFor(spec);
  }
  Object.assign(symbols, input.symbols);
  return {
    type: input.type,
    deletedAs: input.deletedAs ?? input.type,
    path: input.path,
    table: input.table,
    idKind: input.idKind,
    fields,
    symbols,
    filterableFields: Object.keys(symbols),
    links: (entity) => {
      const links: Record<string, { href: string }> = { self: { href: `./${input.path}/${entity.id}` } };
      // An extra `self` replaces the default in its place, first.
      for (const [name, href] of Object.entries(input.links?.(entity) ?? {})) links[name] = { href };
      return links;
    },
    rules: input.rules ?? {},
    duplicateName: input.duplicateName ?? 'checked',
    ownRowWrites: input.ownRowWrites ?? false,
  };
}

function symbolFor(spec: FieldSpec): FilterSymbol {
  if (spec.setTable) return setSymbol(spec.setTable);
  if (spec.kind === 'json') return { kind: 'map', column: spec.column };
  const type =
    spec.kind === 'text'
      ? 'string'
      : spec.kind === 'integer'
        ? 'number'
        : spec.kind === 'boolean'
          ? 'bool'
          : 'datetime';
  return { kind: 'column', type, column: spec.column };
}
