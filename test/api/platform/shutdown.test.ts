import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { buildTlsTestApp, type TlsTestApp } from '../../support/tls-client.js';
import { openStore } from '../../../src/store/open-store.js';
import { selectRows } from '../../../src/store/queries/table-rows.js';
import { MANAGEMENT as api } from '../../support/api-paths.js';

/** Holds the store's write connection, as a slow write would, until `release()`. */
function holdWrites(t: TlsTestApp): { release: () => void; held: Promise<unknown> } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  return { release, held: t.deps.store.transaction(() => gate) };
}

/** Resolves once the server has taken the next request in. */
const nextRequestArrives = (t: TlsTestApp) =>
  new Promise<void>((resolve) => t.app.server.once('request', () => resolve()));

/** Retries until a new connection is refused: the listener is closed. */
async function listenerClosed(t: TlsTestApp): Promise<void> {
  for (;;) {
    const outcome = await t.https({ path: '/edge/client/v1/version', headers: { connection: 'close' } }).then(
      () => 'served',
      (error: NodeJS.ErrnoException) => error.code,
    );
    if (outcome === 'ECONNREFUSED') return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('graceful shutdown', () => {
  it('stops taking connections, finishes the request in flight, flushes session activity and closes the store', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'ziti-shutdown-'));
    const file = join(folder, 'ctrl.db');
    const t = await buildTlsTestApp({ databaseFile: file });
    try {
      const token = await t.loginAsAdmin();
      // Activity is kept in memory between flushes; this request's must reach the database by the end.
      t.clock.advance(5 * 60_000);
      assert.equal((await t.https({ path: `${api}/identities`, headers: { 'zt-session': token } })).status, 200);

      // 1. A write is in flight, waiting for the store.
      const { release, held } = holdWrites(t);
      const arrived = nextRequestArrives(t);
      const inFlight = t.https({
        method: 'POST',
        path: `${api}/identities`,
        headers: { 'zt-session': token, 'content-type': 'application/json', connection: 'close' },
        body: JSON.stringify({ name: 'made-while-stopping', type: 'User', isAdmin: false }),
      });
      await arrived;

      // 2. The stop begins: not ready any more, and the listener takes no new connection.
      const closing = t.close();
      assert.equal((await t.deps.health.readiness()).isReady, false);
      await listenerClosed(t);

      // 3. The request in flight still completes, then the stop does.
      release();
      await held;
      assert.equal((await inFlight).status, 201);
      await closing;
      await assert.rejects(
        t.deps.store.read((db) => selectRows(db, 'identities')),
        'the store is closed',
      );

      const reopened = await openStore({ databaseUrl: undefined, databaseFile: file });
      try {
        const [session] = await reopened.read((db) => selectRows(db, 'api_sessions', { token }));
        assert.equal(session?.last_activity_at, t.clock().toISOString(), 'the last activity was flushed');
        assert.equal(
          (await reopened.read((db) => selectRows(db, 'identities', { name: 'made-while-stopping' }))).length,
          1,
        );
      } finally {
        await reopened.close();
      }
    } finally {
      await t.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('closes the connections of requests still running at shutdown.timeout, and stops', async () => {
    const t = await buildTlsTestApp({ settings: { shutdownTimeoutMs: 50 } });
    try {
      const token = await t.loginAsAdmin();
      const { release, held } = holdWrites(t);
      const arrived = nextRequestArrives(t);
      const stuck = t.https({
        method: 'POST',
        path: `${api}/identities`,
        headers: { 'zt-session': token, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'never-answered', type: 'User', isAdmin: false }),
      });
      await arrived;
      const closing = t.close();
      // The connection is closed under the request; only then is the held write let go, so the stop can finish.
      await assert.rejects(stuck, /socket hang up|ECONNRESET/);
      release();
      await held;
      await closing;
    } finally {
      await t.close();
    }
  });
});
