// An instance's liveness as PostgreSQL itself sees it: a controller holds a session-level advisory lock keyed by its
// instance id, on a connection of its own, for as long as it runs. A process that dies (kill -9, a crash) loses that
// connection and the server releases the lock at once, so every other instance reads at once that no live process
// holds the routers the dead one held (the live_router_presence view, migration 025), instead of trusting its
// heartbeat until it lapses (30 s) and a sweep clears its rows (10 s more). The heartbeat and the sweep stay: they
// catch an instance cut off from the database whose connection the server has not yet seen go.
import pg from 'pg';

/** The advisory lock's first key; the second is `hashtext(instance id)`. Migration 025 reads the same pair. */
export const INSTANCE_LOCK = 0x5a49544c; // "ZITL"

/** After a lost connection, how long before the lock is taken again. */
const RETAKE_AFTER_MS = 1000;

/**
 * The server's side of the lock's connection: a client machine gone silent (powered off, cut off) is noticed in about
 * 25 s, not the operating system's two hours, and its lock released. (A process that dies is noticed at once.)
 */
const SERVER_KEEPALIVE = 'SET tcp_keepalives_idle = 10; SET tcp_keepalives_interval = 5; SET tcp_keepalives_count = 3';

export interface InstanceLock {
  /** Gives the lock up (the connection closes); the instance reads as gone from then on. */
  release(): Promise<void>;
}

/**
 * Takes the lock of `instanceId` on a connection of its own and keeps it, taking it again on a new connection when
 * the one holding it is lost (`onError` hears why). Resolves once the lock is first held.
 */
export async function holdInstanceLock(
  url: string,
  instanceId: string,
  onError: (error: unknown) => void,
): Promise<InstanceLock> {
  let client: pg.Client | undefined;
  let released = false;
  let retake: NodeJS.Timeout | undefined;

  // The first take does not wait: nobody else holds a fresh random id's lock, and a start must not hang. A retake waits
  // for it: the server may still hold it for the lost connection (it has yet to notice), and does so for this instance.
  const take = async (first: boolean): Promise<void> => {
    // keepAlive: a server gone silent (a cut network) is noticed, and the lock taken again once it answers.
    const next = new pg.Client({ connectionString: url, keepAlive: true });
    const lost = (error: unknown) => {
      if (client !== next || released) return;
      client = undefined;
      onError(error);
      void next.end().catch(onError);
      retake = setTimeout(() => void take(false), RETAKE_AFTER_MS);
      retake.unref();
    };
    next.on('error', lost);
    next.on('end', () => lost(new Error('the connection holding the instance lock closed')));
    client = next;
    try {
      await next.connect();
      await next.query(SERVER_KEEPALIVE);
      if (!first) {
        await next.query('SELECT pg_advisory_lock($1, hashtext($2))', [INSTANCE_LOCK, instanceId]);
        return;
      }
      const { rows } = await next.query<{ held: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS held', [
        INSTANCE_LOCK,
        instanceId,
      ]);
      // Ids are random: a refusal is another instance's id hashing alike, whose liveness then speaks for this one's.
      if (rows[0]?.held !== true)
        onError(new Error(`the instance lock of ${instanceId} is held by another instance whose id hashes alike`));
    } catch (error) {
      // The first take fails the store's opening (the controller does not start); a retake tries again.
      if (!first) return lost(error);
      client = undefined;
      void next.end().catch(onError);
      throw error;
    }
  };

  await take(true);
  return {
    async release() {
      released = true;
      clearTimeout(retake);
      const holding = client;
      client = undefined;
      await holding?.end();
    },
  };
}
