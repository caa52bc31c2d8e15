// The record of entity changes (migration 023): written in the changing transaction, pruned past the retention.
// States and source are JSON text; times RFC3339 text.
import { sql, type Insertable } from 'kysely';
import { dynamic, typed } from '../connection.js';
import { ShapeCache } from '../prepared.js';
import type { EntityChangesTable } from '../schema.js';
import type { Db } from '../store.js';

export type EntityChangeInsert = Insertable<EntityChangesTable>;

/** Every column a change row is written with (the rest keep their defaults). */
const COLUMNS = [
  'id',
  'created_at',
  'updated_at',
  'change_type',
  'entity_type',
  'entity_id',
  'author_type',
  'author_id',
  'author_name',
  'source_type',
  'source',
  'changed_fields',
  'initial_state',
  'final_state',
  'instance_id',
] as const satisfies readonly (keyof EntityChangeInsert)[];
const AUTHOR_ID = COLUMNS.indexOf('author_id');

/** One shape per way the author is named; kept prepared (every login and session create writes one). */
const shapes = new ShapeCache(4, true);

/** Where an author of each type is named. */
const AUTHOR_NAMES: ReadonlyMap<string, 'identities' | 'routers'> = new Map([
  ['identity', 'identities'],
  ['router', 'routers'],
]);

/**
 * Writes one change; `authorName` answers the author's name as stored, once the write is answered (on PostgreSQL with
 * the commit: the record is sent ahead, connection.ts sendAhead). `nameAuthor`: an identity or router author's name
 * is read by `author_id` in the same statement, so naming the author costs no statement of its own.
 */
export async function insertEntityChange(
  tx: Db,
  row: EntityChangeInsert,
  nameAuthor: boolean,
): Promise<{ authorName: Promise<string | null> }> {
  const authorNamedIn = nameAuthor ? AUTHOR_NAMES.get(row.author_type) : undefined;
  const { answer } = await shapes.ahead<{ author_name: string | null }>(
    tx,
    authorNamedIn ?? 'given',
    COLUMNS.map((column) => row[column] ?? null),
    (q, bound) => {
      const values: Record<string, unknown> = Object.fromEntries(
        COLUMNS.map((column, index) => [column, bound[index]]),
      );
      if (authorNamedIn)
        values.author_name = sql`(SELECT name FROM ${sql.table(authorNamedIn)} WHERE id = ${bound[AUTHOR_ID]})`;
      return dynamic(q).insertInto('entity_changes').values(values).returning('author_name');
    },
  );
  const authorName = answer.then(([stored]) => stored?.author_name ?? null);
  // A failed write fails its transaction; whoever reads the name does so only after a commit.
  authorName.catch(() => undefined);
  return { authorName };
}

/** Rows written by one statement at most: bounds the statement's size and the shapes kept (one per count). */
const ROWS_PER_STATEMENT = 32;
const batchShapes = new ShapeCache(ROWS_PER_STATEMENT, true);

/**
 * Writes several changes, ROWS_PER_STATEMENT to a statement (issue 33: a login's two in one), in their order;
 * `authorNames` answers each one's author name as stored, by row id, once the writes are answered (on PostgreSQL with
 * the commit: they are sent ahead, connection.ts sendAhead). A row whose `nameAuthor` is set has its identity or
 * router author's name read by `author_id` in the same statement.
 */
export async function insertEntityChanges(
  tx: Db,
  rows: readonly { row: EntityChangeInsert; nameAuthor: boolean }[],
): Promise<{ authorNames: Promise<Map<string, string | null>> }> {
  const answers: Promise<{ id: string; author_name: string | null }[]>[] = [];
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
    const chunk = rows.slice(start, start + ROWS_PER_STATEMENT);
    const args = chunk.flatMap(({ row, nameAuthor }) => [
      ...COLUMNS.map((column) => row[column] ?? null),
      (nameAuthor ? AUTHOR_NAMES.get(row.author_type) : undefined) ?? null,
    ]);
    const { answer } = await batchShapes.ahead<{ id: string; author_name: string | null }>(
      tx,
      String(chunk.length),
      args,
      (q, bound) =>
        dynamic(q)
          .insertInto('entity_changes')
          .values(
            chunk.map((_, index) => {
              const at = index * (COLUMNS.length + 1);
              const values: Record<string, unknown> = Object.fromEntries(
                COLUMNS.map((column, offset) => [column, bound[at + offset]]),
              );
              const namedIn = bound[at + COLUMNS.length];
              const authorId = bound[at + AUTHOR_ID];
              // The author's name where its table is given, else the name the row carries.
              values.author_name = sql`CASE ${namedIn}
                WHEN 'identities' THEN (SELECT name FROM identities WHERE id = ${authorId})
                WHEN 'routers' THEN (SELECT name FROM routers WHERE id = ${authorId})
                ELSE ${values.author_name} END`;
              return values;
            }),
          )
          .returning(['id', 'author_name']),
    );
    answers.push(answer);
  }
  const authorNames = Promise.all(answers).then(
    (stored) => new Map(stored.flat().map(({ id, author_name: name }) => [id, name] as const)),
  );
  // A failed write fails its transaction; whoever reads the names does so only after a commit.
  authorNames.catch(() => undefined);
  return { authorNames };
}

/** Drops the changes made before `before`; answers how many. */
export async function pruneEntityChanges(tx: Db, before: string): Promise<number> {
  const result = await typed(tx).deleteFrom('entity_changes').where('created_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
