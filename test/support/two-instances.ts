// Two controller instances on one database, each with its own home, caches and clock: what one does, the other
// must honour at its next request. The same scenarios run on one SQLite file (two connections, as two processes
// have: test/api/platform/two-instances.test.ts) and on one PostgreSQL schema (test/cluster/, npm run test:postgres).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createScratchSchema } from '../../src/store/postgres/scratch-schema.js';
import { assertError } from './conformance.js';
import { createAuthPolicy, createService, createUser, login } from './factories.js';
import { grantService, openEdgeRouter, requestSession } from './sessions.js';
import { buildTestApp, type TestApp, type TestAppOptions } from './test-app.js';
import { CLIENT as client, MANAGEMENT as management } from './api-paths.js';

export interface SharedDatabase {
  /** What every instance on it is built with. */
  options: TestAppOptions;
  drop(): Promise<void>;
}

export function sqliteFile(): SharedDatabase {
  const folder = mkdtempSync(join(tmpdir(), 'ziti-shared-db-'));
  return {
    options: { databaseFile: join(folder, 'ctrl.db') },
    drop: () => Promise.resolve(rmSync(folder, { recursive: true, force: true })),
  };
}

/** A fresh schema (prefix ts14b_) in the database ZITI_TEST_DATABASE_URL names; there is no skipping without one. */
export async function postgresSchema(): Promise<SharedDatabase> {
  const url = process.env.ZITI_TEST_DATABASE_URL;
  if (!url)
    throw new Error('ZITI_TEST_DATABASE_URL is not set: the PostgreSQL tests need a database (npm run test:postgres)');
  const scratch = await createScratchSchema(url, 'ts14b');
  return { options: { settings: { databaseUrl: scratch.url } }, drop: () => scratch.drop() };
}

/** Counts the instance's store reads from now on; the returned function stops counting and tells how many. */
function countReads(t: TestApp): () => number {
  const store = t.deps.store;
  const read = store.read.bind(store);
  let count = 0;
  store.read = (work) => {
    count++;
    return read(work);
  };
  return () => {
    store.read = read;
    return count;
  };
}

export function describeTwoInstances(label: string, open: () => SharedDatabase | Promise<SharedDatabase>): void {
  describe(`two instances on one ${label} database`, () => {
    let database: SharedDatabase;
    let a: TestApp;
    let b: TestApp;
    let adminA: string;
    let adminB: string;
    const get = (t: TestApp, url: string, token: string) => t.call({ method: 'GET', url, token });

    before(async () => {
      database = await open();
      a = await buildTestApp(database.options);
      b = await buildTestApp(database.options);
      adminA = await a.loginAsAdmin();
      adminB = await b.loginAsAdmin();
    });
    after(async () => {
      await a?.close();
      await b?.close();
      await database?.drop();
    });

    it('share one PKI and cluster id, and each lists both in GET /controllers', async () => {
      assert.equal(b.deps.pki.caBundlePem, a.deps.pki.caBundlePem);
      assert.equal(b.deps.pki.serverCertFingerprint, a.deps.pki.serverCertFingerprint);
      assert.equal(b.deps.clusterId, a.deps.clusterId);
      for (const [t, token] of [
        [a, adminA],
        [b, adminB],
      ] as const) {
        const listed = await get(t, `${management}/controllers`, token);
        assert.equal(listed.status, 200, listed.text);
        const ids = (listed.body as { data: Array<{ id: string; isOnline: boolean }> }).data
          .map((row) => row.id)
          .sort();
        assert.deepEqual(ids, [a.deps.instanceId, b.deps.instanceId].sort());
      }
    });

    it('a logout on B ends the session on A at its next request', async () => {
      const user = await createUser(a, adminA);
      const token = await login(a, user.username, user.password);
      assert.equal(
        (await get(a, `${client}/current-identity`, token)).status,
        200,
        'A has looked the session up (and cached it)',
      );
      assert.equal((await b.call({ method: 'DELETE', url: `${client}/current-api-session`, token })).status, 200);
      assertError(await get(a, `${client}/current-identity`, token), 401, 'UNAUTHORIZED');
    });

    it('disabling an identity on A refuses its next request on B', async () => {
      const user = await createUser(a, adminA);
      const token = await login(b, user.username, user.password);
      assert.equal((await get(b, `${client}/current-identity`, token)).status, 200);
      assert.equal(
        (
          await a.call({
            method: 'POST',
            url: `${management}/identities/${user.id}/disable`,
            token: adminA,
            payload: { durationMinutes: 0 },
          })
        ).status,
        200,
      );
      assertError(await get(b, `${client}/current-identity`, token), 401, 'UNAUTHORIZED');
    });

    it("a policy change on A shows in B's service list and service updates", async () => {
      const user = await createUser(a, adminA);
      const token = await login(b, user.username, user.password);
      const services = async () =>
        ((await get(b, `${client}/services`, token)).body as { data: Array<{ id: string }> }).data.map((row) => row.id);
      const lastChange = async () =>
        (
          (await get(b, `${client}/current-api-session/service-updates`, token)).body as {
            data: { lastChangeAt: string };
          }
        ).data.lastChangeAt;
      assert.deepEqual(await services(), []);
      const before = await lastChange();
      a.clock.advance(60_000);
      const granted = await grantService(a, adminA, user.id, ['Dial']);
      assert.deepEqual(await services(), [granted.serviceId]);
      assert.notEqual(await lastChange(), before);
      // And taken away again from B's side, seen by A.
      assert.equal(
        (
          await b.call({
            method: 'DELETE',
            url: `${management}/service-policies/${granted.policies.Dial!}`,
            token: adminB,
          })
        ).status,
        200,
      );
      assert.deepEqual(((await get(a, `${client}/services`, token)).body as { data: unknown[] }).data, []);
    });

    it('an MFA requirement set on A applies to the next request on B', async () => {
      const user = await createUser(a, adminA);
      const token = await login(b, user.username, user.password);
      assert.equal((await get(b, `${client}/services`, token)).status, 200);
      const policy = await createAuthPolicy(a, adminA, { secondary: { requireTotp: true } });
      assert.equal(
        (
          await a.call({
            method: 'PATCH',
            url: `${management}/identities/${user.id}`,
            token: adminA,
            payload: { authPolicyId: policy },
          })
        ).status,
        200,
      );
      assertError(await get(b, `${client}/services`, token), 401, 'UNAUTHORIZED');
    });

    it("a posture report made through A is the identity's posture on B", async () => {
      const user = await createUser(a, adminA);
      const token = await login(a, user.username, user.password);
      const report = { id: 'os-check', typeId: 'OS', type: 'Linux', version: '6.1.0', build: '42' };
      assert.equal(
        (await a.call({ method: 'POST', url: `${client}/posture-response`, token, payload: report })).status,
        201,
      );
      const shown = await get(b, `${management}/identities/${user.id}/posture-data`, adminB);
      assert.equal(shown.status, 200, shown.text);
      assert.deepEqual((shown.body as { data: { os: { type: unknown; version: unknown } } }).data.os.type, 'Linux');
    });

    it("A's heartbeat and session-activity flush leave B's caches standing; a real write on A drops them", async () => {
      const user = await createUser(a, adminA);
      const token = await login(a, user.username, user.password);
      assert.equal((await get(b, `${client}/current-identity`, token)).status, 200);
      a.clock.advance(60_000);
      assert.equal((await get(a, `${client}/current-identity`, token)).status, 200, 'A has activity to write');
      await b.deps.store.refresh();
      const before = b.deps.store.changes.latest;
      await a.deps.heartbeat.beat();
      await a.deps.apiSessions.flush(false);
      await b.deps.store.refresh();
      assert.equal(b.deps.store.changes.latest, before, 'bookkeeping commits do not invalidate caches');
      await createService(a, adminA);
      await b.deps.store.refresh();
      assert.notEqual(b.deps.store.changes.latest, before, "a model change must drop B's caches at its next request");
    });

    it("a session create and a posture report on A drop no instance's caches; B reads the session at once", async () => {
      await openEdgeRouter(a, adminA);
      const user = await createUser(a, adminA);
      const token = await login(a, user.username, user.password);
      const { serviceId } = await grantService(a, adminA, user.id, ['Dial']);
      for (const t of [a, b]) await t.deps.store.refresh();
      const before = [a.deps.store.changes.latest, b.deps.store.changes.latest];
      const created = await requestSession(a, token, serviceId, 'Dial');
      assert.equal(created.status, 201, created.text);
      const report = { id: 'os-check', typeId: 'OS', type: 'Linux', version: '6.1.0', build: '42' };
      assert.equal(
        (await a.call({ method: 'POST', url: `${client}/posture-response`, token, payload: report })).status,
        201,
      );
      for (const t of [a, b]) await t.deps.store.refresh();
      assert.deepEqual([a.deps.store.changes.latest, b.deps.store.changes.latest], before);
      const id = (created.body as { data: { id: string } }).data.id;
      assert.equal((await get(b, `${management}/sessions/${id}`, adminB)).status, 200);
    });

    it("a change on B shows in A's identity list, which A keeps between writes", async () => {
      const user = await createUser(a, adminA);
      const url = `${management}/identities?filter=${encodeURIComponent(`id = "${user.id}"`)}`;
      const shown = async () =>
        (await get(a, url, adminA)).body as { data: Array<{ name: string; hasApiSession: boolean }> };
      const before = await shown();
      assert.deepEqual(await shown(), before, 'read again unchanged');
      assert.equal(before.data[0]!.hasApiSession, false);
      await login(b, user.username, user.password);
      assert.equal((await shown()).data[0]!.hasApiSession, true, "a login on B is seen by A's next list");
      assert.equal(
        (
          await b.call({
            method: 'PATCH',
            url: `${management}/identities/${user.id}`,
            token: adminB,
            payload: { name: `renamed-${user.id}` },
          })
        ).status,
        200,
      );
      assert.equal((await shown()).data[0]!.name, `renamed-${user.id}`);
    });

    it("a login and a logout on A drop on B only that identity's kept answers; a service create drops no identity list", async () => {
      const [one, two] = [await createUser(a, adminA), await createUser(a, adminA)];
      const tokenTwo = await login(b, two.username, two.password);
      const listUrl = `${management}/identities?filter=${encodeURIComponent(`id = "${two.id}"`)}`;
      assert.equal((await get(b, `${client}/current-identity`, tokenTwo)).status, 200);
      const tokenOne = await login(a, one.username, one.password);
      assert.equal((await get(b, `${client}/current-identity`, tokenOne)).status, 200);
      // Kept after the login: the list shows whether each identity has an API session (`hasApiSession`).
      assert.equal((await get(b, listUrl, adminB)).status, 200);
      await createService(a, adminA);
      const reads = countReads(b);
      assert.equal((await get(b, `${client}/current-identity`, tokenTwo)).status, 200);
      assert.equal((await get(b, listUrl, adminB)).status, 200);
      assert.equal(reads(), 0, "another identity's login and a service create leave B's kept answers standing");
      assert.equal(
        (await a.call({ method: 'DELETE', url: `${client}/current-api-session`, token: tokenOne })).status,
        200,
      );
      assertError(await get(b, `${client}/current-identity`, tokenOne), 401, 'UNAUTHORIZED');
      const again = countReads(b);
      assert.equal((await get(b, `${client}/current-identity`, tokenTwo)).status, 200);
      assert.equal(again(), 0, "another identity's logout leaves them standing too");
    });

    it('a service created on B is read back on A, and a name taken on A is refused on B', async () => {
      const name = `shared-${a.deps.instanceId}`;
      const id = await createService(b, adminB, { name });
      assert.equal((await get(a, `${management}/services/${id}`, adminA)).status, 200);
      assertError(
        await b.call({
          method: 'POST',
          url: `${management}/services`,
          token: adminB,
          payload: { name, encryptionRequired: true },
        }),
        400,
        'COULD_NOT_VALIDATE',
      );
    });

    it('count failed logins together: racing guesses from one address on both get exactly the limit answered, the owner elsewhere logs in', async () => {
      const user = await createUser(a, adminA);
      const attempt = (t: TestApp, password: string, remoteAddress: string) =>
        t.call({
          method: 'POST',
          url: `${client}/authenticate?method=password`,
          payload: { username: user.username, password },
          remoteAddress,
        });
      const guesses = await Promise.all(
        Array.from({ length: 24 }, (_, i) => attempt(i % 2 ? a : b, `wrong-password-${i}`, '198.51.100.7')),
      );
      const statuses = guesses.map((guess) => guess.status).sort();
      // usernameFailures is 10 by default.
      assert.deepEqual(statuses, [...Array<number>(10).fill(401), ...Array<number>(14).fill(429)]);
      assertError(await attempt(a, user.password, '198.51.100.7'), 429, 'RATE_LIMITED');
      assert.equal((await attempt(b, user.password, '198.51.100.8')).status, 200);
    });

    // Last: it moves both clocks past the admins' sessions.
    it('a session used only on A stays valid on B past the activity B has cached, once A has written it', async () => {
      const user = await createUser(a, adminA);
      const token = await login(b, user.username, user.password);
      assert.equal((await get(b, `${client}/current-identity`, token)).status, 200, 'B has cached the session');
      await b.deps.apiSessions.flush(false);
      const idle = b.deps.apiSessions.timeoutMs * 0.7;
      for (const t of [a, b]) t.clock.advance(idle);
      assert.equal((await get(a, `${client}/current-identity`, token)).status, 200);
      await a.deps.apiSessions.flush(false);
      for (const t of [a, b]) t.clock.advance(idle);
      assert.equal(
        (await get(b, `${client}/current-identity`, token)).status,
        200,
        'B judges expiry from the stored activity, not its cached copy',
      );
      for (const t of [a, b]) t.clock.advance(2 * idle);
      assertError(await get(b, `${client}/current-identity`, token), 401, 'UNAUTHORIZED');
    });
  });
}
