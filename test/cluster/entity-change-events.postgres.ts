// Entity changes on two instances of one PostgreSQL database (issue 31): every committed change is recorded once
// and emitted once in the whole cluster, by the instance that committed it, whichever instance the writes reach and
// however they interleave; both instances list the same record. npm run test:postgres.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EntityChangeEvent, ZitiEvent } from '../../src/events/event-types.js';
import { buildTestApp } from '../support/test-app.js';
import { postgresSchema } from '../support/two-instances.js';

const management = '/edge/management/v1';

describe('entity change events across instances', () => {
  it('emits each committed change exactly once cluster-wide, from the instance that made it', async () => {
    const database = await postgresSchema();
    const apps = await Promise.all([buildTestApp(database.options), buildTestApp(database.options)]);
    try {
      const heard = apps.map(() => [] as EntityChangeEvent[]);
      apps.forEach((app, index) =>
        app.events.dispatcher.subscribe([{ type: 'entityChange', options: { include: ['services'] } }], {
          accept: (event: ZitiEvent) => {
            if (event.namespace === 'entityChange') heard[index]!.push(event);
          },
        }),
      );
      const tokens = await Promise.all(apps.map((app) => app.loginAsAdmin()));
      // Twenty services created, updated and deleted, alternating instances, four at a time.
      const ids: string[] = [];
      for (let round = 0; round < 5; round++) {
        await Promise.all(
          [0, 1, 2, 3].map(async (slot) => {
            const app = apps[slot % 2]!;
            const other = apps[(slot + 1) % 2]!;
            const created = await app.call({
              method: 'POST',
              url: `${management}/services`,
              token: tokens[slot % 2]!,
              payload: { name: `svc-${round}-${slot}`, encryptionRequired: true },
            });
            assert.equal(created.status, 201, created.text);
            const id = (created.body as { data: { id: string } }).data.id;
            ids.push(id);
            // Updated and deleted through the other instance.
            const patched = await other.call({
              method: 'PATCH',
              url: `${management}/services/${id}`,
              token: tokens[(slot + 1) % 2]!,
              payload: { roleAttributes: ['x'] },
            });
            assert.equal(patched.status, 200, patched.text);
            const deleted = await other.call({
              method: 'DELETE',
              url: `${management}/services/${id}`,
              token: tokens[(slot + 1) % 2]!,
            });
            assert.equal(deleted.status, 200, deleted.text);
          }),
        );
      }
      const all = heard.flat();
      const changes = all.filter((event) => event.eventType !== 'committed');
      // 1. Exactly one event per change: 20 services × created, updated, deleted; no event id twice.
      assert.equal(changes.length, 60);
      assert.equal(new Set(changes.map((event) => event.eventId)).size, 60);
      assert.equal(all.filter((event) => event.eventType === 'committed').length, 60);
      // 2. Each by the instance that committed it: creates half on each, updates and deletes on the other.
      const createdOn = heard.map((events) => events.filter((event) => event.eventType === 'created').length);
      assert.deepEqual(createdOn, [10, 10]);
      // 3. Both instances list the same record, one row per event.
      for (const [index, app] of apps.entries()) {
        const filter = encodeURIComponent('entityType = "services"');
        const listed = await app.call({
          method: 'GET',
          url: `${management}/entity-changes?limit=500&filter=${filter}`,
          token: tokens[index]!,
        });
        assert.equal(listed.status, 200, listed.text);
        const rows = (listed.body as { data: { id: string; entityId: string; instanceId: string }[] }).data;
        assert.deepEqual(rows.map((row) => row.id).sort(), changes.map((event) => event.eventId).sort());
        assert.deepEqual(new Set(rows.map((row) => row.entityId)), new Set(ids));
      }
    } finally {
      for (const app of apps) await app.close();
      await database.drop();
    }
  });
});
