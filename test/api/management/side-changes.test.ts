// Entity changes made outside the generic entity writes (issue 31): upstream's stores emit an entityChange for every
// write, so an enrollment made with its identity or router, one used by enrolling, a router's enrolled certificate,
// a login's client info and the certificate a login binds to its API session are recorded and emitted too, each
// once, with the author upstream names (v1.1.8's events file from the same actions: test:interop:events).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { EntityChangeEvent, ZitiEvent } from '../../../src/events/event-types.js';
import { splitPemCertificates } from '../../../src/pki/pem.js';
import { createIdentity, createUser, login } from '../../support/factories.js';
import { enrollVerifiedMfa, totpCode } from '../../support/mfa.js';
import { buildTlsTestApp, type TlsTestApp } from '../../support/tls-client.js';
import { newCsr, newKeyPair } from '../../support/test-keys.js';
import { enrollEdgeRouter } from '../../support/test-router.js';
import { CLIENT, MANAGEMENT } from '../../support/api-paths.js';

describe('entity changes outside the generic writes', () => {
  let t: TlsTestApp;
  let token: string;
  let admin: string;
  const events: ZitiEvent[] = [];
  before(async () => {
    t = await buildTlsTestApp();
    token = await t.loginAsAdmin();
    assert.ok(t.admin.created, 'a fresh home creates the default admin');
    admin = t.admin.identityId;
    t.events.dispatcher.subscribe([{ type: 'entityChange' }], { accept: (event) => events.push(event) });
  });
  after(() => t.close());

  /** The created/updated/deleted events of one entity since `from`: [type, entityType, author type, author id]. */
  const changesOf = (entityId: string, from = 0) =>
    events
      .slice(from)
      .filter((event): event is EntityChangeEvent => event.namespace === 'entityChange')
      .filter((event) => event.eventType !== 'committed')
      .filter((event) => (event.finalState ?? event.initialState)?.id === entityId)
      .map((event) => {
        const author = (event.metadata as { author: { type: string; id?: string } }).author;
        return [event.eventType, event.entityType, author.type, author.id];
      });

  it('an identity enrolling: its enrollment created with it, deleted by the identity; its sdk info at login once', async () => {
    const identityId = await createIdentity(t, token, { enrollment: { ott: true } });
    const detail = await t.call({ method: 'GET', url: `${MANAGEMENT}/identities/${identityId}`, token });
    const ott = (detail.body as { data: { enrollment: { ott: { id: string; token: string } } } }).data.enrollment.ott;
    assert.deepEqual(changesOf(ott.id), [['created', 'enrollments', 'identity', admin]]);

    const key = await newKeyPair('ec');
    const enrolled = await t.https({
      method: 'POST',
      path: `${CLIENT}/enroll?method=ott&token=${ott.token}`,
      headers: { 'content-type': 'text/plain', accept: 'application/json' },
      body: await newCsr(key, `C=US, O=OpenZiti, CN=${identityId}`),
    });
    assert.equal(enrolled.status, 200, enrolled.text);
    assert.deepEqual(changesOf(ott.id), [
      ['created', 'enrollments', 'identity', admin],
      ['deleted', 'enrollments', 'identity', identityId],
    ]);

    const chain = splitPemCertificates((enrolled.json as { data: { cert: string } }).data.cert).join('');
    const login = () =>
      t.https({
        method: 'POST',
        path: `${CLIENT}/authenticate?method=cert`,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sdkInfo: { type: 'ziti-sdk-golang', version: 'v0.23.39' }, envInfo: { os: 'linux' } }),
        cert: chain,
        key: key.keyPem,
      });
    const from = events.length;
    for (let round = 0; round < 2; round++) assert.equal((await login()).status, 200);
    // The same info twice: one update, by the identity, with the info in its state.
    assert.deepEqual(changesOf(identityId, from), [['updated', 'identities', 'identity', identityId]]);
    const update = events
      .slice(from)
      .find((event): event is EntityChangeEvent => event.namespace === 'entityChange' && event.eventType === 'updated');
    assert.deepEqual(update?.initialState?.sdkInfo, null);
    assert.deepEqual(update?.finalState?.sdkInfo, { type: 'ziti-sdk-golang', version: 'v0.23.39' });
    // Each certificate login binds the certificate to its API session, as upstream records it.
    const certificates = events
      .slice(from)
      .filter((event) => event.namespace === 'entityChange' && event.eventType === 'created')
      .filter((event) => (event as EntityChangeEvent).entityType === 'apiSessionCertificates');
    assert.equal(certificates.length, 2);
    const changes = await t.call({
      method: 'GET',
      url: `${MANAGEMENT}/entity-changes?filter=${encodeURIComponent(`entityId = "${identityId}"`)}`,
      token,
    });
    const recorded = (changes.body as { data: { changeType: string; changedFields: string[] }[] }).data;
    assert.deepEqual(
      recorded.filter((row) => row.changeType === 'updated').map((row) => row.changedFields),
      [['envInfo', 'sdkInfo']],
      'the record names the fields the login changed',
    );
  });

  it('a router enrolling: its router updated and its enrollment deleted, both by the router', async () => {
    const from = events.length;
    const router = await enrollEdgeRouter(t, token, { name: 'recorded-router' });
    const routerChanges = changesOf(router.id, from);
    assert.deepEqual(routerChanges, [
      ['created', 'routers', 'identity', admin],
      ['updated', 'routers', 'router', router.id],
    ]);
    const enrollments = events
      .slice(from)
      .filter((event): event is EntityChangeEvent => event.namespace === 'entityChange')
      .filter((event) => event.entityType === 'enrollments' && event.eventType !== 'committed')
      .map((event) => [event.eventType, (event.metadata as { author: { type: string } }).author.type]);
    assert.deepEqual(enrollments, [
      ['created', 'identity'],
      ['deleted', 'router'],
    ]);
    const update = events
      .slice(from)
      .find((event): event is EntityChangeEvent => event.namespace === 'entityChange' && event.eventType === 'updated');
    assert.equal(update?.initialState?.isVerified, false);
    assert.equal(update?.finalState?.isVerified, true);
  });

  /** The created/updated/deleted events of one entity type since `from`: [type, author type]. */
  const changesOfType = (entityType: string, from: number) =>
    events
      .slice(from)
      .filter((event): event is EntityChangeEvent => event.namespace === 'entityChange')
      .filter((event) => event.eventType !== 'committed' && event.entityType === entityType)
      .map((event) => [event.eventType, (event.metadata as { author: { type: string } }).author.type]);

  it('an identity disabled and enabled: updated twice, its API session deleted with the disabling', async () => {
    const user = await createUser(t, token);
    await login(t, user.username, user.password);
    const from = events.length;
    const disabled = await t.call({
      method: 'POST',
      url: `${MANAGEMENT}/identities/${user.id}/disable`,
      token,
      payload: { durationMinutes: 0 },
    });
    assert.equal(disabled.status, 200, disabled.text);
    assert.equal(
      (await t.call({ method: 'POST', url: `${MANAGEMENT}/identities/${user.id}/enable`, token })).status,
      200,
    );
    assert.deepEqual(changesOf(user.id, from), [
      ['updated', 'identities', 'identity', admin],
      ['updated', 'identities', 'identity', admin],
    ]);
    assert.deepEqual(changesOfType('apiSessions', from), [['deleted', 'identity']]);
  });

  it('MFA enrolled, verified and removed: its mfas created, updated and deleted by the identity', async () => {
    const user = await createUser(t, token);
    const userToken = await login(t, user.username, user.password);
    const from = events.length;
    const { secret } = await enrollVerifiedMfa(t, userToken);
    const removed = await t.call({
      method: 'DELETE',
      url: `${CLIENT}/current-identity/mfa`,
      token: userToken,
      headers: { 'mfa-validation-code': totpCode(secret, t.clock()) },
    });
    assert.equal(removed.status, 200, removed.text);
    assert.deepEqual(changesOfType('mfas', from), [
      ['created', 'identity'],
      ['updated', 'identity'],
      ['deleted', 'identity'],
    ]);
    const secrets = JSON.stringify(events.slice(from));
    assert.ok(!secrets.includes(secret) && !secrets.includes('recoveryCodes'), 'the secret and codes stay stored');
  });
});
