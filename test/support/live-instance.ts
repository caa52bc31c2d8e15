// An instance a test stands in for (rows written under its id, no process of its own) that must read as alive: on
// PostgreSQL, alive is its liveness lock held (migration 025, src/store/postgres/instance-lock.ts), so the test holds
// it; on SQLite there is nothing to hold. The id is fresh: lock keys are per database, shared by every test schema.
import { randomBytes } from 'node:crypto';
import { holdInstanceLock } from '../../src/store/postgres/instance-lock.js';
import type { TestApp } from './test-app.js';

export async function liveInstance(t: TestApp, name: string): Promise<{ id: string; release(): Promise<void> }> {
  const id = `${name}${randomBytes(4).toString('hex')}`;
  const url = t.deps.settings.databaseUrl;
  if (!url) return { id, release: () => Promise.resolve() };
  const lock = await holdInstanceLock(url, id, (error) => {
    throw error;
  });
  return { id, release: () => lock.release() };
}
