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

/**
 * A fresh database on the server `url` names (its role needs CREATEDB), for a run that must not share one with
 * anything else (the stores bench); dropped with FORCE, so connections left open do not keep it.
 */
export async function createScratchDatabase(url: string, prefix = 'ziti_scratch'): Promise<ScratchSchema> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await run(url, `CREATE DATABASE ${name}`);
  const scoped = new URL(url);
  scoped.pathname = `/${name}`;
  return { url: scoped.toString(), name, drop: () => run(url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
