// Live router presence (025) without reading the server's whole lock table: 025 asked pg_locks (pg_lock_status) once
// per statement, which copies every lock of every backend under all of the lock manager's partition locks (0.08 ms
// with a handful of locks held, 0.2–2 ms with a couple of hundred), on the session create's path. Here each instance
// named in router_presence is tested once per statement by trying its liveness lock in shared mode: the try fails
// exactly while a live process holds the lock (instance-lock.ts holds it exclusively on a connection of its own), so
// a router reads held under the same condition as before. A try that succeeds (its holder is gone) keeps the shared
// lock until the reading transaction ends; an instance taking its lock again then waits for that transaction, and its
// routers read as not held until it has the lock, as they should. SQLite's view is unchanged.
import { INSTANCE_LOCK } from '../postgres/instance-lock.js';
import type { Migration } from './migrate.js';

const COLUMNS = 'connected_at, version_info, link_listeners, hostname, supported_protocols, sync_status';

export const liveRouterPresenceByTry: Migration = {
  version: 26,
  name: 'live router presence by try',
  statements: [
    {
      // The live instances are found once per statement (an uncorrelated IN over the distinct instances named, read
      // from the router_presence_instance index), one try per instance, not one per row.
      postgres: `CREATE OR REPLACE VIEW live_router_presence AS
        SELECT router_id,
          CASE WHEN instance_id IN (
            SELECT named.instance_id FROM (SELECT DISTINCT instance_id FROM router_presence WHERE instance_id IS NOT NULL) AS named
            WHERE NOT pg_try_advisory_xact_lock_shared(${INSTANCE_LOCK}, hashtext(named.instance_id))
          ) THEN instance_id END AS instance_id,
          ${COLUMNS}
        FROM router_presence`,
    },
  ],
};
