// A fresh schema for a throw-away controller (each test app, a bench run) in a PostgreSQL database: the
// controller's connections use it through the URL's search_path, and dropping it removes everything it made.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface ScratchSchema {
  /** The database URL with `options=-c search_path=<schema>`: a store opened on it migrates into the schema. */
  url: string;
  name: string;
  drop(): Promise<void>;
}

async function run(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

export async function createScratchSchema(url: string, prefix = 'ziti_scratch'): Promise<ScratchSchema> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await run(url, `CREATE SCHEMA ${name}`);
  const scoped = new URL(url);
  scoped.searchParams.set('options', `-c search_path=${name}`);
  return { url: scoped.toString(), name, drop: () => run(url, `DROP SCHEMA IF EXISTS ${name} CASCADE`) };
}
