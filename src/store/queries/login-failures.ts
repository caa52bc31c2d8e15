// Failed logins counted per key (`username:…`, `username-from:…`, `address:…`, `mfa:…`) within a window, shared by every controller
// on the database and kept across restarts.
import { sql } from 'kysely';
import { dialectOf, typed } from '../connection.js';
import type { Db } from '../store.js';

export interface FailureWindow {
  key: string;
  failures: number;
  windowEndsAt: string;
}

/** The keys among these with a window still open after `now`, and their counts. */
export async function openFailureWindows(db: Db, keys: readonly string[], now: string): Promise<FailureWindow[]> {
  if (keys.length === 0) return [];
  return typed(db)
    .selectFrom('login_failures')
    .select(['key', 'failures', 'window_ends_at as windowEndsAt'])
    .where('key', 'in', keys)
    .where('window_ends_at', '>', now)
    .execute();
}

/** One more failure on each key; a key whose window ended by `now` starts a new one ending at `windowEnd`. */
export async function countFailures(tx: Db, keys: readonly string[], now: string, windowEnd: string): Promise<void> {
  for (const key of keys) {
    await typed(tx)
      .insertInto('login_failures')
      .values({ key, failures: 1, window_ends_at: windowEnd })
      .onConflict((conflict) =>
        conflict.column('key').doUpdateSet({
          failures: sql`CASE WHEN login_failures.window_ends_at > ${now} THEN login_failures.failures + 1 ELSE 1 END`,
          window_ends_at: sql`CASE WHEN login_failures.window_ends_at > ${now} THEN login_failures.window_ends_at ELSE ${windowEnd} END`,
        }),
      )
      .execute();
  }
  // Ended windows are dropped as new failures arrive, so the table holds only the current windows' keys. Failures
  // of different callers are counted at once on PostgreSQL (row locks, not a write turn): rows another count holds
  // are skipped, not waited for, as two counts each waiting for the other's restarted window would deadlock; a
  // later failure drops them.
  const ended = typed(tx).selectFrom('login_failures').select('key').where('window_ends_at', '<=', now);
  await typed(tx)
    .deleteFrom('login_failures')
    .where('key', 'in', dialectOf(tx).name === 'postgres' ? ended.forUpdate().skipLocked() : ended)
    .execute();
}

export async function clearFailures(tx: Db, key: string): Promise<void> {
  await typed(tx).deleteFrom('login_failures').where('key', '=', key).execute();
}
