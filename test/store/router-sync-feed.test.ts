// The change feed reader on both stores: it starts from the present, delivers each entry once in sequence order,
// waits for a sequence number that was taken by a transaction not yet committed (PostgreSQL), gives up on one that
// never comes, and prunes what every process read long ago.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
// eslint-disable-next-line @typescript-eslint/no-restricted-imports -- the test commits entries under sequence numbers taken earlier (another transaction's), which no query module does
import { sql } from 'kysely';
import { ChangeFeed } from '../../src/fabric/edge-sync/change-feed.js';
import type { FeedEntry } from '../../src/store/queries/router-sync.js';
import type { Store } from '../../src/store/store.js';
import { openTestStore, storeUnderTest } from './test-store.js';

describe('router sync change feed', () => {
  let store: Store;
  let now = 0;
  const delivered: number[] = [];
  let feed: ChangeFeed;

  /** An entry with a chosen sequence number, as a transaction that took it earlier would commit it. */
  const insert = (seq: number) =>
    store.transaction((tx) =>
      storeUnderTest === 'postgres'
        ? sql`INSERT INTO router_sync_feed (seq, kind, entity_id, token) OVERRIDING SYSTEM VALUE VALUES (${seq}, 'apiSessionRemoved', ${`id${seq}`}, ${`t${seq}`})`.execute(
            tx,
          )
        : sql`INSERT INTO router_sync_feed (seq, kind, entity_id, token) VALUES (${seq}, 'apiSessionRemoved', ${`id${seq}`}, ${`t${seq}`})`.execute(
            tx,
          ),
    );
  const take = () => delivered.splice(0);
  const count = () =>
    store.read(async (db) =>
      Number((await sql<{ n: number }>`SELECT count(*) AS n FROM router_sync_feed`.execute(db)).rows[0]!.n),
    );

  before(async () => {
    store = await openTestStore();
    await insert(1);
    feed = new ChangeFeed({
      store,
      deliver: (entries: FeedEntry[]) => void delivered.push(...entries.map((entry) => entry.seq)),
      onError: (error) => assert.fail(error as Error),
      now: () => now,
      pollMs: 3_600_000,
    });
    await feed.start();
  });
  after(async () => {
    await feed?.stop();
    await store?.close();
  });

  it('starts from the present', async () => {
    await feed.poll();
    assert.deepEqual(take(), []);
    assert.equal(feed.cursor, 1);
  });

  it('delivers an entry committed after a later one when it comes, and each entry once', async () => {
    await insert(2);
    await insert(4);
    await feed.poll();
    assert.deepEqual(take(), [2, 4]);
    assert.equal(feed.cursor, 2, 'waits at the missing 3');
    await feed.poll();
    assert.deepEqual(take(), []);
    await insert(3);
    await feed.poll();
    assert.deepEqual(take(), [3]);
    assert.equal(feed.cursor, 4);
  });

  it('gives up on a missing number after a while', async () => {
    await insert(6);
    await feed.poll();
    assert.deepEqual(take(), [6]);
    now += 4_000;
    await feed.poll();
    assert.equal(feed.cursor, 4);
    now += 2_000;
    await feed.poll();
    assert.equal(feed.cursor, 6);
    await insert(7);
    await feed.poll();
    assert.deepEqual(take(), [7]);
  });

  it('prunes entries a full interval after it saw them, with nothing written when there is nothing to prune', async () => {
    assert.equal(await count(), 6);
    now += 61_000;
    await feed.poll();
    assert.equal(await count(), 5, 'what was there at start is pruned');
    now += 61_000;
    await feed.poll();
    assert.equal(await count(), 0);
    const generation = store.changes.latest;
    now += 61_000;
    await feed.poll();
    assert.equal(store.changes.latest, generation);
  });
});
