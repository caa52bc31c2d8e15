// Declares an entity once (fields, storage, filterable symbols, links); the rest of the kit derives from it.
import { ApiError } from '../errors/api-error.js';
import type { FilterSymbol, SymbolTable } from '../store/filter/filter-types.js';
import type { TableName } from '../store/store.js';
import type { EntityRules } from './entity-rules.js';

export type FieldKind = 'text' | 'integer' | 'boolean' | 'timestamp' | 'json' | 'stringSet';

/** When a field may be written through the API. */
export type Writable = 'always' | 'create' | 'never';

export interface FieldSpec {
  kind: FieldKind;
  /** Column in the entity's table; derived from the API name (camelCase → snake_case) unless given. */
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
  /** For stringSet: the side table with one row per element, which makes set filters use an index. */
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
  changesWithTime?: boolean;
}

type Builder = (options?: FieldOptions) => (name: string, table: string) => FieldSpec;

function field(kind: FieldKind): Builder {
  return (options = {}) =>
    (name, table) => {
      const column = options.column ?? snakeCase(name);
      const filter = options.filter ?? kind !== 'json';
      return {
        kind,
        column,
        symbol: filter === false ? undefined : filter === true ? name : filter,
        unique: options.unique ?? false,
        writable: options.writable ?? 'always',
        fallback: options.fallback,
        output: options.output ?? true,
        blankIsUnset: options.blankIsUnset ?? false,
        check: options.check,
        changesWithTime: options.changesWithTime ?? false,
        // Named by the migrations' convention (schema-parts.ts setTable): `<singular table>_<column>`.
        setTable: kind === 'stringSet' ? (`${singularTable(table)}_${column}` as TableName) : undefined,
      };
    };
}

export const text = field('text');
export const integer = field('integer');
export const boolean = field('boolean');
export const timestamp = field('timestamp');
export const json = field('json');
/** A sorted, de-duplicated set of strings (role attributes, roles); rendered as null when empty, as upstream. */
export const stringSet = field('stringSet');

/**
 * Role attributes that policies select with `#attr` and `@id` roles, so none may look like a role (upstream
 * `db/policy_common.go` validateRoleAttributes, run by the identity, service and edge router stores; posture
 * checks' attributes are a plain set there).
 */
export const roleAttributes = (options: FieldOptions = {}) => stringSet({ ...options, check: checkRoleAttributes });

/** Upstream reports the first offending attribute, in the order given. */
function checkRoleAttributes(attributes: unknown): void {
  for (const attribute of Array.isArray(attributes) ? (attributes as unknown[]) : []) {
    for (const prefix of ['#', '@']) {
      if (typeof attribute === 'string' && attribute.startsWith(prefix)) {
        throw ApiError.invalidField('roleAttributes', `role attributes may not be prefixed with ${prefix}`, attribute);
      }
    }
  }
}

export type IdKind = 'shortId' | 'base62' | 'cuid';

export interface EntityDefinitionInput {
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
  fields: Record<string, (name: string, table: string) => FieldSpec>;
  /** Extra `_links` beyond `self`, by name → href (relative to the API base). */
  links?: (entity: Record<string, unknown>) => Record<string, string>;
  /** Public filter symbols that are not fields, such as a terminator's `service.name` (a lookup column). */
  symbols?: SymbolTable;
  rules?: EntityRules;
  /**
   * How a duplicate name is refused. Upstream's entity managers check the name before the store sees the entity
   * (`checked`, the default); identities (created together with their enrollments) and fabric routers skip that
   * check and meet the store's name index (`index`), which upstream words differently.
   */
  duplicateName?: DuplicateName;
}

export type DuplicateName = 'checked' | 'index';

export interface EntityDefinition {
  type: string;
  deletedAs: string;
  path: string;
  table: TableName;
  idKind: IdKind;
  fields: Readonly<Record<string, FieldSpec>>;
  symbols: SymbolTable;
  filterableFields: readonly string[];
  links: (entity: Record<string, unknown>) => Record<string, { href: string }>;
  rules: EntityRules;
  duplicateName: DuplicateName;
}

const baseSymbols: Record<string, FilterSymbol> = {
  id: { kind: 'column', type: 'string', column: 'id' },
  createdAt: { kind: 'column', type: 'datetime', column: 'created_at' },
  updatedAt: { kind: 'column', type: 'datetime', column: 'updated_at' },
  tags: { kind: 'map', column: 'tags' },
  isSystem: { kind: 'column', type: 'bool', column: 'is_system' },
};

export function defineEntity(input: EntityDefinitionInput): EntityDefinition {
  const fields = Object.fromEntries(Object.entries(input.fields).map(([name, build]) => [name, build(name, input.table)]));
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
      const links: Record<string, { href: string }> = { self: { href: `./${input.path}/${String(entity.id)}` } };
      const extra = input.links?.(entity);
      // An extra `self` replaces the default in its place, first.
      if (extra) for (const name of Object.keys(extra)) links[name] = { href: extra[name]! };
      return links;
    },
    rules: input.rules ?? {},
    duplicateName: input.duplicateName ?? 'checked',
  };
}

function symbolFor(spec: FieldSpec): FilterSymbol {
  if (spec.kind === 'stringSet') {
    return { kind: 'set', type: 'string', table: spec.setTable!, ownerColumn: 'entity_id', valueColumn: 'value' };
  }
  if (spec.kind === 'json') return { kind: 'map', column: spec.column };
  const type = spec.kind === 'text' ? 'string' : spec.kind === 'integer' ? 'number' : spec.kind === 'boolean' ? 'bool' : 'datetime';
  return { kind: 'column', type, column: spec.column };
}

/** `roleAttributes` → `role_attributes`; `primary.updb.maxAttempts` → `primary_updb_max_attempts`. */
export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`).replaceAll('.', '_');
}

/** identities → identity, service_policies → service_policy: the prefix of an entity's side tables. */
function singularTable(table: string): string {
  return table.endsWith('ies') ? `${table.slice(0, -3)}y` : table.replace(/s$/, '');
}
