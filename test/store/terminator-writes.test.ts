// Terminator writes take no strict turn (define-entity.ts ownRowWrites, issue 33): on PostgreSQL a terminator is
// created, changed and deleted while another area's write is open, where a strict write (an identity create) waits
// for it. SQLite has one writer, so there every write waits (this file checks the answers there, not the overlap).
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { createEdgeRouter, createEntity, createIdentity, createService } from '../support/factories.js';
import { buildTestApp, type TestApp } from '../support/test-app.js';
import { storeUnderTest } from './test-store.js';

/** Long enough for a write that wrongly waited to show it (a correct one answers in milliseconds). */
const SETTLE_MS = 300;

describe(`terminator writes on ${storeUnderTest}`, () => {
  let t: TestApp;
  let token: string;
  let serviceId: string;
  let routerId: string;
  const base = '/edge/management/v1/terminators';

  before(async () => {
    t = await buildTestApp();
    token = await t.loginAsAdmin();
    serviceId = await createService(t, token);
    routerId = await createEdgeRouter(t, token);
  });
  after(() => t.close());

  it(
    'are created, patched and deleted beside an open write of another area, while a strict write waits',
    { skip: storeUnderTest === 'sqlite' && 'SQLite has one writer', timeout: 30_000 },
    async () => {
      let open!: () => void;
      const gate = new Promise<void>((resolve) => (open = resolve));
      const held = t.deps.store.transaction(() => gate, { touches: ['test-held-area'] });
      let identityCreated = false;
      let identity: Promise<unknown> | undefined;
      try {
        const id = await createEntity(t, token, 'terminators', {
          service: serviceId,
          router: routerId,
          binding: 'transport',
          address: 'tcp:localhost:8080',
        });
        const patched = await t.call({ method: 'PATCH', url: `${base}/${id}`, token, payload: { cost: 7 } });
        assert.equal(patched.status, 200, patched.text);
        const deleted = await t.call({ method: 'DELETE', url: `${base}/${id}`, token });
        assert.equal(deleted.status, 200, deleted.text);
        identity = createIdentity(t, token).then(() => (identityCreated = true));
        await sleep(SETTLE_MS);
        assert.equal(identityCreated, false, 'a strict write waits for the open one');
      } finally {
        open();
        await held;
        await identity;
      }
      assert.equal(identityCreated, true);
    },
  );

  it('still refuses a terminator of a service or router that does not exist', async () => {
    for (const [field, body] of [
      ['service', { service: 'no-such-service', router: routerId }],
      ['router', { service: serviceId, router: 'no-such-router' }],
    ] as const) {
      const refused = await t.call({
        method: 'POST',
        url: base,
        token,
        payload: { ...body, binding: 'transport', address: 'tcp:localhost:1' },
      });
      assert.equal(refused.status, 400, refused.text);
      assert.match(refused.text, new RegExp(`no ${field} found`));
    }
  });
});
