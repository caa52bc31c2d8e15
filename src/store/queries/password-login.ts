// A password login's reads before its hash, in one statement (issue 33): on PostgreSQL one round trip where the
// throttle's windows and the authenticator were two.
import { sql } from 'kysely';
import { dialectOf } from '../connection.js';
import { inTextList, preparedQuery } from '../prepared.js';
import type { Db } from '../store.js';
import type { FailureWindow } from './login-failures.js';
import { parseJsonValue } from '../../lib/json-value.js';
import { isJsonObject } from '../../lib/object-path.js';

export interface PasswordCandidateRow {
  id: string;
  identity_id: string;
  password_hash: string | null;
  password_salt: string | null;
  failed_attempts: number;
  disabled_at: string | null;
  disabled_until: string | null;
  primary_updb_allowed: number;
  primary_updb_max_attempts: number;
  primary_updb_lockout_duration_minutes: number;
}

interface CandidateAndWindowsRow extends Omit<PasswordCandidateRow, 'id' | 'identity_id'> {
  id: string | null;
  identity_id: string | null;
  windows: string;
}

// One statement (issue 33: a password login's reads before its hash in one round trip on PostgreSQL): the updb
// authenticator of the username with its identity's disabled state and policy, and the throttle's open windows (a
// JSON array) of the keys the login counts against.
const selectCandidateAndWindows = preparedQuery((q, username: string, keys: readonly string[], now: string) => {
  const windows = { key: sql`f.key`, failures: sql`f.failures`, windowEndsAt: sql`f.window_ends_at` };
  return sql<CandidateAndWindowsRow>`SELECT c.*,
        (SELECT ${dialectOf(q).jsonRows(windows, sql`f.key`)} FROM login_failures f
          WHERE f.key IN ${inTextList(q, keys)} AND f.window_ends_at > ${now}) AS windows
      FROM (SELECT 1 AS anchor) AS anchor
        LEFT JOIN (SELECT a.id, a.identity_id, a.password_hash, a.password_salt, a.failed_attempts, i.disabled_at,
            i.disabled_until, p.primary_updb_allowed, p.primary_updb_max_attempts, p.primary_updb_lockout_duration_minutes
          FROM authenticators a JOIN identities i ON i.id = a.identity_id JOIN auth_policies p ON p.id = i.auth_policy_id
          WHERE a.username = ${username} AND a.method = 'updb' LIMIT 1) AS c ON 1 = 1`;
});

/**
 * A password login's reads before its hash: the username's updb authenticator (undefined: none) and the open
 * failure windows among `keys` at `now` (as openFailureWindows answers them).
 */
export async function passwordCandidate(
  db: Db,
  username: string,
  keys: readonly string[],
  now: string,
): Promise<{ candidate: PasswordCandidateRow | undefined; windows: FailureWindow[] }> {
  const [row] = await selectCandidateAndWindows(db, username, keys, now);
  if (!row) throw new Error('the password login read answered no row');
  const { windows, id, identity_id: identityId, ...rest } = row;
  const entries = parseJsonValue(windows);
  return {
    candidate: id === null || identityId === null ? undefined : { ...rest, id, identity_id: identityId },
    windows: (Array.isArray(entries) ? entries.filter(isJsonObject) : []).map((entry) => ({
      key: String(entry.key),
      failures: Number(entry.failures),
      windowEndsAt: String(entry.windowEndsAt),
    })),
  };
}
