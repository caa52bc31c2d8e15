import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { create, type MessageInitShape } from '@bufbuild/protobuf';
import { createEdgeTerminator } from '../../src/fabric/terminators/create-terminator.js';
import {
  CreateTerminatorResult,
  CreateTerminatorV2RequestSchema,
  TerminatorPrecedence,
} from '../../src/fabric/messages/gen/edge_ctrl_pb.js';
import { buildTestApp, type TestApp } from '../support/test-app.js';
import { createEdgeRouter, readEntity } from '../support/factories.js';
import { createSession, grantService, openEdgeRouter } from '../support/sessions.js';
import { sdkClient, type SdkClient } from '../support/edge-clients.js';

describe('CreateTerminatorV2 decisions', () => {
  let t: TestApp;
  let admin: string;
  let routerId: string;
  let host: SdkClient;
  let serviceId: string;
  let bindToken: string;
  let dialToken: string;

  before(async () => {
    t = await buildTestApp();
    admin = await t.loginAsAdmin();
    routerId = await openEdgeRouter(t, admin);
    host = await sdkClient(t, admin);
    ({ serviceId } = await grantService(t, admin, host.identityId, ['Bind', 'Dial']));
    bindToken = (await createSession(t, host.apiSessionToken, serviceId, 'Bind')).token;
    dialToken = (await createSession(t, host.apiSessionToken, serviceId, 'Dial')).token;
  });
  after(() => t.close());

  const request = (fields: Omit<MessageInitShape<typeof CreateTerminatorV2RequestSchema>, '$typeName'> = {}) =>
    create(CreateTerminatorV2RequestSchema, {
      address: `t-${Math.random().toString(36).slice(2)}`,
      sessionToken: bindToken,
      fingerprints: [host.fingerprint],
      ...fields,
    });
  const decide = (req: ReturnType<typeof request>, router = routerId) =>
    createEdgeTerminator(t.deps.store, router, req, t.clock());

  it('creates an edge terminator the management API shows as upstream does', async () => {
    const req = request({
      cost: 7,
      precedence: TerminatorPrecedence.Required,
      instanceId: 'inst-1',
      instanceSecret: Uint8Array.of(1, 2),
      peerData: { 1003: Uint8Array.of(9) },
    });
    const outcome = await decide(req);
    assert.equal(outcome.result, CreateTerminatorResult.Success, outcome.message);
    assert.equal(outcome.created, true);
    const shown = await readEntity(t, admin, 'terminators', req.address);
    assert.equal(shown.binding, 'edge');
    assert.equal(shown.address, req.address);
    assert.equal(shown.routerId, routerId);
    assert.equal(shown.serviceId, serviceId);
    assert.equal(shown.identity, 'inst-1');
    assert.equal(shown.cost, 7);
    assert.equal(shown.precedence, 'required');
    const listed = await t.call({
      method: 'GET',
      url: `/edge/management/v1/services/${serviceId}/terminators`,
      token: admin,
    });
    assert.ok((listed.body as { data: { id: string }[] }).data.some((row) => row.id === req.address));
  });

  it('reuses a terminator asked for again, taking its new cost and precedence', async () => {
    const req = request({ cost: 1 });
    assert.equal((await decide(req)).created, true);
    const again = await decide({ ...req, cost: 3, precedence: TerminatorPrecedence.Failed });
    assert.equal(again.result, CreateTerminatorResult.Success);
    assert.equal(again.created, false);
    const shown = await readEntity(t, admin, 'terminators', req.address);
    assert.equal(shown.cost, 3);
    assert.equal(shown.precedence, 'failed');
  });

  it('refuses an id held by another router’s terminator as a conflict', async () => {
    const req = request();
    await decide(req);
    const otherRouter = await openEdgeRouter(t, admin);
    const outcome = await decide(req, otherRouter);
    assert.equal(outcome.result, CreateTerminatorResult.FailedIdConflict);
    assert.equal(outcome.message, 'selected id conflicts with terminator for different router');
  });

  it('refuses a Dial session offered as a terminator', async () => {
    const outcome = await decide(request({ sessionToken: dialToken }));
    assert.deepEqual([outcome.result, outcome.message], [CreateTerminatorResult.FailedOther, 'incorrect session type']);
  });

  it('answers an unknown session token with FailedInvalidSession', async () => {
    for (const sessionToken of ['no-such-token', 'nul\u0000token']) {
      // A NUL no row can hold (PostgreSQL refuses it in a query) is an unknown token like any other.
      const outcome = await decide(request({ sessionToken }));
      assert.deepEqual(
        [outcome.result, outcome.message],
        [CreateTerminatorResult.FailedInvalidSession, 'invalid session'],
      );
    }
  });

  it('refuses another identity’s session (its certificate is not the session’s)', async () => {
    const other = await sdkClient(t, admin);
    const outcome = await decide(request({ fingerprints: [other.fingerprint] }));
    assert.deepEqual([outcome.result, outcome.message], [CreateTerminatorResult.FailedOther, 'invalid api session']);
  });

  it('refuses a router the policies exclude', async () => {
    const closed = await createEdgeRouter(t, admin);
    const outcome = await decide(request(), closed);
    assert.deepEqual(
      [outcome.result, outcome.message],
      [CreateTerminatorResult.FailedOther, 'invalid edge router for session'],
    );
  });

  it('refuses a blank id and a cost past 65535', async () => {
    assert.deepEqual((await decide(request({ address: '' }))).message, 'provided terminator id is blank');
    const outcome = await decide(request({ cost: 65536 }));
    assert.deepEqual(
      [outcome.result, outcome.message],
      [CreateTerminatorResult.FailedOther, 'invalid cost 65536. cost must be between 0 and 65535 inclusive'],
    );
  });

  it('keeps terminators sharing an instance id to one hosting identity', async () => {
    const other = await sdkClient(t, admin);
    await t.call({
      method: 'POST',
      url: '/edge/management/v1/service-policies',
      token: admin,
      payload: {
        name: `bind-${other.identityId}`,
        type: 'Bind',
        semantic: 'AnyOf',
        identityRoles: [`@${other.identityId}`],
        serviceRoles: [`@${serviceId}`],
      },
    });
    const otherBind = (await createSession(t, other.apiSessionToken, serviceId, 'Bind')).token;
    assert.equal((await decide(request({ instanceId: 'shared' }))).result, CreateTerminatorResult.Success);
    const outcome = await decide(
      request({ instanceId: 'shared', sessionToken: otherBind, fingerprints: [other.fingerprint] }),
    );
    assert.equal(outcome.result, CreateTerminatorResult.FailedOther);
    assert.match(outcome.message, /^sibling terminator \S+ with shared identity shared belongs to different identity$/);
  });
});
