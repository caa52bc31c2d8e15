// Router presence as REST and the control plane read it (issue 30 item 7): a router is held only while the instance
// named in its row is alive. On PostgreSQL, where several instances share the rows, alive means the instance still
// holds its liveness lock (postgres/instance-lock.ts): the server releases it the moment the process dies, so the
// routers of a killed instance read offline, and may connect elsewhere, at once, not when its heartbeat has lapsed
// and a sweep has run (up to 40 s). On SQLite, one process per home, the view is the table as it is. Writes go to
// router_presence; reads of "who holds it / is it online" go here.
import { INSTANCE_LOCK } from '../postgres/instance-lock.js';
import type { Migration } from './migrate.js';

const COLUMNS = 'connected_at, version_info, link_listeners, hostname, supported_protocols, sync_status';

export const liveRouterPresence: Migration = {
  version: 25,
  name: 'live router presence',
  statements: [
    {
      sqlite: `CREATE VIEW live_router_presence AS SELECT router_id, instance_id, ${COLUMNS} FROM router_presence`,
      // The live instances' keys are read once per query (an uncorrelated IN), not once per row.
      postgres: `CREATE VIEW live_router_presence AS
        SELECT router_id,
          CASE WHEN hashtext(instance_id)::oid IN (
            SELECT objid FROM pg_locks
            WHERE locktype = 'advisory' AND classid = ${INSTANCE_LOCK} AND objsubid = 2 AND granted
              AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
          ) THEN instance_id END AS instance_id,
          ${COLUMNS}
        FROM router_presence`,
    },
  ],
};
