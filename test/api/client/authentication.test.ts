import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp, testTime } from '../../support/test-app.js';
import { assertError } from '../../support/conformance.js';
import { createUser, login } from '../../support/factories.js';
import { selectRows } from '../../../src/store/queries/table-rows.js';

type Session = Record<string, unknown> & { id: string; token: string };

describe('password authentication and API sessions', () => {
  let t: TestApp;
  let admin: string;
  const authenticate = (payload: unknown, api = 'client') =>
    t.call({ method: 'POST', url: `/edge/${api}/v1/authenticate?method=password`, payload });
  before(async () => {
    t = await buildTestApp();
    admin = await t.loginAsAdmin();
  });
  after(() => t.close());

  describe('authenticate', () => {
    it('returns the API session with its token in the body and the zt-session header', async () => {
      const user = await createUser(t, admin);
      const result = await authenticate({
        username: user.username,
        password: user.password,
        configTypes: ['intercept.v1'],
      });
      assert.equal(result.status, 200);
      const session = (result.body as { data: Session }).data;
      assert.match(session.token, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.equal(result.headers['zt-session'], session.token);
      assert.match(session.id, /^c[0-9a-z]{24}$/);
      assert.equal(session.identityId, user.id);
      assert.equal(session.authenticatorId, user.authenticatorId);
      assert.equal(session.expirationSeconds, 1800);
      assert.equal(session.expiresAt, testTime(30 * 60_000));
      // Names are stored as the ids they name, as upstream does (intercept.v1's id is g7cIWbcGg).
      assert.deepEqual(session.configTypes, ['g7cIWbcGg']);
      assert.deepEqual(session.authQueries, []);
      assert.equal(session.isMfaRequired, false);
      assert.deepEqual((session._links as Record<string, unknown>).self, { href: `./api-sessions/${session.id}` });
    });

    it('gives every credential failure the same 401 INVALID_AUTH', async () => {
      const user = await createUser(t, admin);
      assertError(await authenticate({ username: user.username, password: 'wrong-password' }), 401, 'INVALID_AUTH');
      assertError(await authenticate({ username: 'nobody-here', password: 'whatever-pw' }), 401, 'INVALID_AUTH');
      assertError(
        await authenticate({ username: user.username.toUpperCase(), password: user.password }),
        401,
        'INVALID_AUTH',
      );
    });

    it('refuses missing, short and overlong credentials with 400 before checking them', async () => {
      assertError(await authenticate({ username: 'someone' }), 400, 'COULD_NOT_VALIDATE');
      assertError(await authenticate({}), 400, 'COULD_NOT_VALIDATE');
      assertError(
        await authenticate({ username: 'abc', password: 'long-enough' }),
        400,
        'COULD_NOT_VALIDATE',
        'username',
      );
      assertError(
        await authenticate({ username: 'x'.repeat(101), password: 'long-enough' }),
        400,
        'COULD_NOT_VALIDATE',
        'username',
      );
      assertError(
        await authenticate({ username: 'someone', password: 'p'.repeat(101) }),
        400,
        'COULD_NOT_VALIDATE',
        'password',
      );
    });

    it('refuses a disabled identity', async () => {
      const user = await createUser(t, admin);
      await t.call({
        method: 'POST',
        url: `/edge/management/v1/identities/${user.id}/disable`,
        token: admin,
        payload: { durationMinutes: 5 },
      });
      assertError(await authenticate({ username: user.username, password: user.password }), 401, 'INVALID_AUTH');
    });
  });

  describe('current-api-session', () => {
    it('shows the caller its session, on both APIs, with session headers', async () => {
      const user = await createUser(t, admin);
      const token = await login(t, user.username, user.password);
      for (const api of ['client', 'management']) {
        const result = await t.call({ method: 'GET', url: `/edge/${api}/v1/current-api-session`, token });
        assert.equal(result.status, 200);
        const session = (result.body as { data: Session }).data;
        assert.equal(session.token, token);
        // Upstream v1.1.8 links it as the API session it is (asked with curl).
        assert.deepEqual(session._links, {
          self: { href: `./api-sessions/${session.id}` },
          sessions: { href: `./api-sessions/${session.id}/sessions` },
        });
        assert.equal(result.headers['expiration-seconds'], '1800');
        assert.match(String(result.headers['expires-at']), /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{1,3})? \+0000 UTC$/);
      }
    });

    it('logs out with DELETE; the token stops working', async () => {
      const user = await createUser(t, admin);
      const token = await login(t, user.username, user.password);
      assert.equal((await t.call({ method: 'DELETE', url: '/edge/client/v1/current-api-session', token })).status, 200);
      assertError(
        await t.call({ method: 'GET', url: '/edge/client/v1/current-api-session', token }),
        401,
        'UNAUTHORIZED',
      );
    });

    it('expires after the idle timeout and moves with activity', async () => {
      const user = await createUser(t, admin);
      const token = await login(t, user.username, user.password);
      t.clock.advance(20 * 60_000);
      const active = await t.call({ method: 'GET', url: '/edge/client/v1/current-api-session', token });
      assert.equal(
        (active.body as { data: Session }).data.expiresAt,
        new Date(t.clock().getTime() + 30 * 60_000).toISOString(),
      );
      t.clock.advance(20 * 60_000); // 40 minutes after login, 20 after the last activity
      assert.equal((await t.call({ method: 'GET', url: '/edge/client/v1/current-identity', token })).status, 200);
      t.clock.advance(31 * 60_000);
      assertError(await t.call({ method: 'GET', url: '/edge/client/v1/current-identity', token }), 401, 'UNAUTHORIZED');
      admin = await t.loginAsAdmin();
    });

    it('records activity in memory and flushes it in one batch', async () => {
      const user = await createUser(t, admin);
      const token = await login(t, user.username, user.password);
      const stored = async () =>
        (await t.deps.store.read((db) => selectRows(db, 'api_sessions', { token })))[0]!.last_activity_at;
      const before = await stored();
      t.clock.advance(60_000);
      await t.call({ method: 'GET', url: '/edge/client/v1/current-identity', token });
      assert.equal(await stored(), before, 'a request does not write');
      await t.deps.apiSessions.flush();
      assert.equal(await stored(), t.clock().toISOString());
    });

    it('treats a malformed token as absent and an unknown one as unauthorized', async () => {
      const none = await t.call({ method: 'GET', url: '/edge/client/v1/current-api-session', token: 'not-a-uuid' });
      assertError(none, 401, 'UNAUTHORIZED');
    });
  });

  describe('management api-sessions', () => {
    it('lists, filters and details sessions, showing a token only to its owner', async () => {
      const user = await createUser(t, admin);
      await login(t, user.username, user.password);
      const list = await t.call({
        method: 'GET',
        url: `/edge/management/v1/api-sessions?filter=${encodeURIComponent(`identity = "${user.id}"`)}`,
        token: admin,
      });
      const sessions = (list.body as { data: Session[] }).data;
      assert.equal(sessions.length, 1);
      assert.equal(sessions[0]!.token, '');
      assert.equal((sessions[0]!.identity as { id: string }).id, user.id);
      const mine = await t.call({ method: 'GET', url: '/edge/management/v1/current-api-session', token: admin });
      const myId = (mine.body as { data: Session }).data.id;
      const detail = await t.call({ method: 'GET', url: `/edge/management/v1/api-sessions/${myId}`, token: admin });
      assert.equal((detail.body as { data: Session }).data.token, admin);
    });

    it('deletes a session, which logs its owner out', async () => {
      const user = await createUser(t, admin);
      const token = await login(t, user.username, user.password);
      const me = await t.call({ method: 'GET', url: '/edge/client/v1/current-api-session', token });
      const id = (me.body as { data: Session }).data.id;
      assert.equal(
        (await t.call({ method: 'DELETE', url: `/edge/management/v1/api-sessions/${id}`, token: admin })).status,
        200,
      );
      assertError(
        await t.call({ method: 'GET', url: '/edge/client/v1/current-api-session', token }),
        401,
        'UNAUTHORIZED',
      );
      assertError(
        await t.call({ method: 'DELETE', url: `/edge/management/v1/api-sessions/${id}`, token: admin }),
        404,
        'NOT_FOUND',
      );
      assertError(
        await t.call({ method: 'GET', url: `/edge/management/v1/api-sessions/${id}`, token: admin }),
        404,
        'NOT_FOUND',
      );
    });
  });
});
