// Two instances writing at once (issue 26): users create sessions, log in and report posture on both while admins
// change role attributes on one and policies on the other. Session creates of different identities no longer take
// turns with each other on PostgreSQL, only with the strict policy and attribute writes; afterwards the link tables
// must hold exactly what a from-scratch evaluation computes, no session may outlive the access it was created under,
// and no API session may hold two sessions for one service and type. Run on one SQLite file
// (test/api/platform/concurrent-writes.test.ts) and one PostgreSQL schema (test/cluster/, npm run test:postgres).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { selectRows } from '../../src/store/queries/table-rows.js';
import type { Store } from '../../src/store/store.js';
import { createEntity, createService, createUser, login, type UserFixture } from './factories.js';
import { assertLinksConsistent } from './policy-oracle.js';
import { openEdgeRouter, requestSession } from './sessions.js';
import { buildTestApp, type TestApp } from './test-app.js';
import type { SharedDatabase } from './two-instances.js';
import { CLIENT as client, MANAGEMENT as management } from './api-paths.js';

const USERS = 6;
const ROUNDS = 8;

/** Every stored session's identity may still use its service that way (admins excepted), and none is doubled. */
async function assertSessionsFollowAccess(store: Store): Promise<void> {
  const rows = await store.read(async (db) => ({
    sessions: await selectRows(db, 'sessions', {}),
    pairs: await selectRows(db, 'identity_services', {}),
    identities: await selectRows(db, 'identities', {}),
    services: await selectRows(db, 'services', {}),
  }));
  const seqOf = (table: ReadonlyArray<{ id: string; seq: number }>, id: unknown) =>
    table.find((row) => row.id === id)?.seq;
  const seen = new Set<string>();
  for (const session of rows.sessions) {
    const identity = rows.identities.find((row) => row.id === session.identity_id)!;
    const pair = rows.pairs.find(
      (row) =>
        row.identity_seq === seqOf(rows.identities, session.identity_id) &&
        row.service_seq === seqOf(rows.services, session.service_id),
    );
    const granted = Number(session.type === 'Bind' ? pair?.bind : pair?.dial) > 0;
    assert.ok(granted || identity.is_admin === 1, `session ${String(session.id)} outlived its access`);
    const key = `${String(session.api_session_id)} ${String(session.service_id)} ${String(session.type)}`;
    assert.ok(!seen.has(key), `two sessions for ${key}`);
    seen.add(key);
  }
}

export function describeConcurrentWrites(label: string, open: () => SharedDatabase | Promise<SharedDatabase>): void {
  describe(`two instances writing at once on one ${label} database`, () => {
    let database: SharedDatabase;
    let a: TestApp;
    let b: TestApp;
    let adminA: string;
    let adminB: string;

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

    it(
      'session creates, logins and posture reports beside attribute and policy changes leave the links and sessions right',
      { timeout: 240_000 },
      async () => {
        await openEdgeRouter(a, adminA);
        const services: string[] = [];
        for (let i = 0; i < 4; i++) services.push(await createService(a, adminA, { roleAttributes: [`s${i % 2}`] }));
        const policy = (type: string, identityRoles: string[], serviceRoles: string[]) =>
          createEntity(a, adminA, 'service-policies', {
            name: `sp-${label}-${type}-${identityRoles[0]}-${serviceRoles[0]}`,
            type,
            semantic: 'AnyOf',
            identityRoles,
            serviceRoles,
          });
        const policies = [
          await policy('Dial', ['#g0'], ['#s0']),
          await policy('Dial', ['#g1'], ['#s1']),
          await policy('Bind', ['#all'], ['#s0']),
        ];
        const users: UserFixture[] = [];
        for (let i = 0; i < USERS; i++) users.push(await createUser(a, adminA, { roleAttributes: [`g${i % 2}`] }));
        const instance = (i: number) => (i % 2 === 0 ? a : b);
        const tokens = await Promise.all(users.map((user, i) => login(instance(i), user.username, user.password)));
        const unexpected: string[] = [];
        const expect = (what: string, status: number, allowed: readonly number[], text: string) => {
          if (!allowed.includes(status)) unexpected.push(`${what}: ${status} ${text}`);
        };

        const userLoop = async (u: number) => {
          for (let round = 0; round < ROUNDS; round++) {
            const service = services[(u + round) % services.length]!;
            // The same request on both instances at once: upstream's reuse gives both the one session.
            const [first, second] = await Promise.all([
              requestSession(a, tokens[u]!, service, 'Dial'),
              requestSession(b, tokens[u]!, service, 'Dial'),
            ]);
            expect('session create', first.status, [201, 400, 404], first.text);
            expect('session create', second.status, [201, 400, 404], second.text);
            if (first.status === 201 && second.status === 201) {
              assert.equal(
                (first.body as { data: { id: string } }).data.id,
                (second.body as { data: { id: string } }).data.id,
                'one session reused',
              );
            }
            const report = { id: 'os-check', typeId: 'OS', type: 'Linux', version: `6.${round}.0`, build: '42' };
            const posted = await instance(u + round + 1).call({
              method: 'POST',
              url: `${client}/posture-response`,
              token: tokens[u]!,
              payload: report,
            });
            expect('posture response', posted.status, [201], posted.text);
            if (round % 3 === 2) tokens[u] = await login(instance(u + round), users[u]!.username, users[u]!.password);
          }
        };
        const attributeLoop = async () => {
          for (let round = 0; round < ROUNDS; round++) {
            const user = users[round % USERS]!;
            const patched = await a.call({
              method: 'PATCH',
              url: `${management}/identities/${user.id}`,
              token: adminA,
              payload: { roleAttributes: [`g${round % 2}`, ...(round % 3 ? ['g1'] : [])] },
            });
            expect('attribute change', patched.status, [200], patched.text);
          }
        };
        const policyLoop = async () => {
          for (let round = 0; round < ROUNDS; round++) {
            const id = policies[round % 2]!;
            const patched = await b.call({
              method: 'PATCH',
              url: `${management}/service-policies/${id}`,
              token: adminB,
              payload: { serviceRoles: [`#s${(round + 1) % 2}`] },
            });
            expect('policy change', patched.status, [200], patched.text);
          }
        };
        await Promise.all([...users.map((_, u) => userLoop(u)), attributeLoop(), policyLoop()]);

        assert.deepEqual(unexpected, []);
        await assertLinksConsistent(a.deps.store, label);
        await assertSessionsFollowAccess(b.deps.store);
        assert.ok(
          (await b.deps.store.read((db) => selectRows(db, 'sessions', {}))).length > 0,
          'some sessions were made',
        );
      },
    );
  });
}
