// The routers' change feed follows this process's own commits at once (a v1.1.8 router holds an SDK's Connect until it
// knows the SDK's new API session), and still finds other processes' commits by polling. On SQLite (npm test) and
// PostgreSQL (test:postgres).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ChangeFeed } from '../../src/fabric/edge-sync/change-feed.js';
import type { FeedEntry } from '../../src/store/queries/router-sync.js';
import { insertRow } from '../../src/store/queries/table-rows.js';
import type { Store } from '../../src/store/store.js';
import { emptyDatabase, storeUnderTest, type EmptyDatabase } from '../store/test-store.js';

const at = '2024-01-01T00:00:00.000Z';
const base = (id: string) => ({ id, created_at: at, updated_at: at, tags: '{}', is_system: 0 });
const apiSession = (id: string) => ({ ...base(id), token: `token-${id}`, identity_id: 'one', last_activity_at: at });

describe(`the routers' change feed on ${storeUnderTest}`, () => {
  let database: EmptyDatabase;
  let here: Store;
  let elsewhere: Store;
  const errors: unknown[] = [];
  before(async () => {
    database = await emptyDatabase();
    [here, elsewhere] = [await database.open(), await database.open()];
    await here.transaction((tx) => insertRow(tx, 'identities', { ...base('one'), name: 'one', type_id: 'Default' }));
  });
  after(async () => {
    assert.deepEqual(errors, []);
    await here?.close();
    await elsewhere?.close();
    await database?.remove();
  });

  /** A feed polling once a minute, whose deliveries resolve the promises `next()` hands out. */
  async function startFeed(store: Store, pollMs: number) {
    const waiting: ((entries: FeedEntry[]) => void)[] = [];
    const feed = new ChangeFeed({
      store,
      pollMs,
      deliver: (entries) => waiting.shift()?.(entries),
      onError: (error) => errors.push(error),
    });
    await feed.start();
    return { feed, next: () => new Promise<FeedEntry[]>((resolve) => waiting.push(resolve)) };
  }

  it("delivers this process's new API session at once, without waiting for its next poll", async () => {
    const { feed, next } = await startFeed(here, 60_000);
    try {
      const delivered = next();
      await here.transaction((tx) => insertRow(tx, 'api_sessions', apiSession('as1')));
      const entries = await delivered;
      assert.deepEqual(
        entries.map((entry) => [entry.kind, entry.token]),
        [['apiSessionAdded', 'token-as1']],
      );
    } finally {
      await feed.stop();
    }
  });

  it("finds another process's commit at its next poll", async () => {
    const { feed, next } = await startFeed(here, 20);
    try {
      const delivered = next();
      await elsewhere.transaction((tx) => insertRow(tx, 'api_sessions', apiSession('as2')));
      // The feed's timer does not hold the process open (unref): this does, while the poll is awaited.
      const awake = setTimeout(() => undefined, 10_000);
      assert.deepEqual(
        (await delivered).map((entry) => entry.token),
        ['token-as2'],
      );
      clearTimeout(awake);
    } finally {
      await feed.stop();
    }
  });

  it('tells local listeners the tables a commit changed rows of, bookkeeping writes included', async () => {
    const told: string[][] = [];
    here.changes.onLocalCommit((tables) => told.push([...tables].sort()));
    await here.transaction((tx) => insertRow(tx, 'api_sessions', apiSession('as3')), { bookkeeping: true });
    assert.deepEqual(told.at(-1), ['api_sessions']);
  });
});
