// PostgreSQL prepares the fixed shapes run on every request by name (issue 26.3): parsed and planned once per
// connection rather than on every run. SQLite's statement cache does the same for every text (nothing to test there).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { migrations } from '../migrations/index.js';
import { openPostgresStore } from './postgres-store.js';
import { createScratchSchema } from './scratch-schema.js';
import { preparedQuery } from '../prepared.js';

const identityIds = preparedQuery((db, name: string) =>
  db.selectFrom('identities').select('id').where('name', '=', name),
);

describe(
  'statements prepared by name',
  { skip: process.env.ZITI_TEST_DATABASE_URL ? false : 'PostgreSQL only (npm run test:postgres)' },
  () => {
    it("a preparedQuery's shape is prepared once on the connection and run again by its name", async () => {
      const scratch = await createScratchSchema(process.env.ZITI_TEST_DATABASE_URL ?? '', 'ziti_prepared');
      // One connection, so the second run and the look at the server's prepared statements are on the same one.
      const store = await openPostgresStore({ url: scratch.url, migrations, poolSize: 1 });
      try {
        const prepared = await store.read(async (db) => {
          await identityIds(db, 'a');
          await identityIds(db, 'b');
          return (
            await sql<{ name: string; statement: string }>`SELECT name, statement FROM pg_prepared_statements`.execute(
              db,
            )
          ).rows;
        });
        const named = prepared.filter(
          (row) => row.statement.includes('from "identities"') && row.name.startsWith('ziti-'),
        );
        assert.equal(named.length, 1, JSON.stringify(prepared));
      } finally {
        await store.close();
        await scratch.drop();
      }
    });
  },
);
