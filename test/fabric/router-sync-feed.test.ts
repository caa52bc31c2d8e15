// The routers' change feed (migration 019) records every API-session and session change a router must hear of,
// whichever API call made it, and the API sessions routers are told of are the fully authenticated ones with the
// fingerprints their clients may present. Runs on SQLite and (npm run test:postgres) PostgreSQL.
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  routerApiSessions,
  routerSyncFeedAfter,
  routerSyncFeedHead,
  type FeedEntry,
} from '../../src/store/queries/router-sync.js';
import { createUser, login } from '../support/factories.js';
import { enrollVerifiedMfa, totpCode } from '../support/mfa.js';
import { createSession, grantService, openEdgeRouter } from '../support/sessions.js';
import { createCsr } from '../support/third-party-ca.js';
import { buildTestApp, type TestApp } from '../support/test-app.js';
import { CLIENT as client, MANAGEMENT as management } from '../support/api-paths.js';

describe('router sync feed', () => {
  let t: TestApp;
  let admin: string;
  let mark = 0;

  before(async () => {
    t = await buildTestApp();
    admin = await t.loginAsAdmin();
    await openEdgeRouter(t, admin);
  });
  after(() => t.close());

  /** The entries recorded since the last call. */
  async function recorded(): Promise<Array<Omit<FeedEntry, 'seq'>>> {
    const entries = await t.deps.store.read((db) => routerSyncFeedAfter(db, mark, 1000));
    mark = await t.deps.store.read(routerSyncFeedHead);
    return entries.map(({ kind, entityId, token }) => ({ kind, entityId, token }));
  }

  async function apiSession(token: string): Promise<{ id: string; token: string }> {
    const result = await t.call({ method: 'GET', url: `${client}/current-api-session`, token });
    return { id: (result.body as { data: { id: string } }).data.id, token };
  }

  it('records a login, a logout and an admin’s delete', async () => {
    await recorded();
    const user = await createUser(t, admin);
    const first = await apiSession(await login(t, user.username, user.password));
    const second = await apiSession(await login(t, user.username, user.password));
    assert.deepEqual(await recorded(), [
      { kind: 'apiSessionAdded', entityId: first.id, token: first.token },
      { kind: 'apiSessionAdded', entityId: second.id, token: second.token },
    ]);
    assert.equal(
      (await t.call({ method: 'DELETE', url: `${client}/current-api-session`, token: first.token })).status,
      200,
    );
    assert.equal(
      (await t.call({ method: 'DELETE', url: `${management}/api-sessions/${second.id}`, token: admin })).status,
      200,
    );
    assert.deepEqual(await recorded(), [
      { kind: 'apiSessionRemoved', entityId: first.id, token: first.token },
      { kind: 'apiSessionRemoved', entityId: second.id, token: second.token },
    ]);
  });

  it('records a session with MFA outstanding only once it passes MFA, and routers are told of it only then', async () => {
    const user = await createUser(t, admin);
    const { secret } = await enrollVerifiedMfa(t, await login(t, user.username, user.password));
    await recorded();
    const partial = await apiSession(await login(t, user.username, user.password));
    assert.deepEqual(await recorded(), []);
    const at = t.clock().toISOString();
    assert.deepEqual(await t.deps.store.read((db) => routerApiSessions(db, at, { ids: [partial.id] })), []);
    const passed = await t.call({
      method: 'POST',
      url: `${client}/authenticate/mfa`,
      token: partial.token,
      payload: { code: totpCode(secret, t.clock()) },
    });
    assert.equal(passed.status, 200, passed.text);
    assert.deepEqual(await recorded(), [{ kind: 'apiSessionAdded', entityId: partial.id, token: partial.token }]);
    assert.equal((await t.deps.store.read((db) => routerApiSessions(db, at, { ids: [partial.id] }))).length, 1);
  });

  it('records a session certificate as an update carrying its fingerprint', async () => {
    const user = await createUser(t, admin);
    const session = await apiSession(await login(t, user.username, user.password));
    await recorded();
    const { csrPem } = await createCsr('session-cert', 'ec');
    const created = await t.call({
      method: 'POST',
      url: `${client}/current-api-session/certificates`,
      token: session.token,
      payload: { csr: csrPem },
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(await recorded(), [{ kind: 'apiSessionUpdated', entityId: session.id, token: session.token }]);
    const [told] = await t.deps.store.read((db) =>
      routerApiSessions(db, t.clock().toISOString(), { ids: [session.id] }),
    );
    const { certificateFingerprint } = await import('../../src/pki/fingerprint.js');
    const certificate = (created.body as { data: { certificate: string } }).data.certificate;
    assert.deepEqual(told?.certFingerprints, [certificateFingerprint(certificate)]);
  });

  it('records the end of sessions and API sessions when the identity is disabled, and when it is deleted', async () => {
    const user = await createUser(t, admin);
    const { serviceId } = await grantService(t, admin, user.id, ['Dial']);
    const disabled = await apiSession(await login(t, user.username, user.password));
    const session = await createSession(t, disabled.token, serviceId);
    await recorded();
    assert.equal(
      (
        await t.call({
          method: 'POST',
          url: `${management}/identities/${user.id}/disable`,
          token: admin,
          payload: { durationMinutes: 0 },
        })
      ).status,
      200,
    );
    assert.deepEqual(
      sorted(await recorded()),
      sorted([
        { kind: 'apiSessionRemoved', entityId: disabled.id, token: disabled.token },
        { kind: 'sessionRemoved', entityId: session.id, token: session.token },
      ]),
    );
    assert.equal(
      (await t.call({ method: 'POST', url: `${management}/identities/${user.id}/enable`, token: admin })).status,
      200,
    );
    const deleted = await apiSession(await login(t, user.username, user.password));
    await recorded();
    assert.equal(
      (await t.call({ method: 'DELETE', url: `${management}/identities/${user.id}`, token: admin })).status,
      200,
    );
    assert.deepEqual(await recorded(), [{ kind: 'apiSessionRemoved', entityId: deleted.id, token: deleted.token }]);
  });

  it('records sessions that end on their own', async () => {
    const user = await createUser(t, admin);
    const { serviceId } = await grantService(t, admin, user.id, ['Dial']);
    const token = await login(t, user.username, user.password);
    const session = await createSession(t, token, serviceId);
    await recorded();
    assert.equal((await t.call({ method: 'DELETE', url: `${client}/sessions/${session.id}`, token })).status, 200);
    assert.deepEqual(await recorded(), [{ kind: 'sessionRemoved', entityId: session.id, token: session.token }]);
  });

  it('records the expiry sweep', async () => {
    const user = await createUser(t, admin);
    const session = await apiSession(await login(t, user.username, user.password));
    await t.deps.apiSessions.flush(false);
    await recorded();
    t.clock.advance(2 * 60 * 60_000);
    await t.deps.apiSessions.flush(true);
    const ended = await recorded();
    assert.ok(
      ended.some((entry) => entry.kind === 'apiSessionRemoved' && entry.entityId === session.id),
      JSON.stringify(ended),
    );
    admin = await t.loginAsAdmin();
  });

  it('pages through every fully authenticated API session in id order, with the certificate fingerprints of its identity', async () => {
    const at = t.clock().toISOString();
    const all = await t.deps.store.read((db) => routerApiSessions(db, at, { afterId: '', limit: 1000 }));
    const firstTwo = await t.deps.store.read((db) => routerApiSessions(db, at, { afterId: '', limit: 2 }));
    const rest = await t.deps.store.read((db) =>
      routerApiSessions(db, at, { afterId: firstTwo.at(-1)!.id, limit: 1000 }),
    );
    assert.deepEqual([...firstTwo, ...rest], all);
    assert.deepEqual(
      all.map((session) => session.id),
      all.map((session) => session.id).sort(),
    );
  });
});

function sorted<T extends { kind: string }>(entries: T[]): T[] {
  return [...entries].sort((a, b) => a.kind.localeCompare(b.kind));
}
