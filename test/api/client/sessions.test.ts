import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SignJWT } from 'jose';
import { buildTestApp, type TestApp } from '../../support/test-app.js';
import { assertError } from '../../support/conformance.js';
import { createService, createUser, login, type UserFixture } from '../../support/factories.js';
import {
  createSession,
  grantService,
  openEdgeRouter,
  requestSession,
  sessionIds,
  type SessionBody,
} from '../../support/sessions.js';
import { jwtAlgorithm } from '../../../src/enrollment/enrollment-jwt.js';
import { CLIENT as client } from '../../support/api-paths.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('client sessions', () => {
  let t: TestApp;
  let admin: string;
  let user: UserFixture;
  let token: string;
  /** The user may dial and bind it. */
  let both: string;
  /** The user may only dial it. */
  let dialOnly: string;
  let invisible: string;

  before(async () => {
    t = await buildTestApp();
    admin = await t.loginAsAdmin();
    user = await createUser(t, admin, { roleAttributes: ['routed'] });
    await openEdgeRouter(t, admin, ['#routed']);
    both = (await grantService(t, admin, user.id, ['Dial', 'Bind'])).serviceId;
    dialOnly = (await grantService(t, admin, user.id, ['Dial'])).serviceId;
    invisible = await createService(t, admin);
    token = await login(t, user.username, user.password);
  });
  after(() => t.close());

  const apiSessionIdOf = async (as: string) => {
    const result = await t.call({ method: 'GET', url: `${client}/current-api-session`, token: as });
    return (result.body as { data: { id: string } }).data.id;
  };

  describe('createSession', () => {
    it('creates a Dial session when the type is left out, with the fields SDKs read', async () => {
      const result = await requestSession(t, token, dialOnly);
      assert.equal(result.status, 201, result.text);
      const session = (result.body as { data: SessionBody & Record<string, unknown> }).data;
      assert.match(session.id, /^c[0-9a-z]{24}$/);
      assert.match(session.token, UUID_V4);
      assert.equal(session.type, 'Dial');
      assert.equal(session.serviceId, dialOnly);
      assert.equal(session.identityId, user.id);
      assert.equal(session.apiSessionId, await apiSessionIdOf(token));
      assert.deepEqual(session.apiSession, {
        _links: {
          self: { href: `./api-sessions/${session.apiSessionId}` },
          sessions: { href: `./api-sessions/${session.apiSessionId}/sessions` },
        },
        entity: 'api-sessions',
        id: session.apiSessionId,
      });
      assert.equal((session.service as { id: string }).id, dialOnly);
      assert.deepEqual(session._links, {
        self: { href: `./sessions/${session.id}` },
        'route-path': { href: `./sessions/${session.id}/route-path` },
      });
      assert.deepEqual(session.tags, {});
      assert.equal('servicePolicies' in session, false, 'the create response is the session detail, without policies');
      assert.equal(session.edgeRouters.length, 1);
      const [edgeRouter] = session.edgeRouters;
      assert.deepEqual(edgeRouter, {
        cost: 0,
        disabled: false,
        hostname: '',
        isOnline: false,
        name: edgeRouter!.name,
        noTraversal: false,
        supportedProtocols: {},
        syncStatus: 'SYNC_UNKNOWN',
        urls: {},
      });
    });

    it("keeps the tags given, checked by the entity kit as every entity's are (nested tags: 400, not stored)", async () => {
      const tagged = await t.call({
        method: 'POST',
        url: `${client}/sessions`,
        token,
        payload: { serviceId: both, type: 'Bind', tags: { team: 'a', n: 1 } },
      });
      assert.equal(tagged.status, 201, tagged.text);
      assert.deepEqual((tagged.body as { data: { tags: unknown } }).data.tags, { team: 'a', n: 1 });
      const nested = await t.call({
        method: 'POST',
        url: `${client}/sessions`,
        token: await login(t, user.username, user.password),
        payload: { serviceId: both, type: 'Bind', tags: { deep: { x: 1 } } },
      });
      assertError(nested, 400, 'COULD_NOT_VALIDATE');
    });

    it('creates a Bind session for a service the identity may bind', async () => {
      const session = await createSession(t, token, both, 'Bind');
      assert.equal(session.type, 'Bind');
    });

    it('answers the session it already has for the same API session, service and type', async () => {
      const first = await createSession(t, token, both, 'Dial');
      assert.equal((await createSession(t, token, both, 'Dial')).id, first.id);
      const again = await createSession(t, token, both);
      assert.deepEqual([again.id, again.token], [first.id, first.token], 'an omitted type is Dial, and reuses too');
      const otherLogin = await login(t, user.username, user.password);
      assert.notEqual(
        (await createSession(t, otherLogin, both, 'Dial')).id,
        first.id,
        'another API session gets its own',
      );
    });

    it('accepts the full bodies clients send, with null and empty fields', async () => {
      const service = (await grantService(t, admin, user.id, ['Dial'])).serviceId;
      const nulls = await t.call({
        method: 'POST',
        url: `${client}/sessions`,
        token,
        payload: { serviceId: service, type: null, tags: null },
      });
      assert.equal(nulls.status, 201, nulls.text);
      const empty = await t.call({
        method: 'POST',
        url: `${client}/sessions`,
        token,
        payload: { serviceId: service, type: '', tags: {} },
      });
      assert.equal((empty.body as { data: SessionBody }).data.id, (nulls.body as { data: SessionBody }).data.id);
      const tagged = await t.call({
        method: 'POST',
        url: `${client}/sessions`,
        token: await login(t, user.username, user.password),
        payload: { serviceId: service, type: 'Dial', tags: { app: 'x' } },
      });
      assert.deepEqual((tagged.body as { data: { tags: unknown } }).data.tags, { app: 'x' });
    });

    it('answers 404 for a service the identity cannot see, does not exist, or is not named', async () => {
      for (const serviceId of [invisible, 'no-such-service']) {
        const result = await requestSession(t, token, serviceId, 'Dial');
        assertError(result, 404, 'NOT_FOUND');
        assert.deepEqual((result.body as { error: { cause: unknown } }).error.cause, {
          code: 'UNHANDLED',
          message: `service with id ${serviceId} not found`,
        });
      }
      assertError(await t.call({ method: 'POST', url: `${client}/sessions`, token, payload: {} }), 404, 'NOT_FOUND');
    });

    it('refuses a type the identity may not use with 400 on ServiceId', async () => {
      const result = await requestSession(t, token, dialOnly, 'Bind');
      assertError(result, 400, 'COULD_NOT_VALIDATE', 'ServiceId');
      assert.deepEqual((result.body as { error: { cause: unknown } }).error.cause, {
        field: 'ServiceId',
        reason: 'service not found',
        value: dialOnly,
      });
      // An admin sees every service but may dial only what a policy grants (its permission is `Invalid`).
      assertError(await requestSession(t, admin, invisible, 'Dial'), 400, 'COULD_NOT_VALIDATE', 'ServiceId');
    });

    it("refuses the Invalid type after every other check, as upstream's store does", async () => {
      const result = await requestSession(t, token, dialOnly, 'Invalid');
      assertError(result, 400, 'COULD_NOT_VALIDATE', 'type');
      assert.deepEqual((result.body as { error: { cause: unknown } }).error.cause, {
        field: 'type',
        reason: 'invalid session type',
        value: 'Invalid',
      });
      assertError(await requestSession(t, token, invisible, 'Invalid'), 404, 'NOT_FOUND');
    });

    it('validates the type against the contract', async () => {
      assertError(await requestSession(t, token, dialOnly, 'Listen'), 400, 'COULD_NOT_VALIDATE', 'type');
      assertError(
        await t.call({
          method: 'POST',
          url: `${client}/sessions`,
          token: 'not-a-session',
          payload: { serviceId: dialOnly },
        }),
        401,
        'UNAUTHORIZED',
      );
    });
  });

  describe('NO_EDGE_ROUTERS_AVAILABLE', () => {
    it('refuses when no edge router is granted to both the identity and the service', async () => {
      const unrouted = await createUser(t, admin);
      const service = (await grantService(t, admin, unrouted.id, ['Dial'])).serviceId;
      const result = await requestSession(t, await login(t, unrouted.username, unrouted.password), service, 'Dial');
      assertError(result, 400, 'NO_EDGE_ROUTERS_AVAILABLE');
      assert.equal(
        (result.body as { error: { message: string } }).error.message,
        'No edge routers are assigned and online to handle the requested connection',
      );
    });
  });

  describe('listSessions, detailSession, deleteSession', () => {
    let mine: SessionBody;
    let theirs: SessionBody;
    let otherToken: string;

    before(async () => {
      const other = await createUser(t, admin, { roleAttributes: ['routed'] });
      const shared = (await grantService(t, admin, other.id, ['Dial'])).serviceId;
      otherToken = await login(t, other.username, other.password);
      theirs = await createSession(t, otherToken, shared);
      mine = await createSession(t, token, dialOnly, 'Dial');
    });

    it("lists the caller's own sessions, across its API sessions; an admin lists everyone's", async () => {
      const own = await sessionIds(t, token);
      assert.ok(own.includes(mine.id));
      assert.ok(!own.includes(theirs.id));
      const everyone = await sessionIds(t, admin);
      assert.ok(everyone.includes(mine.id) && everyone.includes(theirs.id));
      const page = await t.call({ method: 'GET', url: `${client}/sessions`, token });
      const meta = (page.body as { meta: { filterableFields: string[]; pagination: { limit: number } } }).meta;
      assert.equal(meta.pagination.limit, 10);
      for (const field of ['id', 'token', 'apiSession', 'service', 'type'])
        assert.ok(meta.filterableFields.includes(field), field);
    });

    it('lists and shows sessions with their service policies; only the owner sees the token', async () => {
      const detail = await t.call({ method: 'GET', url: `${client}/sessions/${mine.id}`, token });
      assert.equal(detail.status, 200, detail.text);
      const data = (detail.body as { data: SessionBody }).data;
      assert.equal(data.token, mine.token);
      // No posture check exists here, so upstream evaluates (and names) no policy; posture-responses.test.ts has them.
      assert.deepEqual(data.servicePolicies, []);
      const asAdmin = await t.call({ method: 'GET', url: `${client}/sessions/${mine.id}`, token: admin });
      assert.equal(
        (asAdmin.body as { data: SessionBody }).data.token,
        '',
        'an admin sees the session, not its credential',
      );
    });

    it("answers 404 for another identity's session and for an unknown one", async () => {
      assertError(await t.call({ method: 'GET', url: `${client}/sessions/${theirs.id}`, token }), 404, 'NOT_FOUND');
      assertError(await t.call({ method: 'GET', url: `${client}/sessions/nope`, token }), 404, 'NOT_FOUND');
      assertError(await t.call({ method: 'DELETE', url: `${client}/sessions/${theirs.id}`, token }), 404, 'NOT_FOUND');
      assert.ok((await sessionIds(t, otherToken)).includes(theirs.id), 'still there');
    });

    it("deletes the caller's own session", async () => {
      const session = await createSession(t, token, both, 'Bind');
      const deleted = await t.call({ method: 'DELETE', url: `${client}/sessions/${session.id}`, token });
      assert.equal(deleted.status, 200, deleted.text);
      assert.deepEqual((deleted.body as { data: unknown }).data, {});
      assertError(await t.call({ method: 'GET', url: `${client}/sessions/${session.id}`, token }), 404, 'NOT_FOUND');
    });
  });

  describe('listServiceEdgeRouters', () => {
    const edgeRoutersOf = (serviceId: string, headers: Record<string, string> = {}, as = token) =>
      t.call({ method: 'GET', url: `${client}/services/${serviceId}/edge-routers`, token: as, headers });

    it("lists the routers a session for the service may use, in the session's shape without urls", async () => {
      const result = await edgeRoutersOf(dialOnly);
      assert.equal(result.status, 200, result.text);
      const routers = (result.body as { data: { edgeRouters: Record<string, unknown>[] } }).data.edgeRouters;
      const session = await createSession(t, token, dialOnly);
      assert.deepEqual(
        routers,
        session.edgeRouters.map(({ urls: _urls, ...rest }) => rest),
      );
      for (const edgeRouter of session.edgeRouters)
        assert.deepEqual(edgeRouter.urls, edgeRouter.supportedProtocols, 'urls repeats supportedProtocols');
    });

    it('answers a bare 404 for a service the caller cannot see', async () => {
      const result = await edgeRoutersOf(invisible);
      assertError(result, 404, 'NOT_FOUND');
      assert.equal((result.body as { error: { cause?: unknown } }).error.cause, undefined);
    });

    it("checks a session-token header as a service-access token of the caller's API session", async () => {
      const session = await createSession(t, token, dialOnly);
      // Our session tokens are UUIDs, not service-access JWTs: upstream refuses them the same way.
      const uuid = await edgeRoutersOf(dialOnly, { 'session-token': session.token });
      assertError(uuid, 401, 'UNAUTHORIZED');
      assert.deepEqual((uuid.body as { error: { cause: unknown } }).error.cause, {
        code: 'UNHANDLED',
        message: 'token is malformed: token contains an invalid number of segments',
      });

      const apiSessionId = await apiSessionIdOf(token);
      const sign = (claims: Record<string, unknown>, key = t.deps.pki.serverKey) =>
        new SignJWT({ aud: ['openziti'], z_t: 's', z_asid: apiSessionId, z_iid: user.id, z_st: 'Dial', ...claims })
          .setProtectedHeader({ alg: jwtAlgorithm(t.deps.pki) })
          .setIssuedAt(Math.floor(t.clock().getTime() / 1000))
          .setExpirationTime(Math.floor(t.clock().getTime() / 1000) + 3600)
          .sign(key);
      assert.equal(
        (await edgeRoutersOf(dialOnly, { 'session-token': await sign({}) })).status,
        200,
        'a valid token of this API session passes',
      );
      assertError(
        await edgeRoutersOf(dialOnly, { 'session-token': await sign({ z_asid: 'another-api-session' }) }),
        401,
        'UNAUTHORIZED',
      );
      assertError(await edgeRoutersOf(dialOnly, { 'session-token': await sign({ z_t: 'a' }) }), 401, 'UNAUTHORIZED');
      assertError(
        await edgeRoutersOf(dialOnly, { 'session-token': await sign({ aud: ['elsewhere'] }) }),
        401,
        'UNAUTHORIZED',
      );
      const { privateKey } = await import('node:crypto').then((c) =>
        c.generateKeyPairSync('ec', { namedCurve: 'P-256' }),
      );
      assertError(await edgeRoutersOf(dialOnly, { 'session-token': await sign({}, privateKey) }), 401, 'UNAUTHORIZED');
    });
  });
});
