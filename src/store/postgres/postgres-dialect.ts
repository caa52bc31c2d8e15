// PostgreSQL's side of the dialect object: strpos for substrings, jsonb operators for tags, LIMIT NULL. Text
// columns are COLLATE "C" (byte order, as upstream); lower() is folded under "C" too, so it changes ASCII letters
// only, exactly as SQLite's does.
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { createHash } from 'node:crypto';
import { LruMap } from '../../lib/lru-map.js';
import { jsonEntries, type SqlDialect } from '../dialect.js';

const byteWise = (text: RawBuilder<unknown>) => sql`(CAST(${text} AS TEXT) COLLATE "C")`;

/** The JSON value at `keys` of a text column holding a JSON object (the path bound as one text[] parameter). */
const jsonAt = (column: RawBuilder<unknown>, keys: readonly string[]) =>
  sql`(CAST(${column} AS jsonb) #> CAST(${sql.val(keys)} AS text[]))`;

/** Names of the statements prepared by name (keepPrepared), by their text; bounded by the code's fixed shapes. */
const preparedNames = new LruMap<string, string>(1000);

/** The name a statement text is prepared under on every connection, if it is one to keep prepared. */
export const preparedName = (text: string): string | undefined => preparedNames.get(text);

export const postgresDialect: SqlDialect = {
  name: 'postgres',
  keepPrepared(text) {
    if (preparedNames.get(text) === undefined)
      preparedNames.set(text, `ziti-${createHash('sha256').update(text).digest('base64url').slice(0, 22)}`);
  },
  unlimited: null,
  // json_agg answers NULL for no rows; as text, as SQLite's json_group_array answers (pg would parse json itself).
  jsonRows: (entries, orderBy) =>
    sql<string>`CAST(coalesce(json_agg(json_build_object(${jsonEntries(entries)}) ORDER BY ${orderBy}), '[]') AS TEXT)`,
  inlineRows(columns, rowsJson) {
    const types = { integer: 'BIGINT', real: 'DOUBLE PRECISION', text: 'TEXT' } as const;
    const column = ({ name, kind }: (typeof columns)[number]) =>
      kind === 'text'
        ? sql`(inline_row ->> ${name}) COLLATE "C" AS ${sql.ref(name)}`
        : sql`CAST(inline_row ->> ${name} AS ${sql.raw(types[kind])}) AS ${sql.ref(name)}`;
    return sql`SELECT ${sql.join(columns.map(column))} FROM jsonb_array_elements(CAST(${rowsJson} AS jsonb)) AS inline_row`;
  },
  textList: {
    sql: (parameter) => sql`(SELECT unnest(CAST(${parameter} AS text[])))`,
    bind: (values) => values,
  },
  filter: {
    containsText: (haystack, needle) => sql<SqlBool>`strpos(${byteWise(haystack)}, ${byteWise(needle)}) > 0`,
    containsTextIgnoringCase: (haystack, needle) =>
      sql<SqlBool>`strpos(lower(${byteWise(haystack)}), lower(${byteWise(needle)})) > 0`,
    asText: (value) => sql`CAST(${value} AS TEXT)`,
    mapValue(column, keys, as) {
      const value = jsonAt(column, keys);
      // `#>> '{}'` is the value as text (NULL for JSON null), like SQLite's json_extract of a scalar.
      if (as === 'any') return sql`(${value} #>> '{}')`;
      if (as === 'bool') return sql`(CASE ${value} WHEN 'true' THEN 1 WHEN 'false' THEN 0 END)`;
      if (as === 'number')
        return sql`(CASE WHEN jsonb_typeof(${value}) = 'number' THEN CAST(${value} #>> '{}' AS double precision) END)`;
      return sql`(CASE WHEN jsonb_typeof(${value}) = 'string' THEN ${value} #>> '{}' END)`;
    },
    number: (value) => sql`CAST(${value} AS double precision)`,
    isTrue: (value) => sql<SqlBool>`${value} = 1`,
  },
};
