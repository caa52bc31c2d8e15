// The record of entity changes (issue 31): each committed create, update and delete is recorded once by the
// transaction that made it, with its author, source and the entity before and after; admins list it with the usual
// filters and paging; the committing process emits its entityChange events after the commit, never for a write that
// rolled back.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ZitiEvent } from '../../../src/events/event-types.js';
import { assertError } from '../../support/conformance.js';
import { createIdentity, createUser, login } from '../../support/factories.js';
import { grantService, openEdgeRouter, requestSession } from '../../support/sessions.js';
import { buildTestApp, type TestApp } from '../../support/test-app.js';

const api = '/edge/management/v1';

interface ChangeRow {
  id: string;
  createdAt: string;
  changeType: string;
  entityType: string;
  entityId: string;
  authorType: string;
  authorId: string | null;
  authorName: string | null;
  sourceType: string;
  source: Record<string, unknown>;
  changedFields: string[];
  initialState: Record<string, unknown> | null;
  finalState: Record<string, unknown> | null;
  instanceId: string;
}

describe('entity changes', () => {
  let t: TestApp;
  let token: string;
  let admin: string;
  const events: ZitiEvent[] = [];
  before(async () => {
    t = await buildTestApp();
    token = await t.loginAsAdmin();
    assert.ok(t.admin.created, 'a fresh home creates the default admin');
    admin = t.admin.identityId;
    t.events.dispatcher.subscribe([{ type: 'entityChange' }, { type: 'edge.apiSessions' }, { type: 'edge.sessions' }], {
      accept: (event) => events.push(event),
    });
  });
  after(() => t.close());

  const changesOf = async (entityId: string): Promise<ChangeRow[]> => {
    const filter = encodeURIComponent(`entityId = "${entityId}"`);
    const result = await t.call({ method: 'GET', url: `${api}/entity-changes?filter=${filter}&sort=createdAt`, token });
    assert.equal(result.status, 200, result.text);
    return (result.body as { data: ChangeRow[] }).data;
  };

  it('records a create, an update and a delete with who made them and the entity before and after', async () => {
    const id = await createIdentity(t, token, { name: 'recorded', type: 'User', isAdmin: false });
    t.clock.advance(1_000);
    const patched = await t.call({
      method: 'PATCH',
      url: `${api}/identities/${id}`,
      token,
      payload: { roleAttributes: ['sales'] },
    });
    assert.equal(patched.status, 200, patched.text);
    t.clock.advance(1_000);
    assert.equal((await t.call({ method: 'DELETE', url: `${api}/identities/${id}`, token })).status, 200);

    const changes = await changesOf(id);
    assert.deepEqual(
      changes.map((change) => [change.changeType, change.entityType]),
      [
        ['created', 'identities'],
        ['updated', 'identities'],
        ['deleted', 'identities'],
      ],
    );
    const [created, updated, deleted] = changes as [ChangeRow, ChangeRow, ChangeRow];
    for (const change of changes) {
      assert.deepEqual([change.authorType, change.authorId, change.authorName], ['identity', admin, 'Default Admin']);
      assert.equal(change.sourceType, 'rest');
      assert.equal(change.source.auth, 'edge');
      assert.equal(change.instanceId, t.deps.instanceId);
    }
    assert.equal(created.source.method, 'POST');
    assert.equal(created.initialState, null);
    assert.equal(created.finalState?.name, 'recorded');
    assert.deepEqual(updated.changedFields, ['roleAttributes']);
    assert.equal(updated.initialState?.roleAttributes, null);
    assert.deepEqual(updated.finalState?.roleAttributes, ['sales']);
    assert.equal(deleted.finalState, null);
    assert.equal(deleted.initialState?.name, 'recorded');

    // 1. The events: each change then its commit, with the same id, in the order they were made.
    const ofIdentity = events.filter(
      (event) => event.namespace === 'entityChange' && changes.some((change) => change.id === event.eventId),
    );
    assert.deepEqual(
      ofIdentity.map((event) => event.namespace === 'entityChange' && event.eventType),
      ['created', 'committed', 'updated', 'committed', 'deleted', 'committed'],
    );
    const first = ofIdentity[0];
    assert.ok(first?.namespace === 'entityChange');
    assert.deepEqual(first.metadata?.author, { type: 'identity', id: admin, name: 'Default Admin' });
    assert.equal(first.metadata?.version, 'v1.1.8');
    assert.equal(first.isParentEvent, false);
    const committed = ofIdentity[1];
    assert.ok(committed?.namespace === 'entityChange');
    assert.deepEqual(Object.keys(committed), ['namespace', 'eventId', 'eventType', 'timestamp']);
  });

  it('records and emits nothing for a write that was refused', async () => {
    const before = events.length;
    const refused = await t.call({ method: 'POST', url: `${api}/identities`, token, payload: { name: 'recorded-2' } });
    assert.equal(refused.status, 400, 'a body without type is refused');
    assert.equal(events.length, before);
  });

  it('keeps credentials out of the record', async () => {
    const id = await createIdentity(t, token, { name: 'with-updb', type: 'User', isAdmin: false });
    const made = await t.call({
      method: 'POST',
      url: `${api}/authenticators`,
      token,
      payload: { method: 'updb', identityId: id, username: 'with-updb', password: 'a-password-1' },
    });
    assert.equal(made.status, 201, made.text);
    const [change] = await changesOf((made.body as { data: { id: string } }).data.id);
    assert.ok(change?.finalState);
    assert.equal('password' in change.finalState, false);
    assert.equal('salt' in change.finalState, false);
  });

  it('records a login as an API session created, with its edge.apiSessions event', async () => {
    const token2 = await t.loginAsAdmin();
    const event = events.find((each) => each.namespace === 'edge.apiSessions' && each.token === token2);
    assert.ok(event?.namespace === 'edge.apiSessions');
    assert.equal(event.event_type, 'created');
    assert.equal(event.identity_id, admin);
    assert.equal((await changesOf(event.id))[0]?.entityType, 'apiSessions');
  });

  it('a session, created and ended with its API session at logout, has its edge.sessions events', async () => {
    const user = await createUser(t, token, { roleAttributes: ['routed'] });
    await openEdgeRouter(t, token, ['#routed']);
    const { serviceId } = await grantService(t, token, user.id, ['Dial']);
    const userToken = await login(t, user.username, user.password);
    const created = await requestSession(t, userToken, serviceId);
    assert.equal(created.status, 201, created.text);
    const sessionId = (created.body as { data: { id: string } }).data.id;
    t.clock.advance(1_000);
    const logout = await t.call({ method: 'DELETE', url: '/edge/client/v1/current-api-session', token: userToken });
    assert.equal(logout.status, 200, logout.text);
    const ofSession = events.filter((event) => event.namespace === 'edge.sessions' && event.id === sessionId);
    assert.deepEqual(
      ofSession.map((event) => event.namespace === 'edge.sessions' && [event.event_type, event.session_type]),
      [
        ['created', 'Dial'],
        ['deleted', 'Dial'],
      ],
    );
    const ended = ofSession[1];
    assert.ok(ended?.namespace === 'edge.sessions');
    assert.equal(ended.identity_id, '', 'upstream leaves the identity out of a deleted session');
    assert.deepEqual(
      (await changesOf(sessionId)).map((change) => change.changeType),
      ['created', 'deleted'],
    );
  });

  it('lists with filters and paging, to admins only', async () => {
    const page = await t.call({
      method: 'GET',
      url: `${api}/entity-changes?limit=2&offset=1&filter=${encodeURIComponent('entityType = "identities"')}`,
      token,
    });
    assert.equal(page.status, 200, page.text);
    const body = page.body as { data: ChangeRow[]; meta: { pagination: { limit: number; offset: number } } };
    assert.equal(body.data.length, 2);
    assert.deepEqual([body.meta.pagination.limit, body.meta.pagination.offset], [2, 1]);
    const one = await t.call({ method: 'GET', url: `${api}/entity-changes/${body.data[0]!.id}`, token });
    assert.equal(one.status, 200, one.text);
    assertError(await t.call({ method: 'GET', url: `${api}/entity-changes` }), 401, 'UNAUTHORIZED');
    assertError(
      await t.call({ method: 'GET', url: `${api}/entity-changes?filter=${encodeURIComponent('nope = 1')}`, token }),
      400,
      'INVALID_FILTER',
    );
  });
});
