// The routers' change feed (issue 22): every change to an API session or session that connected edge routers must
// hear of (upstream's broker events, controller/env/broker.go), as rows with a growing sequence. Each process reads
// the rows after the last it delivered and tells the routers it holds, so a change made through any worker or
// instance reaches every router. The rows are written by triggers, inside the transaction that made the change:
// no code path that creates, completes or ends an API session (login, MFA, logout, the expiry sweep, an admin's
// delete, disabling, deleting or re-enrolling the identity, cascades) can forget to record it, and a rolled-back
// change records nothing.
import type { Migration, MigrationStatement } from './migrate.js';

/**
 * The kinds (and what a router is sent for each): an API session became usable, i.e. was created fully
 * authenticated or completed MFA (ApiSessionAdded; upstream's EventFullyAuthenticated); an API session's
 * certificates changed (ApiSessionUpdated); an API session ended (ApiSessionRemoved); a session ended
 * (SessionRemoved).
 */
const feed = (kind: string, id: string, token: string) =>
  `INSERT INTO router_sync_feed (kind, entity_id, token) VALUES ('${kind}', ${id}, ${token})`;

/** The certificate's API session, if it still exists (a cascade from the session's own delete has nothing to say). */
const certificateChange = (row: 'NEW' | 'OLD') =>
  `INSERT INTO router_sync_feed (kind, entity_id, token) SELECT 'apiSessionUpdated', s.id, s.token FROM api_sessions s WHERE s.id = ${row}.api_session_id`;

/** One trigger, written for SQLite and (as a function and its trigger) for PostgreSQL. */
function trigger(
  name: string,
  event: string,
  table: string,
  when: string | undefined,
  body: string,
): MigrationStatement[] {
  const row = event.startsWith('DELETE') ? 'OLD' : 'NEW';
  return [
    {
      sqlite: `CREATE TRIGGER ${name} AFTER ${event} ON ${table} FOR EACH ROW${when ? ` WHEN ${when}` : ''} BEGIN ${body}; END`,
    },
    {
      postgres: `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${body}; RETURN ${row}; END $$`,
    },
    {
      postgres: `CREATE TRIGGER ${name} AFTER ${event} ON ${table} FOR EACH ROW${when ? ` WHEN (${when})` : ''} EXECUTE FUNCTION ${name}()`,
    },
  ];
}

export const routerSyncFeed: Migration = {
  version: 19,
  name: 'router sync feed',
  statements: [
    // SQLite: AUTOINCREMENT so a sequence is never reused after the newest rows were pruned.
    {
      sqlite: `CREATE TABLE router_sync_feed (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL,
        entity_id TEXT NOT NULL,
        token TEXT NOT NULL)`,
      postgres: `CREATE TABLE router_sync_feed (
        seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        kind TEXT COLLATE "C" NOT NULL,
        entity_id TEXT COLLATE "C" NOT NULL,
        token TEXT COLLATE "C" NOT NULL)`,
    },
    ...trigger(
      'api_sessions_feed_insert',
      'INSERT',
      'api_sessions',
      'NEW.is_mfa_required = 0 OR NEW.is_mfa_complete = 1',
      feed('apiSessionAdded', 'NEW.id', 'NEW.token'),
    ),
    ...trigger(
      'api_sessions_feed_mfa',
      'UPDATE OF is_mfa_complete',
      'api_sessions',
      'NEW.is_mfa_complete = 1 AND OLD.is_mfa_complete = 0',
      feed('apiSessionAdded', 'NEW.id', 'NEW.token'),
    ),
    ...trigger(
      'api_sessions_feed_delete',
      'DELETE',
      'api_sessions',
      undefined,
      feed('apiSessionRemoved', 'OLD.id', 'OLD.token'),
    ),
    ...trigger(
      'api_session_certificates_feed_insert',
      'INSERT',
      'api_session_certificates',
      undefined,
      certificateChange('NEW'),
    ),
    ...trigger(
      'api_session_certificates_feed_delete',
      'DELETE',
      'api_session_certificates',
      undefined,
      certificateChange('OLD'),
    ),
    ...trigger('sessions_feed_delete', 'DELETE', 'sessions', undefined, feed('sessionRemoved', 'OLD.id', 'OLD.token')),
  ],
};
