// The instance lock (src/store/postgres/instance-lock.ts), PostgreSQL only: held while the instance runs, released
// when it lets go, and taken again when the connection holding it is lost under a live instance (the server
// restarted, a network cut: here a TCP relay between the two drops its connections). Whether the lock is held is
// asked as another instance would meet it: a second taker of the same id is refused.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { holdInstanceLock } from '../../src/store/postgres/instance-lock.js';
import { waitUntil } from '../support/wait.js';

const url = process.env.ZITI_TEST_DATABASE_URL;

/** Relays connections to the database server; `cut()` drops every one open. */
async function relay(target: URL): Promise<{ url: string; cut(): void; close(): Promise<void> }> {
  const open = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const through = new URL(target);
  through.hostname = '127.0.0.1';
  through.port = String((server.address() as AddressInfo).port);
  return {
    url: through.toString(),
    cut: () => open.forEach((socket) => socket.destroy()),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('the instance lock (PostgreSQL)', { skip: url ? false : 'PostgreSQL only (ZITI_TEST_DATABASE_URL)' }, () => {
  let through: Awaited<ReturnType<typeof relay>>;
  before(async () => {
    through = await relay(new URL(url!));
  });
  after(() => through?.close());

  /** Whether some instance holds `id`'s lock: a second taker is told so, and lets go of what it took. */
  const held = async (id: string) => {
    const refusals: unknown[] = [];
    const probe = await holdInstanceLock(url!, id, (error) => refusals.push(error));
    await probe.release();
    return refusals.length > 0;
  };

  it('is held while the instance runs and gone once it lets go', async () => {
    const id = `held${Date.now()}`;
    const errors: unknown[] = [];
    const lock = await holdInstanceLock(url!, id, (error) => errors.push(error));
    assert.equal(await held(id), true);
    await lock.release();
    assert.equal(await held(id), false);
    assert.deepEqual(errors, []);
  });

  it('is taken again on a new connection when the one holding it is lost', async () => {
    const id = `cut${Date.now()}`;
    const errors: unknown[] = [];
    const lock = await holdInstanceLock(through.url, id, (error) => errors.push(error));
    try {
      assert.equal(await held(id), true);
      through.cut();
      await waitUntil(() => Promise.resolve(errors.length > 0));
      // Until it is taken again the instance reads as gone; then as alive again, without a restart.
      await waitUntil(() => held(id), 10_000);
      assert.match(String(errors[0]), /connection|terminat|closed/i);
    } finally {
      await lock.release();
    }
    assert.equal(await held(id), false);
  });
});
