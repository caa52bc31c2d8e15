// SQLite's side of the dialect object: instr for substrings, json_type / json_extract for tags, LIMIT -1.
import { sql, type SqlBool } from 'kysely';
import { jsonEntries, type SqlDialect } from '../dialect.js';
import type { MapValueKind } from '../filter/filter-types.js';

/** `$."a"."b"`: every key quoted, so keys are never read as path syntax. */
function jsonPath(keys: readonly string[]): string {
  return '$' + keys.map((key) => `."${key.replace(/["\\]/g, (char) => `\\${char}`)}"`).join('');
}

const JSON_TYPES: Readonly<Record<Exclude<MapValueKind, 'any' | 'bool'>, string[]>> = {
  string: ['text'],
  number: ['integer', 'real'],
};

export const sqliteDialect: SqlDialect = {
  name: 'sqlite',
  unlimited: -1,
  // json_extract gives numbers back as INTEGER or REAL and strings as TEXT, as SQLite stores them.
  inlineRows: (columns, rowsJson) =>
    sql`SELECT ${sql.join(columns.map(({ name }) => sql`json_extract(value, ${`$."${name}"`}) AS ${sql.ref(name)}`))} FROM json_each(${rowsJson})`,
  keepPrepared: () => undefined,
  jsonRows: (entries, orderBy) =>
    sql<string>`json_group_array(json_object(${jsonEntries(entries)}) ORDER BY ${orderBy})`,
  textList: {
    sql: (parameter) => sql`(SELECT value FROM json_each(${parameter}))`,
    bind: (values) => JSON.stringify(values),
  },
  filter: {
    containsText: (haystack, needle) => sql<SqlBool>`instr(${haystack}, ${needle}) > 0`,
    // SQLite's lower() folds ASCII letters only; both sides are folded the same way.
    containsTextIgnoringCase: (haystack, needle) => sql<SqlBool>`instr(lower(${haystack}), lower(${needle})) > 0`,
    asText: (value) => sql`CAST(${value} AS TEXT)`,
    mapValue(column, keys, as) {
      // The path is bound as a parameter like any other value.
      const path = sql.val(jsonPath(keys));
      if (as === 'any') return sql`json_extract(${column}, ${path})`;
      if (as === 'bool') return sql`(CASE json_type(${column}, ${path}) WHEN 'true' THEN 1 WHEN 'false' THEN 0 END)`;
      const types = sql.join(JSON_TYPES[as].map((type) => sql.lit(type)));
      return sql`(CASE WHEN json_type(${column}, ${path}) IN (${types}) THEN json_extract(${column}, ${path}) END)`;
    },
    number: (value) => sql.val(value),
    isTrue: (value) => sql<SqlBool>`${value} = 1`,
  },
};
